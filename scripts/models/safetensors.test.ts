import { describe, expect, it } from 'vitest'
import { readSafetensors } from './safetensors.ts'

/** A safetensors file holding `tensors` (raw little-endian bytes each) under a header naming their dtypes and shapes. */
function safetensors(tensors: Record<string, { dtype: string; shape: number[]; bytes: Uint8Array }>): Uint8Array {
  const header: Record<string, unknown> = { __metadata__: { format: 'pt' } }
  let offset = 0
  for (const [name, t] of Object.entries(tensors)) {
    header[name] = { dtype: t.dtype, shape: t.shape, data_offsets: [offset, offset + t.bytes.length] }
    offset += t.bytes.length
  }
  const json = new TextEncoder().encode(JSON.stringify(header))
  const out = new Uint8Array(8 + json.length + offset)
  new DataView(out.buffer).setBigUint64(0, BigInt(json.length), true)
  out.set(json, 8)
  let at = 8 + json.length
  for (const t of Object.values(tensors)) {
    out.set(t.bytes, at)
    at += t.bytes.length
  }
  return out
}

describe('readSafetensors', () => {
  it('reads float32 tensors as they are and float16 tensors converted, skipping other dtypes', () => {
    const halves = new Uint16Array([0x3c00, 0xc000, 0x3800, 0x7bff, 0x0001, 0x8000, 0x7c00, 0x3555])
    const floats = new Float32Array([1.5, -0.25])
    const file = safetensors({
      half: { dtype: 'F16', shape: [2, 4], bytes: new Uint8Array(halves.buffer) },
      single: { dtype: 'F32', shape: [2], bytes: new Uint8Array(floats.buffer) },
      ids: { dtype: 'I64', shape: [1], bytes: new Uint8Array(8) },
    })
    const got = readSafetensors(file)
    expect([...got.keys()]).toEqual(['half', 'single'])
    expect(Array.from(got.get('half')!.data)).toEqual([1, -2, 0.5, 65504, 2 ** -24, -0, Infinity, 0.333251953125])
    expect(got.get('half')!.shape).toEqual([2, 4])
    expect(Array.from(got.get('single')!.data)).toEqual([1.5, -0.25])
  })

  it('names the file and tensor when a byte range does not fit its shape', () => {
    const file = safetensors({ half: { dtype: 'F16', shape: [3], bytes: new Uint8Array(4) } })
    expect(() => readSafetensors(file, 'w.safetensors')).toThrow('w.safetensors: tensor half has a byte range that does not match its shape [3]')
  })
})
