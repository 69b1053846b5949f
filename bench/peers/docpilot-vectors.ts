/**
 * The vectors docpilot's index holds, for Orama's hybrid mode, and the query
 * vectors docpilot's own dense channel computes, so Orama hybrid and docpilot
 * hybrid search one vector space. Both go through docpilot's dense channel
 * (core/retrieval/hybrid.ts); an index without one yields null, and Orama
 * then runs BM25 only.
 */
import { rowBytes } from '../../core/index/vectors.ts'
import { openDenseChannel } from '../../core/retrieval/hybrid.ts'
import type { DocIndex } from '../../core/retrieval/search.ts'
import { fsPartLoader } from '../../indexer/fs-parts.ts'

function channel(dir: string, index: DocIndex) {
  return openDenseChannel(index.manifest, fsPartLoader(dir))
}

/** Chunk vectors in index order (dequantized from the index's int8 rows file). */
export async function loadIndexVectors(dir: string, index: DocIndex): Promise<Float32Array[] | null> {
  if (!channel(dir, index)) return null
  const dims = index.manifest.embedder.dims
  const file = await fsPartLoader(dir).bytes(index.manifest.parts.vectors!)
  const view = new DataView(file.buffer, file.byteOffset, file.byteLength)
  const size = rowBytes(dims)
  return Array.from({ length: index.size }, (_, i) => {
    const scale = view.getFloat32(i * size, true)
    return Float32Array.from(new Int8Array(file.buffer, file.byteOffset + i * size + 4, dims), (x) => x * scale)
  })
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
