/**
 * Reads a `.safetensors` file (the Hugging Face weights format): an 8-byte
 * little-endian header length, a JSON header naming each tensor's dtype,
 * shape and byte range, then the raw little-endian data. Only what the
 * conversions need: float32 and float16 tensors, copied out as Float32Array.
 */

export interface SafeTensor {
  dtype: string
  shape: number[]
  data: Float32Array
}

export class SafetensorsError extends Error {
  override name = 'SafetensorsError'
}

export function readSafetensors(bytes: Uint8Array, file = 'model.safetensors'): Map<string, SafeTensor> {
  if (bytes.byteLength < 8) throw new SafetensorsError(`${file}: ${bytes.byteLength} bytes is too short for a safetensors file`)
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const headerLength = Number(view.getBigUint64(0, true))
  if (headerLength <= 0 || 8 + headerLength > bytes.byteLength) throw new SafetensorsError(`${file}: header length ${headerLength} does not fit in ${bytes.byteLength} bytes`)
  let header: Record<string, { dtype: string; shape: number[]; data_offsets: [number, number] }>
  try {
    header = JSON.parse(new TextDecoder().decode(bytes.subarray(8, 8 + headerLength)))
  } catch (err) {
    throw new SafetensorsError(`${file}: the header is not JSON (${err instanceof Error ? err.message : String(err)})`)
  }
  const base = 8 + headerLength
  const out = new Map<string, SafeTensor>()
  for (const [name, t] of Object.entries(header)) {
    if (name === '__metadata__' || (t.dtype !== 'F32' && t.dtype !== 'F16')) continue
    const [start, end] = t.data_offsets
    const count = t.shape.reduce((a, b) => a * b, 1)
    const width = t.dtype === 'F32' ? 4 : 2
    if (end - start !== count * width || base + end > bytes.byteLength) throw new SafetensorsError(`${file}: tensor ${name} has a byte range that does not match its shape [${t.shape}]`)
    // Copy (a Node Buffer's slice() is a view; the offset need not be aligned either).
    const raw = new Uint8Array(bytes.subarray(base + start, base + end)).buffer
    const data = t.dtype === 'F32' ? new Float32Array(raw) : halfToFloat(new Uint16Array(raw))
    out.set(name, { dtype: t.dtype, shape: t.shape, data })
  }
  return out
}

/** IEEE 754 half-precision values (little-endian, as safetensors stores them) as float32. */
function halfToFloat(halves: Uint16Array): Float32Array {
  const out = new Float32Array(halves.length)
  for (let i = 0; i < halves.length; i++) {
    const h = halves[i]!
    const sign = h & 0x8000 ? -1 : 1
    const exponent = (h >> 10) & 0x1f
    const fraction = h & 0x3ff
    out[i] =
      exponent === 0 ? sign * 2 ** -14 * (fraction / 1024) : exponent === 0x1f ? (fraction ? NaN : sign * Infinity) : sign * 2 ** (exponent - 15) * (1 + fraction / 1024)
  }
  return out
}
