/**
 * Int8 rows with one float32 scale per row: the layout of both the static
 * model's word table and an index's chunk vectors.
 * Bytes: float32 scales (count), then int8 rows (count x dims), little-endian
 * (every platform docpilot runs on is little-endian; typed arrays use host order).
 */

export interface QuantizedRows {
  count: number
  dims: number
  scales: Float32Array
  rows: Int8Array
}

export function quantizedByteLength(count: number, dims: number): number {
  return count * 4 + count * dims
}

export function quantizeRows(vectors: ArrayLike<number>[], dims: number): QuantizedRows {
  const count = vectors.length
  const scales = new Float32Array(count)
  const rows = new Int8Array(count * dims)
  vectors.forEach((v, i) => {
    if (v.length !== dims) throw new Error(`vector ${i} has ${v.length} dims, expected ${dims}`)
    const scale = rowScale(v, dims)
    scales[i] = scale
    for (let d = 0; d < dims; d++) rows[i * dims + d] = Math.round(v[d]! / scale)
  })
  return { count, dims, scales, rows }
}

/** A row's scale: its largest magnitude maps to 127 (1 for a zero row). Values are Math.round(v / scale), with this unrounded scale. */
export function rowScale(v: ArrayLike<number>, dims: number): number {
  let max = 0
  for (let d = 0; d < dims; d++) max = Math.max(max, Math.abs(v[d]!))
  return max > 0 ? max / 127 : 1
}

export function encodeQuantized(q: QuantizedRows): Uint8Array {
  const out = new Uint8Array(quantizedByteLength(q.count, q.dims))
  out.set(new Uint8Array(q.scales.buffer, q.scales.byteOffset, q.scales.byteLength), 0)
  out.set(new Uint8Array(q.rows.buffer, q.rows.byteOffset, q.rows.byteLength), q.count * 4)
  return out
}

export function decodeQuantized(bytes: Uint8Array, count: number, dims: number, what: string): QuantizedRows {
  const expected = quantizedByteLength(count, dims)
  if (bytes.byteLength !== expected) {
    throw new Error(`${what}: has ${bytes.byteLength} bytes, expected ${expected} (${count} rows x ${dims} dims, int8 + scales)`)
  }
  // Float32 views need 4-byte alignment: bytes that arrived unaligned are copied (a 16 MB model table read from disk is not).
  const b = bytes.byteOffset % 4 === 0 ? bytes : bytes.slice()
  return { count, dims, scales: new Float32Array(b.buffer, b.byteOffset, count), rows: new Int8Array(b.buffer, b.byteOffset + count * 4, count * dims) }
}

/** Row i as float32 (scale applied). */
export function dequantizeRow(q: QuantizedRows, i: number): Float32Array {
  const out = new Float32Array(q.dims)
  const s = q.scales[i]!
  for (let d = 0; d < q.dims; d++) out[d] = q.rows[i * q.dims + d]! * s
  return out
}
