/**
 * The passage vectors as a reader fetches them, in two layers:
 *
 * - codes, fetched whole with the first question: one bit per dimension (its
 *   sign) for the dimensions that vary most across the docs, as many as a
 *   fixed byte budget allows (all of them for a small site). Scanning every
 *   chunk's code gives the dense channel's candidates and approximate scores;
 * - exact rows (int8, one scale per row, as the embedder made them), packed in
 *   one file in chunk order, each read alone (an HTTP range request) for the
 *   few candidates that are re-scored: the best fused candidates and the
 *   gate's passages.
 *
 * The files' layout, and their encoders and decoders: core/index/vectors.ts.
 */
import { rowBytes, type VectorCodes } from '../index/vectors.ts'
import { denseScore, topK, type DenseHit } from './dense.ts'
import { readRange, type PartLoader } from '../index/parts.ts'

/**
 * Every chunk's approximate score for one query, in chunk order. Per code
 * byte, a table of the 256 possible partial sums turns each chunk's score
 * into one lookup per byte; one pass over the codes scores them all (the
 * scan needs every score, fusion a few of the same).
 */
export function codeScores(codes: VectorCodes, query: Float32Array): Float64Array {
  if (query.length !== codes.dims) throw new Error(`query vector has ${query.length} dims, the index's vectors have ${codes.dims}`)
  const { bytesPerChunk, bits, picked, scale, count } = codes
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
  const scores = new Float64Array(count)
  for (let ordinal = 0, at = 0; ordinal < count; ordinal++) {
    let set = 0
    for (let b = 0; b < bytesPerChunk; b++, at++) set += tables[(b << 8) | bits[at]!]!
    scores[ordinal] = scale * (2 * set - total)
  }
  return scores
}

/**
 * Exact rows read one by one from the rows file (each once; a failed read is
 * forgotten, so the next question reads again). Needs only the manifest: a
 * question's candidates can be read before the codes arrive.
 */
export interface ExactRows {
  /** Starts reading these chunks' rows, without waiting. */
  prefetch(ordinals: readonly number[]): void
  /** Exact scores of these chunks for a query. */
  exact(query: Float32Array, ordinals: readonly number[]): Promise<Map<number, number>>
}

export function openExactRows(rowsPart: string, dims: number, loader: PartLoader): ExactRows {
  const size = rowBytes(dims)
  const rows = new Map<number, Promise<{ scale: number; values: Int8Array }>>()
  const row = (o: number) => {
    let p = rows.get(o)
    if (!p) {
      p = readRange(loader, rowsPart, o * size, (o + 1) * size).then((b) => {
        if (b.length !== size) throw new Error(`index vectors file ${rowsPart}: row ${o} has ${b.length} bytes, expected ${size}; rebuild the index with \`docpilot index\``)
        return { scale: new DataView(b.buffer, b.byteOffset, 4).getFloat32(0, true), values: new Int8Array(b.buffer, b.byteOffset + 4, dims) }
      })
      p.catch(() => rows.delete(o))
      rows.set(o, p)
    }
    return p
  }
  return {
    prefetch: (ordinals) => ordinals.forEach((o) => row(o).catch(() => {})),
    async exact(query, ordinals) {
      const got = await Promise.all(ordinals.map(row))
      return new Map(ordinals.map((o, i) => [o, denseScore({ count: 1, dims, scales: Float32Array.of(got[i]!.scale), rows: got[i]!.values }, query, 0)]))
    },
  }
}

/** What the dense channel needs of the index's passage vectors. */
export interface PassageVectors extends ExactRows {
  readonly count: number
  readonly dims: number
  /** Approximate scores for a query (from the codes; nothing fetched). */
  approximate(query: Float32Array): (ordinal: number) => number
  /** The k chunks with the best approximate scores, best first. */
  scan(query: Float32Array, k: number): DenseHit[]
  /** Exact top k over every chunk: reads every row (tools and benchmarks, not readers). */
  exactTopK(query: Float32Array, k: number): Promise<DenseHit[]>
}

/** The codes, with the exact rows beside them. */
export function openPassageVectors(codes: VectorCodes, rows: ExactRows): PassageVectors {
  // A question's scan and its fusion score the same vector: it is scored once.
  let last: { query: Float32Array; scores: Float64Array } | undefined
  const approximate = (query: Float32Array) => {
    const { scores } = last?.query === query ? last : (last = { query, scores: codeScores(codes, query) })
    return (ordinal: number) => scores[ordinal]!
  }
  return {
    count: codes.count,
    dims: codes.dims,
    approximate,
    scan: (query, k) => topK(codes.count, approximate(query), k),
    prefetch: rows.prefetch,
    exact: rows.exact,
    async exactTopK(query, k) {
      const scores = await rows.exact(query, Array.from({ length: codes.count }, (_, i) => i))
      return topK(codes.count, (i) => scores.get(i)!, k)
    },
  }
}
