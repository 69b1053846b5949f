/**
 * The passage vectors as a reader fetches them, in two layers:
 *
 * - codes, fetched whole with the first question: one bit per dimension (its
 *   sign) for the dimensions that vary most across the docs, as many as a
 *   fixed byte budget allows (all of them for a small site). Scanning every
 *   chunk's code gives the dense channel's candidates and approximate scores;
 * - exact rows (int8, one scale per row, as the embedder made them), in
 *   shards of consecutive chunks, fetched only for the few candidates that
 *   are re-scored: the best fused candidates and the gate's passages.
 *
 * Code file bytes (little-endian): u32 chunks, u16 code dims m, u16 full dims,
 * f32 scale, u16 x m picked dimensions, then per chunk ceil(m / 8) bytes, bit
 * j (least significant first) set when picked dimension j is not negative.
 * The approximate score of a chunk is scale * sum_j q[dim_j] * (bit_j ? 1 : -1).
 */
import { decodeQuantized, encodeQuantized, quantizeRows } from '../embed/quantize.ts'
import { shardFile, type ShardSet } from '../index-format.ts'
import { denseScore, topK, type DenseHit } from './dense.ts'

/** Bytes of codes a reader fetches up front: the code width shrinks as the docs grow. */
export const DEFAULT_CODE_BUDGET = 64 * 1024
/** Fewest code bits per chunk, however large the site. */
export const MIN_CODE_DIMS = 32
/** Chunks per exact-rows shard. */
export const DEFAULT_ROWS_PER_SHARD = 4

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

/** Codes for unit vectors: the `m` dimensions of largest variance over these vectors, one sign bit each. */
export function encodeVectorCodes(vectors: readonly Float32Array[], dims: number, m = codeDims(vectors.length, dims)): Uint8Array {
  const n = vectors.length
  const mean = new Float64Array(dims)
  for (const v of vectors) for (let d = 0; d < dims; d++) mean[d] = mean[d]! + v[d]! / n
  const variance = new Float64Array(dims)
  for (const v of vectors) for (let d = 0; d < dims; d++) variance[d] = variance[d]! + (v[d]! - mean[d]!) ** 2
  // Largest variance first; ties by dimension number, so the choice is the same everywhere.
  const picked = [...variance.keys()].sort((a, b) => variance[b]! - variance[a]! || a - b).slice(0, m)
  const bytesPerChunk = Math.ceil(m / 8)
  const out = new Uint8Array(HEADER + 2 * m + n * bytesPerChunk)
  const view = new DataView(out.buffer)
  // One scale for all chunks: the mean magnitude of a coded value, so approximate scores sit on the cosine's scale.
  let magnitude = 0
  for (const v of vectors) for (const d of picked) magnitude += Math.abs(v[d]!)
  view.setUint32(0, n, true)
  view.setUint16(4, m, true)
  view.setUint16(6, dims, true)
  view.setFloat32(8, n && m ? magnitude / (n * m) : 0, true)
  picked.forEach((d, j) => view.setUint16(HEADER + 2 * j, d, true))
  const base = HEADER + 2 * m
  vectors.forEach((v, i) => {
    picked.forEach((d, j) => {
      if (v[d]! >= 0) out[base + i * bytesPerChunk + (j >> 3)]! |= 1 << (j & 7)
    })
  })
  return out
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

/**
 * Approximate scores for one query. Per code byte, a table of the 256
 * possible partial sums turns each chunk's score into one lookup per byte.
 */
export function codeScorer(codes: VectorCodes, query: Float32Array): (ordinal: number) => number {
  if (query.length !== codes.dims) throw new Error(`query vector has ${query.length} dims, the index's vectors have ${codes.dims}`)
  const { bytesPerChunk, bits, picked, scale } = codes
  const tables = new Float64Array(bytesPerChunk * 256)
  let total = 0
  for (let j = 0; j < picked.length; j++) total += query[picked[j]!]!
  for (let b = 0; b < bytesPerChunk; b++) {
    for (let value = 1; value < 256; value++) {
      const low = value & -value
      const bit = 31 - Math.clz32(low)
      const j = b * 8 + bit
      tables[b * 256 + value] = tables[b * 256 + (value ^ low)]! + (j < picked.length ? query[picked[j]!]! : 0)
    }
  }
  // sum of q over set bits minus sum over clear bits = 2 * set - total
  return (ordinal) => {
    let set = 0
    const at = ordinal * bytesPerChunk
    for (let b = 0; b < bytesPerChunk; b++) set += tables[b * 256 + bits[at + b]!]!
    return scale * (2 * set - total)
  }
}

/** Exact rows for a set of chunks, as shard files of `per` consecutive chunks (int8 + scales). */
export function encodeVectorShards(vectors: readonly Float32Array[], dims: number, per = DEFAULT_ROWS_PER_SHARD): Uint8Array[] {
  const shards: Uint8Array[] = []
  for (let i = 0; i < vectors.length; i += per) shards.push(encodeQuantized(quantizeRows(vectors.slice(i, i + per), dims)))
  return shards
}

/** What the dense channel needs of the index's passage vectors. */
export interface PassageVectors {
  readonly count: number
  readonly dims: number
  /** Approximate scores for a query (from the codes; nothing fetched). */
  approximate(query: Float32Array): (ordinal: number) => number
  /** The k chunks with the best approximate scores, best first. */
  scan(query: Float32Array, k: number): DenseHit[]
  /** Exact scores of these chunks, fetching their rows' shards (each once). */
  exact(query: Float32Array, ordinals: readonly number[]): Promise<Map<number, number>>
  /** Exact top k over every chunk: fetches every shard (tools and benchmarks, not readers). */
  exactTopK(query: Float32Array, k: number): Promise<DenseHit[]>
}

/** The reader's side over the codes and a fetcher for the rows' shard files. */
export function openPassageVectors(codes: VectorCodes, shards: ShardSet, fetch: (name: string) => Promise<Uint8Array>): PassageVectors {
  const per = shards.per
  if (!per) throw new Error('the vectors shards do not say how many chunks each holds; rebuild the index with `docpilot index`')
  const loaded = new Map<number, Promise<ReturnType<typeof decodeQuantized>>>()
  const shard = (i: number) => {
    let p = loaded.get(i)
    if (!p) {
      const name = shardFile(shards, i)
      const rows = Math.min(per, codes.count - i * per)
      p = fetch(name).then((bytes) => decodeQuantized(bytes, rows, codes.dims, `index vectors file ${name}`))
      // A failed fetch is not remembered: the next question fetches again.
      p.catch(() => loaded.delete(i))
      loaded.set(i, p)
    }
    return p
  }
  const approximate = (query: Float32Array) => codeScorer(codes, query)
  async function exact(query: Float32Array, ordinals: readonly number[]): Promise<Map<number, number>> {
    const rows = await Promise.all(ordinals.map((o) => shard(Math.floor(o / per!))))
    return new Map(ordinals.map((o, i) => [o, denseScore(rows[i]!, query, o % per!)]))
  }
  return {
    count: codes.count,
    dims: codes.dims,
    approximate,
    scan: (query, k) => topK(codes.count, approximate(query), k),
    exact,
    async exactTopK(query, k) {
      const scores = await exact(query, Array.from({ length: codes.count }, (_, i) => i))
      return topK(codes.count, (i) => scores.get(i)!, k)
    },
  }
}
