import { describe, expect, it } from 'vitest'
import { encodeQuantized, quantizeRows } from '../index/quantized.ts'
import { l2normalize } from '../embed/types.ts'
import { decodeChunkVectors, denseScore, denseTopK } from './dense.ts'

const rows = [
  [1, 0, 0],
  [0.6, 0.8, 0],
  [0, 1, 0],
  [0.6, 0.8, 0],
  [0, 0, 1],
].map((r) => l2normalize(Float64Array.from(r)))
const vectors = decodeChunkVectors(encodeQuantized(quantizeRows(rows, 3)), rows.length, 3)

describe('dense top-k over int8 vectors', () => {
  it('scores approximate the cosine within int8 precision', () => {
    const q = l2normalize(Float64Array.from([1, 1, 0]))
    rows.forEach((r, i) => {
      const cosine = r.reduce((s, x, d) => s + x * q[d]!, 0)
      expect(Math.abs(denseScore(vectors, q, i) - cosine)).toBeLessThan(0.01)
    })
  })

  it('returns the best k, best first, ties in row order', () => {
    const q = l2normalize(Float64Array.from([0.6, 0.8, 0]))
    expect(denseTopK(vectors, q, 3).map((h) => h.index)).toEqual([1, 3, 2])
    expect(denseTopK(vectors, q, 10)).toHaveLength(5)
  })

  it('refuses a query vector from another space', () => {
    expect(() => denseTopK(vectors, new Float32Array(4), 3)).toThrow(/query vector has 4 dims, the index's vectors have 3/)
  })

  it('refuses a vectors file of the wrong size, saying what it expected', () => {
    expect(() => decodeChunkVectors(new Uint8Array(10), 5, 3)).toThrow(/index vectors file: has 10 bytes, expected 35/)
  })
})
