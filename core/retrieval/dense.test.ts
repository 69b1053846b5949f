import { describe, expect, it } from 'vitest'
import { encodeQuantized, quantizeRows } from '../index/quantized.ts'
import { l2normalize } from '../embed/types.ts'
import { decodeChunkVectors, denseScore, denseTopK, topK } from './dense.ts'

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

describe('topK', () => {
  // Scores with many ties (a few distinct values) and NaN-free, in a fixed pseudo-random order.
  const scoresOf = (count: number, seed: number) => Array.from({ length: count }, (_, i) => ((i * 7919 + seed * 104729) % 13) / 4 - 1)
  const reference = (scores: number[], k: number) =>
    scores
      .map((score, index) => ({ index, score }))
      .sort((a, b) => b.score - a.score || a.index - b.index)
      .slice(0, k)

  it('is the k best by score, ties in row order, as a full sort gives them', () => {
    for (const [count, k] of [[0, 5], [3, 5], [50, 50], [878, 50], [1000, 1], [200, 199]] as const) {
      for (const seed of [1, 2, 3]) {
        const scores = scoresOf(count, seed)
        expect(topK(count, (i) => scores[i]!, k), `${count} rows, k ${k}, seed ${seed}`).toEqual(reference(scores, k))
      }
    }
  })
})

