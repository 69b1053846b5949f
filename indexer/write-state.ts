/**
 * What a write of the index leaves for the next one, kept in the cache
 * between runs, so that a re-index after a few pages changed patches the
 * corpus parts (lexical head, postings, texts) instead of making them all
 * again (corpus-parts.ts): which page each run of chunks came from (the page
 * cache's id of it: same id, same chunks), the chunk ids, each term's row
 * length (what sizes the postings shards) and each part's content digest and
 * size. The previous index's own files are read back only where a change
 * lands, each checked against the digest kept here, so a state that does not
 * describe the index at `out` (a damaged cache, an index replaced by hand)
 * only costs a full write.
 */
import { readFile } from 'node:fs/promises'
import { cacheFile, replaceFile } from './cache-file.ts'

/** Bumped when what the state holds, or how any corpus part is made, changes. */
const FORMAT = 2

/** A stored part: its content digest (sha256 of the plain bytes) and plain size. */
export type PartDigest = [digest: string, raw: number]

export interface WriteState {
  /** The corpus digest of the index this describes (its manifest's corpus.digest). */
  corpus: string
  /** The runs of chunks by page, in order: the page's path, its id (PageCache.pageId; null: none) and how many chunks it gave. */
  pages: Array<[path: string, id: string | null, chunks: number]>
  /**
   * The ids that are not the chunk's path#anchor, by chunk number (ids made unique across pages depend on the
   * pages before); every other chunk's id is its path#anchor. (Most are: listing only the others keeps the
   * state a tenth of its size, which every re-index reads and writes.)
   */
  ids: Array<[doc: number, id: string]>
  /** The lexical head part: its name, digest and plain size. */
  head: [name: string, digest: string, raw: number]
  /** Each term's postings row length as JSON, in the head's order. */
  rowBytes: number[]
  postings: PartDigest[]
  /** The first term of each postings shard. */
  firsts: string[]
  texts: PartDigest[]
}

/**
 * The state file of the index at `out`, for these settings (anything that
 * changes how a corpus part is made from the same chunks: the lexical
 * settings, shard sizes, the docpilot version).
 */
export function writeStateFile(cacheDir: string, out: string, settings: unknown, version: string): string {
  return cacheFile(cacheDir, 'write', JSON.stringify([FORMAT, version, out, settings]), '.json')
}

export async function readWriteState(file: string): Promise<WriteState | undefined> {
  const raw = await readFile(file, 'utf8').catch(() => null)
  if (!raw) return undefined
  try {
    const state = JSON.parse(raw) as Partial<WriteState>
    const complete =
      typeof state.corpus === 'string' &&
      Array.isArray(state.pages) &&
      Array.isArray(state.ids) &&
      Array.isArray(state.head) &&
      Array.isArray(state.rowBytes) &&
      Array.isArray(state.postings) &&
      Array.isArray(state.firsts) &&
      Array.isArray(state.texts)
    return complete ? (state as WriteState) : undefined
  } catch {
    // A damaged state only means a full write.
    return undefined
  }
}

/** Atomically: a crash leaves the previous state, which the next run checks against the index it finds. */
export async function saveWriteState(file: string, state: WriteState): Promise<void> {
  await replaceFile(file, JSON.stringify(state))
}
