/**
 * What is embedded for a chunk, and the digest the embedding cache knows its
 * vector by. Apart from the embedders so that collect.ts can take a page's
 * digests when it parses the page: the page cache keeps them with the page,
 * and a re-index hashes the chunks of the pages that changed only (astro,
 * 4,064 chunks: about 20 ms of CPU per run otherwise).
 */
import type { ChunkRecord } from '../core/index/format.ts'
import { textDigest } from './embed-cache.ts'

/** What is embedded for a chunk: its heading trail (page title first) and its text. */
export function chunkEmbedText(c: Pick<ChunkRecord, 'trail' | 'title' | 'text'>): string {
  const trail = c.trail.length ? c.trail : [c.title]
  return `${trail.join(' / ')}\n${c.text}`
}

/** The digest of what is embedded for `c` (its key in the embedding cache). */
export const embedDigest = (c: Pick<ChunkRecord, 'trail' | 'title' | 'text'>): string => textDigest(chunkEmbedText(c))
