import { describe, expect, it } from 'vitest'
import { quantizeRows } from './quantized.ts'
import { unitVectors as vectors } from './testing.ts'
import { codeDims, decodeVectorCodes, encodeVectorCodes, encodeVectorRows, MIN_CODE_DIMS, rowBytes } from './vectors.ts'

describe('passage vector parts', () => {
  it('sizes codes to the byte budget: every dimension for a small site, fewer bits per chunk as it grows', () => {
    expect(codeDims(900, 256)).toBe(256)
    expect(codeDims(4064, 256)).toBe(128)
    expect(codeDims(1_000_000, 256)).toBe(MIN_CODE_DIMS)
    expect(codeDims(10, 20)).toBe(20)
    expect(codeDims(4064, 256) % 8).toBe(0)
  })

  it('writes each row as quantizeRows quantizes it: its f32 scale, then its int8 values (a zero row too)', () => {
    const dims = 24
    const rows = [...vectors(30, dims), new Float32Array(dims)]
    const bytes = encodeVectorRows(rows, dims)
    const q = quantizeRows(rows, dims)
    const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
    expect(bytes.length).toBe(rows.length * rowBytes(dims))
    rows.forEach((_, i) => {
      expect(view.getFloat32(i * rowBytes(dims), true)).toBe(q.scales[i])
      expect(new Int8Array(bytes.buffer, bytes.byteOffset + i * rowBytes(dims) + 4, dims)).toEqual(q.rows.subarray(i * dims, (i + 1) * dims))
    })
  })

  it('refuses codes that do not match the index, naming the file', () => {
    const bytes = encodeVectorCodes(vectors(5, 8), 8)
    expect(() => decodeVectorCodes(bytes, 6, 8, 'codes.x.bits')).toThrow(/codes\.x\.bits: codes for 5 chunks of 8 dims; the index has 6 of 8/)
    expect(() => decodeVectorCodes(bytes.subarray(0, bytes.length - 1), 5, 8, 'codes.x.bits')).toThrow(/codes\.x\.bits: has \d+ bytes, expected \d+/)
  })
})
