import { describe, expect, it } from 'vitest'
import { quantizeRows } from './quantized.ts'
import { unitVectors as vectors } from './testing.ts'
import { CODE_SAMPLE, codeDims, codeSample, decodeVectorCodes, encodeVectorCodes, encodeVectorRows, MIN_CODE_DIMS, rowBytes } from './vectors.ts'

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

  it('codes exactly as the plain definition: the same picked dimensions (ties by number), scale and bits', () => {
    const dims = 40
    // Dimensions 5 and 6 vary alike (a tie); negative zeros and zeros code as not negative.
    const rows = vectors(300, dims).map((v) => Float32Array.from(v, (x, d) => (d === 6 ? v[5]! : d === 9 ? -0 : d === 11 ? 0 : x)))
    for (const m of [8, 16, dims]) expect(encodeVectorCodes(rows, dims, m)).toEqual(plainCodes(rows, dims, m))
  })

  it('measures a large site on an even spread of CODE_SAMPLE vectors, from its first pages to its last, and codes every vector', () => {
    const dims = 12
    const n = 3 * CODE_SAMPLE + 7
    // Only the last third varies in dimension 3: a sample of the first vectors would not pick it.
    const rows = vectors(n, dims).map((v, i) => Float32Array.from(v, (x, d) => (d === 3 ? (i > (2 * n) / 3 ? (i % 2 ? 3 : -3) : 0) : x)))
    expect(codeSample(n)).toEqual(Array.from({ length: CODE_SAMPLE }, (_, k) => Math.floor((k * n) / CODE_SAMPLE)))
    const codes = decodeVectorCodes(encodeVectorCodes(rows, dims, 8), n, dims, 'codes')
    expect(codes.picked[0]).toBe(3)
    expect(codes.bits.length).toBe(n)
    expect(encodeVectorCodes(rows, dims, 8)).toEqual(plainCodes(rows, dims, 8))
  })

  it('refuses codes that do not match the index, naming the file', () => {
    const bytes = encodeVectorCodes(vectors(5, 8), 8)
    expect(() => decodeVectorCodes(bytes, 6, 8, 'codes.x.bits')).toThrow(/codes\.x\.bits: codes for 5 chunks of 8 dims; the index has 6 of 8/)
    expect(() => decodeVectorCodes(bytes.subarray(0, bytes.length - 1), 5, 8, 'codes.x.bits')).toThrow(/codes\.x\.bits: has \d+ bytes, expected \d+/)
  })
})

/** The codes by their definition, one plain loop per quantity, measured on the vectors at k * n / CODE_SAMPLE. */
function plainCodes(rows: readonly Float32Array[], dims: number, m: number): Uint8Array {
  const n = rows.length
  const s = Math.min(n, CODE_SAMPLE)
  const sample = Array.from({ length: s }, (_, k) => rows[Math.floor((k * n) / s)]!)
  const sum = (d: number, f: (x: number) => number) => sample.reduce((t, v) => t + f(v[d]!), 0)
  const variance = Array.from({ length: dims }, (_, d) => sum(d, (x) => x * x) / s - (sum(d, (x) => x) / s) ** 2)
  const picked = [...variance.keys()].sort((a, b) => variance[b]! - variance[a]! || a - b).slice(0, m)
  const magnitude = picked.reduce((t, d) => t + sum(d, Math.abs), 0)
  const bytesPerChunk = Math.ceil(m / 8)
  const out = new Uint8Array(12 + 2 * m + n * bytesPerChunk)
  const view = new DataView(out.buffer)
  view.setUint32(0, n, true)
  view.setUint16(4, m, true)
  view.setUint16(6, dims, true)
  view.setFloat32(8, magnitude / (s * m), true)
  picked.forEach((d, j) => view.setUint16(12 + 2 * j, d, true))
  rows.forEach((v, i) => picked.forEach((d, j) => v[d]! >= 0 && (out[12 + 2 * m + i * bytesPerChunk + (j >> 3)]! |= 1 << (j & 7))))
  return out
}
