/**
 * The vectors docpilot's index holds, for Orama's hybrid mode, and the query
 * vectors docpilot's own dense channel computes, so Orama hybrid and docpilot
 * hybrid search one vector space. Both go through docpilot's dense channel
 * (core/retrieval/hybrid.ts); an index without one yields null, and Orama
 * then runs BM25 only.
 */
import { decodeQuantized, dequantizeRow } from '../../core/embed/quantize.ts'
import { shardFile, type ShardSet } from '../../core/index-format.ts'
import { openDenseChannel } from '../../core/retrieval/hybrid.ts'
import type { DocIndex } from '../../core/retrieval/search.ts'
import { fsPartLoader } from '../../indexer/fs-parts.ts'

function channel(dir: string, index: DocIndex) {
  return openDenseChannel(index.manifest, fsPartLoader(dir))
}

/** Chunk vectors in index order (dequantized from the index's int8 rows, every shard read). */
export async function loadIndexVectors(dir: string, index: DocIndex): Promise<Float32Array[] | null> {
  if (!channel(dir, index)) return null
  const set = index.manifest.parts.vectors as ShardSet
  const loader = fsPartLoader(dir)
  const out: Float32Array[] = []
  for (let s = 0; s < set.count; s++) {
    const rows = Math.min(set.per!, index.size - s * set.per!)
    const q = decodeQuantized(await loader.bytes(shardFile(set, s)), rows, index.manifest.embedder.dims, shardFile(set, s))
    for (let i = 0; i < rows; i++) out.push(dequantizeRow(q, i))
  }
  return out
}

/** Query vectors from the index's embedder, same order as the questions. */
export async function embedQueries(dir: string, index: DocIndex, queries: string[]): Promise<Float32Array[] | null> {
  const dense = channel(dir, index)
  if (!dense) return null
  const out: Float32Array[] = []
  for (const q of queries) {
    const r = await dense.queryVector(q)
    if ('reason' in r) throw new Error(`bench: docpilot's embedder failed on a question: ${r.reason}`)
    out.push(r.vector)
  }
  return out
}
