/**
 * The passage vectors' two parts, as written and read (the reader's use of
 * them: core/retrieval/passage-vectors.ts):
 *
 * - codes: one bit per dimension (its sign) for the dimensions that vary most
 *   across the docs, as many as a fixed byte budget allows (all of them for a
 *   small site);
 * - exact rows: int8, one scale per row (as quantizeRows makes them), packed in
 *   one file in chunk order so that each can be read alone (a range request).
 *
 * Code file bytes (little-endian): u32 chunks, u16 code dims m, u16 full dims,
 * f32 scale, u16 x m picked dimensions, then per chunk ceil(m / 8) bytes, bit
 * j (least significant first) set when picked dimension j is not negative.
 * The approximate score of a chunk is scale * sum_j q[dim_j] * (bit_j ? 1 : -1).
 * Rows file: per chunk, f32 scale then i8 x dims values.
 */
import { rowScale } from './quantized.ts'

/** Bytes of codes a reader fetches up front: the code width shrinks as the docs grow. */
export const DEFAULT_CODE_BUDGET = 64 * 1024
/** Fewest code bits per chunk, however large the site. */
export const MIN_CODE_DIMS = 32

export interface VectorCodes {
  count: number
  /** Dimensions of the full vectors. */
  dims: number
  /** The dimensions coded, in code order. */
  picked: Uint16Array
  scale: number
  bytesPerChunk: number
  bits: Uint8Array
}

const HEADER = 12

/** Code width for `count` chunks of `dims` dimensions under a byte budget: a multiple of 8 from MIN_CODE_DIMS up to dims. */
export function codeDims(count: number, dims: number, budget = DEFAULT_CODE_BUDGET): number {
  const fit = Math.floor((budget * 8) / Math.max(1, count) / 8) * 8
  return Math.min(dims, Math.max(Math.min(MIN_CODE_DIMS, dims), fit))
}

/**
 * Codes for unit vectors: the `m` dimensions of largest variance over these vectors, one sign bit each.
 *
 * An index build calls this once, so its loops would run mostly unoptimised (each new loop met in the
 * interpreter, and optimised code leaving at the next loop it has no feedback for): the work per vector
 * is in small functions below, called once per vector, which V8 optimises after a few calls.
 * Every sum adds the same terms in the same order as the plain definition (vector by vector), so the
 * picked dimensions and the scale do not depend on how the loops are cut.
 */
export function encodeVectorCodes(vectors: readonly Float32Array[], dims: number, m = codeDims(vectors.length, dims)): Uint8Array {
  const n = vectors.length
  const mean = new Float64Array(dims)
  for (let i = 0; i < n; i++) addShare(mean, vectors[i]!, n)
  const variance = new Float64Array(dims)
  for (let i = 0; i < n; i++) addSquaredDeviation(variance, vectors[i]!, mean)
  // Largest variance first; ties by dimension number, so the choice is the same everywhere.
  const picked = Uint16Array.from([...variance.keys()].sort((a, b) => variance[b]! - variance[a]! || a - b).slice(0, m))
  const bytesPerChunk = Math.ceil(m / 8)
  const out = new Uint8Array(HEADER + 2 * m + n * bytesPerChunk)
  const view = new DataView(out.buffer)
  // One scale for all chunks: the mean magnitude of a coded value, so approximate scores sit on the cosine's scale.
  let magnitude = 0
  for (let i = 0, at = HEADER + 2 * m; i < n; i++, at += bytesPerChunk) magnitude = writeSigns(vectors[i]!, picked, out, at, magnitude)
  view.setUint32(0, n, true)
  view.setUint16(4, m, true)
  view.setUint16(6, dims, true)
  view.setFloat32(8, n && m ? magnitude / (n * m) : 0, true)
  for (let j = 0; j < m; j++) view.setUint16(HEADER + 2 * j, picked[j]!, true)
  return out
}

/** mean[d] += v[d] / n for each dimension. */
function addShare(mean: Float64Array, v: Float32Array, n: number): void {
  for (let d = 0; d < mean.length; d++) mean[d]! += v[d]! / n
}

/** variance[d] += (v[d] - mean[d])^2 for each dimension (x * x: what x ** 2 gives, without a call to pow). */
function addSquaredDeviation(variance: Float64Array, v: Float32Array, mean: Float64Array): void {
  for (let d = 0; d < variance.length; d++) {
    const x = v[d]! - mean[d]!
    variance[d]! += x * x
  }
}

/** Sets the bits of one chunk's code at `at` (picked dimension j not negative); returns `magnitude` plus its coded values' magnitudes, added in code order. */
function writeSigns(v: Float32Array, picked: Uint16Array, out: Uint8Array, at: number, magnitude: number): number {
  for (let j = 0; j < picked.length; j++) {
    const x = v[picked[j]!]!
    magnitude += Math.abs(x)
    if (x >= 0) out[at + (j >> 3)]! |= 1 << (j & 7)
  }
  return magnitude
}

export function decodeVectorCodes(bytes: Uint8Array, count: number, dims: number, what: string): VectorCodes {
  const fail = (why: string) => new Error(`${what}: ${why}; rebuild the index with \`docpilot index\``)
  if (bytes.length < HEADER) throw fail('too short to hold vector codes')
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const n = view.getUint32(0, true)
  const m = view.getUint16(4, true)
  if (n !== count || view.getUint16(6, true) !== dims) throw fail(`codes for ${n} chunks of ${view.getUint16(6, true)} dims; the index has ${count} of ${dims}`)
  const bytesPerChunk = Math.ceil(m / 8)
  if (bytes.length !== HEADER + 2 * m + n * bytesPerChunk) throw fail(`has ${bytes.length} bytes, expected ${HEADER + 2 * m + n * bytesPerChunk}`)
  const picked = new Uint16Array(m)
  for (let j = 0; j < m; j++) picked[j] = view.getUint16(HEADER + 2 * j, true)
  if (picked.some((d) => d >= dims)) throw fail('names a dimension the vectors do not have')
  return { count: n, dims, picked, scale: view.getFloat32(8, true), bytesPerChunk, bits: bytes.slice(HEADER + 2 * m) }
}

export const rowBytes = (dims: number) => 4 + dims

/** Exact rows of every chunk, in chunk order (int8, one scale per row, as quantizeRows makes them). */
export function encodeVectorRows(vectors: readonly Float32Array[], dims: number): Uint8Array {
  const size = rowBytes(dims)
  const out = new Uint8Array(vectors.length * size)
  for (let i = 0; i < vectors.length; i++) {
    if (vectors[i]!.length !== dims) throw new Error(`vector ${i} has ${vectors[i]!.length} dims, expected ${dims}`)
    encodeVectorRow(vectors[i]!, dims, out, i * size)
  }
  return out
}

/** One chunk's exact row, written into `out` at `at` (rowBytes(dims) bytes). */
export function encodeVectorRow(v: Float32Array, dims: number, out: Uint8Array, at: number): void {
  const scale = rowScale(v, dims)
  new DataView(out.buffer, out.byteOffset + at, 4).setFloat32(0, scale, true)
  const values = new Int8Array(out.buffer, out.byteOffset + at + 4, dims)
  for (let d = 0; d < dims; d++) values[d] = Math.round(v[d]! / scale)
}
