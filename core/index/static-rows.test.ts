import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { DEFAULT_MODEL_DIR } from '../../cli/package-root.ts'
import { StaticEmbedder } from '../embed/static.ts'
import type { StaticModelDescriptor } from '../embed/static-model.ts'
import { quantizeRows } from './quantized.ts'
import { bucketOfWord, bucketStarts, encodeRowsPack, entryBytes, findInBucket, fnv1a32 } from './static-rows.ts'

// The shipped default model, packed as an index serves it.
const read = (name: string) => readFileSync(new URL(name, DEFAULT_MODEL_DIR))
const desc = JSON.parse(read('model.json').toString()) as StaticModelDescriptor
const whole = new StaticEmbedder(desc, read('vocab.txt').toString(), read('vectors.bin'))
const words = read('vocab.txt').toString().split('\n').slice(0, desc.vocabSize)
const packed = encodeRowsPack(whole.table, words)

describe('static model rows pack', () => {
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

  it('packs a table of any dimension count, its rows 4-byte aligned or not', () => {
    const small = ['alpha', 'beta', 'gamma', 'delta', 'epsilon', 'zeta', 'eta']
    for (const dims of [6, 8, 7, 12]) {
      const table = quantizeRows(small.map((_, i) => Array.from({ length: dims }, (_, d) => Math.sin(i * 7 + d) * (i + 1))), dims)
      const { pack, counts } = encodeRowsPack(table, small)
      const starts = bucketStarts(counts)
      const size = entryBytes(dims)
      small.forEach((w, i) => {
        const b = bucketOfWord(w, counts.length)
        const row = findInBucket(pack.subarray(starts[b]! * size, starts[b + 1]! * size), w, dims, 'pack')
        expect(row && { rank: row.rank, scale: row.scale, values: Array.from(row.values) }, `${w}, ${dims} dims`).toEqual({
          rank: i,
          scale: table.scales[i],
          values: Array.from(table.rows.subarray(i * dims, (i + 1) * dims)),
        })
      })
    }
  })
})
