import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { DEFAULT_MODEL_DIR } from '../../cli/package-root.ts'
import { StaticEmbedder } from './static.ts'
import { staticWords, type StaticModelDescriptor } from './static-model.ts'
import { PackedStaticEmbedder } from './static-packed.ts'
import { encodeRowsPack } from '../index/static-rows.ts'

const read = (name: string) => readFileSync(new URL(name, DEFAULT_MODEL_DIR))
const desc = JSON.parse(read('model.json').toString()) as StaticModelDescriptor
const whole = new StaticEmbedder(desc, read('vocab.txt').toString(), read('vectors.bin'))
const words = staticWords(desc, read('vocab.txt').toString())

describe('the rows pack held in memory (the indexer)', () => {
  it('embeds exactly as the whole table does, with the same identity', async () => {
    const texts = [
      'How do I set a cookie on the response?',
      'Über-fast routing with regex params and 42 wildcards',
      'zzqxw qqqzzv',
      words.slice(0, 400).join(' '),
      'the the the cookie Cookie COOKIE zzqxw, and the cookie again',
    ]
    const inMemory = new PackedStaticEmbedder(desc, encodeRowsPack(whole.table, words))
    expect(inMemory.identity).toEqual(whole.identity)
    const [a, b] = [await whole.embed(texts), await inMemory.embed(texts)]
    texts.forEach((t, i) => expect(Array.from(b[i]!), t).toEqual(Array.from(a[i]!)))
  })

  it("gives a word's row number with its row, and nothing for a word outside the vocabulary", () => {
    const inMemory = new PackedStaticEmbedder(desc, encodeRowsPack(whole.table, words))
    expect(inMemory.row('cookie')!.rank).toBe(words.indexOf('cookie'))
    expect(inMemory.row('zzqxw')).toBeUndefined()
  })

  it("embeds from a reader of the pack's byte ranges exactly as from the whole pack, reading only the texts' words' buckets", async () => {
    const packed = encodeRowsPack(whole.table, words)
    const texts = ['How do I set a cookie on the response?', 'zzqxw qqqzzv', 'the the cookie Cookie COOKIE']
    let read = 0
    const byRange = new PackedStaticEmbedder(desc, { counts: packed.counts, read: (start, end) => ((read += end - start), packed.pack.slice(start, end)) })
    const [a, b] = [await new PackedStaticEmbedder(desc, packed).embed(texts), await byRange.embed(texts)]
    texts.forEach((t, i) => expect(Array.from(b[i]!), t).toEqual(Array.from(a[i]!)))
    expect(read).toBeGreaterThan(0)
    expect(read).toBeLessThan(packed.pack.length / 100)
  })
})
