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
 * Vectors the picked dimensions and the scale are measured on: all of a small site's, an even spread
 * of a larger one's. A variance measured on a thousand vectors ranks the dimensions as all of them would
 * but for near ties (each estimate is within a few percent), and a cold build or re-index pays for every
 * vector it reads: the loops here run mostly unoptimised (astro, 4,064 vectors: ~20 ms for the sums alone).
 */
export const CODE_SAMPLE = 1024

/** The chunks (by position) the picked dimensions and scale are measured on: all of a small site's, CODE_SAMPLE evenly spread over a larger one's. */
export function codeSample(n: number): number[] {
  const sample = Math.min(n, CODE_SAMPLE)
  return Array.from({ length: sample }, (_, k) => Math.floor((k * n) / sample))
}

/** What every chunk's code is made with: the dimensions coded, in code order, and the one scale. */
export interface CodeStats {
  picked: Uint16Array
  scale: number
}

/**
 * Codes for unit vectors: the `m` dimensions of largest variance over these vectors (measured on up to
 * CODE_SAMPLE of them, evenly spread), one sign bit each.
 *
 * Two steps, which a re-index can take apart (indexer/code-memo.ts reuses what the chunks it kept were
 * given): codeStats measures the sample, then every vector's bits are set for the picked dimensions.
 */
export function encodeVectorCodes(vectors: readonly Float32Array[], dims: number, m = codeDims(vectors.length, dims)): Uint8Array {
  const { picked, scale } = codeStats(vectors, dims, m)
  const out = blankCodes(vectors.length, dims, { picked, scale })
  const bytesPerChunk = codeBytes(picked.length)
  for (let i = 0, at = codeBitsAt(picked.length); i < vectors.length; i++, at += bytesPerChunk) writeSigns(vectors[i]!, picked, out, at)
  return out
}

/**
 * One pass over the sample gathers, per dimension, its sum, sum of squares and sum of magnitudes
 * (variance is the mean square less the squared mean; the scale is the mean magnitude of the picked
 * dimensions). The work per vector sits in small functions that V8 optimises after a few calls. The
 * sample and the order of every sum follow chunk order, so the same vectors always give the same bytes.
 */
export function codeStats(vectors: readonly Float32Array[], dims: number, m: number): CodeStats {
  const positions = codeSample(vectors.length)
  const sample = positions.length
  const sums = { value: new Float64Array(dims), square: new Float64Array(dims), magnitude: new Float64Array(dims) }
  for (const i of positions) addToSums(sums, vectors[i]!)
  const variance = sums.square.map((square, d) => square / sample - (sums.value[d]! / sample) ** 2)
  // Largest variance first; ties by dimension number, so the choice is the same everywhere.
  const picked = Uint16Array.from([...variance.keys()].sort((a, b) => variance[b]! - variance[a]! || a - b).slice(0, m))
  // One scale for all chunks: the mean magnitude of a coded value, so approximate scores sit on the cosine's scale.
  let magnitude = 0
  for (const d of picked) magnitude += sums.magnitude[d]!
  return { picked, scale: sample && m ? magnitude / (sample * m) : 0 }
}

/** Bytes of one chunk's code of `m` bits. */
export const codeBytes = (m: number): number => Math.ceil(m / 8)
/** Where the first chunk's code starts in a codes file of `m` bits per chunk. */
export const codeBitsAt = (m: number): number => HEADER + 2 * m

/** A codes file for `n` chunks made with these stats, every chunk's bits clear (set them with writeSigns, or copy them in). */
export function blankCodes(n: number, dims: number, { picked, scale }: CodeStats): Uint8Array {
  const m = picked.length
  const out = new Uint8Array(codeBitsAt(m) + n * codeBytes(m))
  const view = new DataView(out.buffer)
  view.setUint32(0, n, true)
  view.setUint16(4, m, true)
  view.setUint16(6, dims, true)
  view.setFloat32(8, scale, true)
  for (let j = 0; j < m; j++) view.setUint16(HEADER + 2 * j, picked[j]!, true)
  return out
}

/** Adds one vector to the per-dimension sums of values, squares and magnitudes (x * x: what x ** 2 gives, without a call to pow). */
function addToSums(sums: { value: Float64Array; square: Float64Array; magnitude: Float64Array }, v: Float32Array): void {
  const { value, square, magnitude } = sums
  for (let d = 0; d < value.length; d++) {
    const x = v[d]!
    value[d]! += x
    square[d]! += x * x
    magnitude[d]! += Math.abs(x)
  }
}

/** Sets the bits of one chunk's code at `at` (its bits clear): bit j when picked dimension j is not negative. */
export function writeSigns(v: Float32Array, picked: Uint16Array, out: Uint8Array, at: number): void {
  for (let j = 0; j < picked.length; j++) if (v[picked[j]!]! >= 0) out[at + (j >> 3)]! |= 1 << (j & 7)
}

export function decodeVectorCodes(bytes: Uint8Array, count: number, dims: number, what: string): VectorCodes {
  const fail = (why: string) => new Error(`${what}: ${why}; rebuild the index with \`docpilot index\``)
  if (bytes.length < HEADER) throw fail('too short to hold vector codes')
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const n = view.getUint32(0, true)
  const m = view.getUint16(4, true)
  if (n !== count || view.getUint16(6, true) !== dims) throw fail(`codes for ${n} chunks of ${view.getUint16(6, true)} dims; the index has ${count} of ${dims}`)
  const bytesPerChunk = codeBytes(m)
  if (bytes.length !== codeBitsAt(m) + n * bytesPerChunk) throw fail(`has ${bytes.length} bytes, expected ${codeBitsAt(m) + n * bytesPerChunk}`)
  const picked = new Uint16Array(m)
  for (let j = 0; j < m; j++) picked[j] = view.getUint16(HEADER + 2 * j, true)
  if (picked.some((d) => d >= dims)) throw fail('names a dimension the vectors do not have')
  return { count: n, dims, picked, scale: view.getFloat32(8, true), bytesPerChunk, bits: bytes.slice(codeBitsAt(m)) }
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
