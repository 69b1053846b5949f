import { describe, expect, it } from 'vitest'
import { quantizeRows } from '../index/quantized.ts'
import { l2normalize } from '../embed/types.ts'
import { unitVectors as vectors } from '../index/testing.ts'
import { denseScore, denseTopK } from './dense.ts'
import { codeScores, openExactRows, openPassageVectors } from './passage-vectors.ts'
import { decodeVectorCodes, encodeVectorCodes, encodeVectorRows, rowBytes } from '../index/vectors.ts'
import type { PartLoader } from '../index/parts.ts'

/** A part loader over one rows file, recording the ranges read. */
function rowsLoader(file: Uint8Array): PartLoader & { reads: [number, number][] } {
  const reads: [number, number][] = []
  return {
    reads,
    bytes: async () => file,
    range: async (_name, start, end) => (reads.push([start, end]), file.subarray(start, end)),
  }
}

describe('passage vector codes', () => {
  it('codes the dimensions that vary most, and scores scale * sum of q times the signs', () => {
    const dims = 12
    const rows = vectors(40, dims).map((v) => {
      // Dimensions 3 and 7 carry most of the spread.
      const w = Float64Array.from(v, (x, d) => (d === 3 || d === 7 ? x * 10 : x))
      return l2normalize(w)
    })
    const codes = decodeVectorCodes(encodeVectorCodes(rows, dims, 2), rows.length, dims, 'codes')
    expect([...codes.picked].sort()).toEqual([3, 7])
    const q = vectors(1, dims, 99)[0]!
    const scores = codeScores(codes, q)
    rows.forEach((x, i) => {
      const naive = [...codes.picked].reduce((s, d) => s + q[d]! * (x[d]! >= 0 ? 1 : -1), 0) * codes.scale
      expect(scores[i]).toBeCloseTo(naive, 10)
    })
  })

  it('finds most of the exact top 10 among its top 50 with every dimension coded', async () => {
    const dims = 64
    const rows = vectors(600, dims)
    const pv = openPassageVectors(decodeVectorCodes(encodeVectorCodes(rows, dims), rows.length, dims, 'codes'), openExactRows('vectors.i8', dims, rowsLoader(encodeVectorRows(rows, dims))))
    let found = 0
    for (const q of vectors(20, dims, 3)) {
      const exact = (await pv.exactTopK(q, 10)).map((h) => h.index)
      const scan = new Set(pv.scan(q, 50).map((h) => h.index))
      found += exact.filter((i) => scan.has(i)).length
    }
    expect(found / 200).toBeGreaterThan(0.8)
  })

  it('scores candidates exactly from their rows, reading each row once', async () => {
    const dims = 16
    const rows = vectors(10, dims)
    const loader = rowsLoader(encodeVectorRows(rows, dims))
    const pv = openPassageVectors(decodeVectorCodes(encodeVectorCodes(rows, dims), rows.length, dims, 'codes'), openExactRows('vectors.i8', dims, loader))
    const q = vectors(1, dims, 5)[0]!
    const whole = quantizeRows(rows, dims)
    const exact = await pv.exact(q, [9, 1, 2])
    expect([...exact]).toEqual([9, 1, 2].map((o) => [o, denseScore(whole, q, o)]))
    expect(loader.reads).toEqual([9, 1, 2].map((o) => [o * rowBytes(dims), (o + 1) * rowBytes(dims)]))
    await pv.exact(q, [1, 2, 3])
    expect(loader.reads).toHaveLength(4)
    // Exact over every chunk ranks as the whole int8 table does (rows are quantized one by one either way).
    expect(await pv.exactTopK(q, 3)).toEqual(denseTopK(whole, q, 3))
  })

  it('names the rows file when a row is missing from it', async () => {
    const rows = vectors(4, 8)
    const pv = openPassageVectors(decodeVectorCodes(encodeVectorCodes(rows, 8), 4, 8, 'codes'), openExactRows('vectors.x.i8', 8, rowsLoader(encodeVectorRows(rows, 8).subarray(0, 30))))
    await expect(pv.exact(rows[0]!, [3])).rejects.toThrow(/index vectors file vectors\.x\.i8: row 3 has 0 bytes, expected 12/)
  })

})
