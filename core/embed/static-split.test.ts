import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import type { PartLoader } from '../index/parts.ts'
import { DEFAULT_MODEL_DIR } from './load-default.ts'
import { StaticEmbedder, staticTokens } from './static.ts'
import type { StaticModelDescriptor } from './static-model.ts'
import { bucketOfWord, bucketStarts, encodeRowsPack, entryBytes, findInBucket, fnv1a32, splitIdentity, SplitStaticEmbedder } from './static-split.ts'

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
  it('hashes words the same way everywhere (FNV-1a over UTF-16 code units)', () => {
    // Reference values of 32-bit FNV-1a: '' is the offset basis; 'a' is a published test vector.
    expect(fnv1a32('')).toBe(0x811c9dc5)
    expect(fnv1a32('a')).toBe(0xe40c292c)
  })

  it('puts every word in its bucket with its row number, scale and values; buckets of about two words', () => {
    const size = entryBytes(desc.dims)
    expect(packed.pack.length).toBe(words.length * size)
    expect(packed.counts.length).toBe(Math.ceil(words.length / 2))
    const starts = bucketStarts(packed.counts)
    expect(starts.at(-1)).toBe(words.length)
    const wrong: string[] = []
    words.forEach((w, i) => {
      const b = bucketOfWord(w, packed.counts.length)
      const row = findInBucket(packed.pack.subarray(starts[b]! * size, starts[b + 1]! * size), w, desc.dims, 'pack')
      if (!row || row.rank !== i || row.scale !== whole.table.scales[i]) wrong.push(w)
      else for (let d = 0; d < desc.dims; d++) if (row.values[d] !== whole.table.rows[i * desc.dims + d]) wrong.push(`${w}[${d}]`)
    })
    expect(wrong).toEqual([])
  })

  it("keeps a bucket's words in row order, so the pack's bytes depend on the model alone", () => {
    const size = entryBytes(desc.dims)
    const view = new DataView(packed.pack.buffer, packed.pack.byteOffset, packed.pack.byteLength)
    const starts = bucketStarts(packed.counts)
    const unordered: number[] = []
    for (let b = 0; b < packed.counts.length; b++) {
      for (let e = starts[b]! + 1; e < starts[b + 1]!; e++) if (view.getUint32((e - 1) * size + 4, true) > view.getUint32(e * size + 4, true)) unordered.push(b)
    }
    expect(unordered).toEqual([])
  })

  it('tells a word outside the vocabulary from the words of its bucket', () => {
    const size = entryBytes(desc.dims)
    const starts = bucketStarts(packed.counts)
    for (const w of ['zzqxw', 'qqqzzv', 'docpilotish']) {
      const b = bucketOfWord(w, packed.counts.length)
      expect(findInBucket(packed.pack.subarray(starts[b]! * size, starts[b + 1]! * size), w, desc.dims, 'pack')).toBeUndefined()
    }
  })

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
