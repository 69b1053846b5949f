import { readFileSync } from 'node:fs'
import { gzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import type { ShardSet } from '../index-format.ts'
import { DEFAULT_MODEL_DIR } from './load-default.ts'
import { StaticEmbedder, staticTokens } from './static.ts'
import type { StaticModelDescriptor } from './static-model.ts'
import { decodeRowShard, encodeRowShards, fnv1a32, shardOfWord, splitIdentity, SplitStaticEmbedder } from './static-split.ts'

const read = (name: string) => readFileSync(new URL(name, DEFAULT_MODEL_DIR))
const desc = JSON.parse(read('model.json').toString()) as StaticModelDescriptor
const whole = new StaticEmbedder(desc, read('vocab.txt').toString(), read('vectors.bin'))
const words = read('vocab.txt').toString().split('\n').slice(0, desc.vocabSize)
const shards = encodeRowShards(whole.table, words)
const set: ShardSet = { dir: 'embed-rows.test', count: shards.length, ext: '.bin.gz' }

/** A split embedder over the default model's shards, recording which files it fetched. */
function split() {
  const fetched: string[] = []
  const embedder = new SplitStaticEmbedder(splitIdentity(desc, set, {}), splitIdentity(desc, set, {}).rows!, async (name) => {
    fetched.push(name)
    return gzipSync(shards[Number(name.split('/')[1]!.split('.')[0])]!)
  })
  return { embedder, fetched }
}

const QUESTIONS = [
  'How do I set a cookie on the response?',
  'Über-fast routing with regex params and 42 wildcards',
  'zzqxw qqqzzv',
  'How can readers subscribe from a feed reader?',
]

describe('static model split by word', () => {
  it('hashes words the same way everywhere (FNV-1a over UTF-16 code units)', () => {
    // Reference values of 32-bit FNV-1a: '' is the offset basis; 'a' is a published test vector.
    expect(fnv1a32('')).toBe(0x811c9dc5)
    expect(fnv1a32('a')).toBe(0xe40c292c)
    expect(shardOfWord('cookie', 7)).toBe(fnv1a32('cookie') % 7)
  })

  it('puts every word in exactly one shard, with its row number, scale and values', () => {
    let total = 0
    const wrong: string[] = []
    shards.forEach((bytes, i) => {
      const rows = decodeRowShard(bytes, desc.dims, `shard ${i}`)
      total += rows.size
      for (const [word, row] of rows) {
        if (shardOfWord(word, shards.length) !== i || words[row.rank] !== word || row.scale !== whole.table.scales[row.rank]) wrong.push(word)
        for (let d = 0; d < desc.dims; d++) if (row.values[row.offset + d] !== whole.table.rows[row.rank * desc.dims + d]) wrong.push(`${word}[${d}]`)
      }
    })
    expect(wrong).toEqual([])
    expect(total).toBe(desc.vocabSize)
  })

  it('embeds exactly as the whole table does, fetching only the question words\' shards', async () => {
    const { embedder, fetched } = split()
    for (const q of QUESTIONS) {
      const [a] = await whole.embed([q])
      const [b] = await embedder.embed([q])
      expect(Array.from(b!), q).toEqual(Array.from(a!))
    }
    const distinctWords = new Set(QUESTIONS.flatMap((q) => staticTokens(q, desc.tokenizer.pattern)))
    expect(new Set(fetched).size).toBeLessThanOrEqual(distinctWords.size)
    // Each shard is fetched once, however many questions use it.
    expect(fetched.length).toBe(new Set(fetched).size)
  })

  it('gives each word its rank (row number) with its row, for rarity', async () => {
    const { embedder } = split()
    const rows = await embedder.rows('the cookie zzqxw')
    expect(rows.get('the')!.rank).toBe(words.indexOf('the'))
    expect(rows.get('cookie')!.rank).toBe(words.indexOf('cookie'))
    expect(rows.has('zzqxw')).toBe(false)
  })

  it('fails with a clear error on a damaged rows file, and retries a failed fetch', async () => {
    expect(() => decodeRowShard(shards[0]!.subarray(0, 50), desc.dims, 'embed-rows.x/0.bin.gz')).toThrow(
      /model rows file embed-rows.x\/0.bin.gz is damaged/,
    )
    let calls = 0
    const flaky = new SplitStaticEmbedder(splitIdentity(desc, set, {}), splitIdentity(desc, set, {}).rows!, async (name) => {
      if (calls++ === 0) throw new Error('offline')
      return shards[Number(name.split('/')[1]!.split('.')[0])]!
    })
    await expect(flaky.embed(['cookie'])).rejects.toThrow('offline')
    const [v] = await flaky.embed(['cookie'])
    expect(Array.from(v!)).toEqual(Array.from((await whole.embed(['cookie']))[0]!))
  })
})
