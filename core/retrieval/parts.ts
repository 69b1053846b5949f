/**
 * How a reader gets the files of an index. The browser fetches them from the
 * index URL (with an IndexedDB cache); Node reads them from the index folder.
 * Search code only ever sees this interface.
 */
import { gunzipSync } from 'fflate'
import type { ChunkRecord } from '../index-format.ts'

export interface PartLoader {
  /** A part parsed as JSON (used for the uncompressed manifest.json). */
  json<T>(name: string): Promise<T>
  /** A part's bytes exactly as stored. */
  bytes(name: string): Promise<Uint8Array>
}

/** A part file that is missing or unreadable; names the part so the message can say which. */
export class PartMissingError extends Error {
  constructor(
    readonly part: string,
    cause?: unknown,
  ) {
    super(`index part ${part} could not be read${cause instanceof Error ? `: ${cause.message}` : ''}`)
    this.name = 'PartMissingError'
  }
}

const decoder = new TextDecoder()

function isGzip(bytes: Uint8Array): boolean {
  return bytes.length > 2 && bytes[0] === 0x1f && bytes[1] === 0x8b
}

/**
 * Reads a (normally gzip-compressed) JSON part. A server that already
 * decoded the gzip for us (Content-Encoding: gzip) hands over plain JSON,
 * so the gzip magic bytes decide, not the file name.
 */
export async function readJsonPart<T>(loader: PartLoader, name: string): Promise<T> {
  const raw = await loader.bytes(name)
  const bytes = isGzip(raw) ? gunzipSync(raw) : raw
  return JSON.parse(decoder.decode(bytes)) as T
}

/**
 * The small metadata part: everything a result row shows except the chunk
 * text, fetched once when the index opens. It is written compactly because
 * every reader downloads it before the first result: pages are listed once
 * and chunks point at them; a trail that starts with the page title stores
 * 0 in its place; a chunk id is stored only when it is not `path#anchor`.
 */
export interface MetaPart {
  pages: Array<[path: string, url: string, title: string]>
  chunks: Array<[page: number, anchor: string, trail: Array<string | 0>, id?: string]>
  /** Chunk texts are stored in shards of this many consecutive chunks (parts.texts[i]). */
  shardSize: number
}

/** One text shard: the texts of chunks `i * shardSize ...` in index order. */
export type TextShard = string[]

export type ChunkMeta = Omit<ChunkRecord, 'text'>

export function encodeMeta(chunks: readonly ChunkMeta[], shardSize: number): MetaPart {
  const pages: MetaPart['pages'] = []
  const pageOf = new Map<string, number>()
  const rows = chunks.map((c): MetaPart['chunks'][number] => {
    const key = JSON.stringify([c.path, c.url, c.title])
    let page = pageOf.get(key)
    if (page === undefined) {
      page = pages.length
      pages.push([c.path, c.url, c.title])
      pageOf.set(key, page)
    }
    const trail = c.trail[0] === c.title ? [0 as const, ...c.trail.slice(1)] : c.trail
    return c.id === `${c.path}#${c.anchor}` ? [page, c.anchor, trail] : [page, c.anchor, trail, c.id]
  })
  return { pages, chunks: rows, shardSize }
}

export function decodeMeta(meta: MetaPart, ordinal: number): ChunkMeta {
  const [page, anchor, trail, id] = meta.chunks[ordinal]!
  const [path, url, title] = meta.pages[page]!
  return { id: id ?? `${path}#${anchor}`, path, url, anchor, title, trail: trail.map((t) => (t === 0 ? title : t)) }
}
