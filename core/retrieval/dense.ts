/**
 * The dense channel: exact top-k over an index's int8 chunk vectors. The query
 * vector is float32 and unit length; each stored row carries its own scale, so
 * a score is scale * (row . query), which approximates the cosine.
 */
import { decodeQuantized, type QuantizedRows } from '../index/quantized.ts'

export interface DenseHit {
  /** Row number = the chunk's position in the index's chunk order. */
  index: number
  score: number
}

export type ChunkVectors = QuantizedRows

export function decodeChunkVectors(bytes: Uint8Array, count: number, dims: number): ChunkVectors {
  return decodeQuantized(bytes, count, dims, 'index vectors file')
}

export function denseScore(vectors: ChunkVectors, query: Float32Array, i: number): number {
  const { dims, rows } = vectors
  const base = i * dims
  let dot = 0
  for (let d = 0; d < dims; d++) dot += rows[base + d]! * query[d]!
  return dot * vectors.scales[i]!
}

/** Top k rows by score, best first; ties keep row order so every runtime ranks identically. */
export function denseTopK(vectors: ChunkVectors, query: Float32Array, k: number): DenseHit[] {
  if (query.length !== vectors.dims) {
    throw new Error(`query vector has ${query.length} dims, the index's vectors have ${vectors.dims}`)
  }
  return topK(vectors.count, (i) => denseScore(vectors, query, i), k)
}

/** The k best of rows 0..count-1 by `scoreOf`, best first; ties keep row order. */
export function topK(count: number, scoreOf: (i: number) => number, k: number): DenseHit[] {
  const top: DenseHit[] = []
  for (let i = 0; i < count; i++) {
    const score = scoreOf(i)
    if (top.length === k && score <= top[k - 1]!.score) continue
    let at = top.length
    while (at > 0 && top[at - 1]!.score < score) at--
    top.splice(at, 0, { index: i, score })
    if (top.length > k) top.pop()
  }
  return top
}
