import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { PartLoader } from '../index/parts.ts'
import { DEFAULT_MODEL_DIR } from '../../cli/package-root.ts'
import { StaticEmbedder, staticTokens } from './static.ts'
import type { StaticModelDescriptor } from './static-model.ts'
import { splitIdentity, SplitStaticEmbedder } from './static-split.ts'
import { encodeRowsPack } from '../index/static-rows.ts'

const read = (name: string) => readFileSync(new URL(name, DEFAULT_MODEL_DIR))
const desc = JSON.parse(read('model.json').toString()) as StaticModelDescriptor
const whole = new StaticEmbedder(desc, read('vocab.txt').toString(), read('vectors.bin'))
const words = read('vocab.txt').toString().split('\n').slice(0, desc.vocabSize)
const packed = encodeRowsPack(whole.table, words)
const rows = { pack: 'embed-rows.t.bin', directory: 'embed-rows.t.dir', buckets: packed.counts.length }
const identity = splitIdentity(desc, rows, {})

/** A loader over the pack and seeds, recording what it was asked for. */
function loader(files: Record<string, Uint8Array> = { [rows.pack]: packed.pack, [rows.directory]: packed.counts }) {
  const reads: string[] = []
  const get = (name: string) => {
    const b = files[name]
    if (!b) throw new Error(`HTTP 404 for ${name}`)
    return b
  }
  const l: PartLoader & { reads: string[] } = {
    reads,
    bytes: async (name) => (reads.push(name), get(name)),
    range: async (name, start, end) => (reads.push(`${name}#${start}`), get(name).subarray(start, end)),
  }
  return l
}

const QUESTIONS = [
  'How do I set a cookie on the response?',
  'Über-fast routing with regex params and 42 wildcards',
  'zzqxw qqqzzv',
  'How can readers subscribe from a feed reader?',
]

describe('static model served by word', () => {
  it("embeds exactly as the whole table does, reading at most one bucket per distinct word and the directory once", async () => {
    const l = loader()
    const embedder = new SplitStaticEmbedder(identity, identity.rows!, l)
    for (const q of QUESTIONS) {
      const [a] = await whole.embed([q])
      const [b] = await embedder.embed([q])
      expect(Array.from(b!), q).toEqual(Array.from(a!))
    }
    const distinct = new Set(QUESTIONS.flatMap((q) => staticTokens(q, desc.tokenizer.pattern)))
    expect(l.reads.filter((r) => r === rows.directory)).toHaveLength(1)
    const bucketReads = l.reads.filter((r) => r.startsWith(`${rows.pack}#`))
    expect(bucketReads.length).toBeGreaterThan(0)
    expect(bucketReads.length).toBeLessThanOrEqual(distinct.size)
  })

  it('gives each word its rank (row number) with its row, for rarity', async () => {
    const embedder = new SplitStaticEmbedder(identity, identity.rows!, loader())
    const found = await embedder.rows('the cookie zzqxw')
    expect(found.get('the')!.rank).toBe(words.indexOf('the'))
    expect(found.get('cookie')!.rank).toBe(words.indexOf('cookie'))
    expect(found.has('zzqxw')).toBe(false)
  })

  it("answers the gate's word ranks (1-based, ranked rows only) from the buckets the question's embedding reads", async () => {
    const l = loader()
    const embedder = new SplitStaticEmbedder(identity, identity.rows!, l)
    const ranked = desc.provenance?.frequencyRanked as number
    expect(ranked).toBeGreaterThan(0)
    expect(ranked).toBeLessThan(words.length)
    const beyond = words[ranked]! // the first row past the ranked ones
    await embedder.embed(['the cookie zzqxw'])
    const before = l.reads.length
    expect(await embedder.ranksOf(['the', 'cookie', 'zzqxw'], ranked)).toEqual([words.indexOf('the') + 1, words.indexOf('cookie') + 1, undefined])
    expect(l.reads.length).toBe(before)
    expect(await embedder.ranksOf([beyond, words[ranked - 1]!], ranked)).toEqual([undefined, ranked])
  })

  it('retries a failed read on the next question', async () => {
    let fail = true
    const inner = loader()
    const flaky: PartLoader = {
      ...inner,
      range: async (name, start, end) => {
        if (fail) {
          fail = false
          throw new Error('offline')
        }
        return inner.range!(name, start, end)
      },
    }
    const embedder = new SplitStaticEmbedder(identity, identity.rows!, flaky)
    await expect(embedder.embed(['cookie'])).rejects.toThrow(/model rows embed-rows\.t\.bin unreachable: offline/)
    expect(Array.from((await embedder.embed(['cookie']))[0]!)).toEqual(Array.from((await whole.embed(['cookie']))[0]!))
  })
})
