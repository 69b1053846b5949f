/**
 * The vectors docpilot's index holds, for Orama's hybrid mode, and the query
 * vectors docpilot's own embedder gives, so Orama hybrid and docpilot hybrid
 * search the same vector space. Read through docpilot's own dense-channel
 * code; an index without a dense channel yields null (Orama then runs BM25 only).
 */
import type { DocIndex } from '../../core/retrieval/search.ts'

export async function loadIndexVectors(_dir: string, index: DocIndex): Promise<Float32Array[] | null> {
  if (index.manifest.embedder.kind === 'none' || !index.manifest.parts.vectors) return null
  // The dense channel (issue 5) has not landed a vector reader yet.
  return null
}

/** Query vectors from the index's embedder, same order as the questions; null without a dense channel. */
export async function embedQueries(_dir: string, index: DocIndex, _queries: string[]): Promise<Float32Array[] | null> {
  if (index.manifest.embedder.kind === 'none') return null
  return null
}
