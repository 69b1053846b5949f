import { describe, expect, it } from 'vitest'
import { decodeQuantized, encodeQuantized, quantizeRows } from './quantized.ts'

describe('int8 rows with a scale per row', () => {
  const q = quantizeRows([Float32Array.of(0.5, -1, 0.25), Float32Array.of(0, 0, 0), Float32Array.of(3, 2, -1)], 3)
  const bytes = encodeQuantized(q)

  it('decodes bytes that start on a 4-byte boundary in place, and copies bytes that do not', () => {
    const aligned = decodeQuantized(bytes, 3, 3, 'rows')
    expect(aligned.rows.buffer).toBe(bytes.buffer)
    const shifted = new Uint8Array(bytes.length + 1)
    shifted.set(bytes, 1)
    const copied = decodeQuantized(shifted.subarray(1), 3, 3, 'rows')
    expect(copied.rows.buffer).not.toBe(shifted.buffer)
    for (const r of [aligned, copied]) {
      expect(r.scales).toEqual(q.scales)
      expect(r.rows).toEqual(q.rows)
    }
  })

  it('names the file when its size does not match', () => {
    expect(() => decodeQuantized(bytes.subarray(0, 10), 3, 3, 'vectors.bin')).toThrow(/vectors\.bin: has 10 bytes, expected 21/)
  })
})
