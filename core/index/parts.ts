/**
 * How a reader gets the files of an index. The browser fetches them from the
 * index URL (with an IndexedDB cache); Node reads them from the index folder.
 * Search code only ever sees this interface.
 */
import { gunzipSync } from 'fflate'
import type { ChunkRecord } from './format.ts'
import { IndexFormatError } from './read-manifest.ts'

export interface PartLoader {
  /** A part's bytes exactly as stored (manifest.json is read from them by core/index/read-manifest.ts). */
  bytes(name: string): Promise<Uint8Array>
  /**
   * Bytes start..end (end exclusive) of a part: how fixed-size records are
   * read from a large packed part (model rows, exact vectors) without
   * fetching the whole file. A loader without it reads the whole part. A
   * part shorter than `end` gives what it has: callers check the length.
   */
  range?(name: string, start: number, end: number): Promise<Uint8Array>
}

/**
 * A loader that also hands out JSON parts already decoded: one that serves
 * many readers from one copy of the parts (sharedPartsLoader) decodes each
 * part once for all of them, so readers must not change what they get.
 */
export interface DecodingPartLoader extends PartLoader {
  json(name: string): Promise<unknown>
}

const decodes = (loader: PartLoader): loader is DecodingPartLoader => typeof (loader as Partial<DecodingPartLoader>).json === 'function'

/** Bytes start..end of a part, through the loader's range reads when it has them. */
export async function readRange(loader: PartLoader, name: string, start: number, end: number): Promise<Uint8Array> {
  if (loader.range) return loader.range(name, start, end)
  return (await loader.bytes(name)).subarray(start, end)
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
  if (decodes(loader)) return (await loader.json(name)) as T
  return decodeJsonPart(name, await loader.bytes(name))
}

function decodeJsonPart<T>(name: string, raw: Uint8Array, gunzip: (gz: Uint8Array) => Uint8Array = gunzipSync): T {
  try {
    const bytes = isGzip(raw) ? gunzip(raw) : raw
    return JSON.parse(decoder.decode(bytes)) as T
  } catch (err) {
    // A parser's own words ("Unexpected token 'g'") say neither which file is damaged nor what to do about it.
    throw new IndexFormatError(`index part ${name} is damaged (${err instanceof Error ? err.message : String(err)}). Rebuild the index with \`docpilot index\`.`)
  }
}

/**
 * One text shard: the full records of consecutive chunks (the manifest's
 * `texts.per` of them), fetched only when one of them is a result. Written
 * compactly: pages are listed once and chunks point at them; a trail that
 * starts with the page title stores 0 in its place; a chunk id is stored only
 * when it is not `path#anchor`.
 */
export interface TextShard {
  pages: Array<[path: string, url: string, title: string]>
  chunks: Array<[page: number, anchor: string, trail: Array<string | 0>, text: string, id?: string]>
}

export function encodeTextShard(chunks: readonly ChunkRecord[]): TextShard {
  const pages: TextShard['pages'] = []
  const pageOf = new Map<string, number>()
  const rows = chunks.map((c): TextShard['chunks'][number] => {
    const key = JSON.stringify([c.path, c.url, c.title])
    let page = pageOf.get(key)
    if (page === undefined) {
      page = pages.length
      pages.push([c.path, c.url, c.title])
      pageOf.set(key, page)
    }
    const trail = c.trail[0] === c.title ? [0 as const, ...c.trail.slice(1)] : c.trail
    return c.id === `${c.path}#${c.anchor}` ? [page, c.anchor, trail, c.text] : [page, c.anchor, trail, c.text, c.id]
  })
  return { pages, chunks: rows }
}

export function decodeTextShard(shard: TextShard): ChunkRecord[] {
  return shard.chunks.map(([page, anchor, trail, text, id]) => {
    const [path, url, title] = shard.pages[page]!
    return { id: id ?? `${path}#${anchor}`, path, url, anchor, title, trail: trail.map((t) => (t === 0 ? title : t)), text }
  })
}

/** A loader that records every part (or range of one) read through it, with its size as stored. */
export interface CountingLoader extends PartLoader {
  /** Part name (with `#start-end` for a range) -> bytes, in the order first read (a read repeated counts once). */
  readonly reads: Map<string, number>
  /** Part name (with `#start-end` for a range) -> how many times it was read, each repeat counted. */
  readonly times: Map<string, number>
  /**
   * Resolves once no read is in flight: a reader starts some reads without
   * waiting for them (texts it expects to show), and those are downloaded
   * all the same, so a count taken when its answer returns must wait for them.
   */
  settled(): Promise<void>
}

export function countingLoader(inner: PartLoader): CountingLoader {
  const reads = new Map<string, number>()
  const times = new Map<string, number>()
  const inFlight = new Set<Promise<unknown>>()
  const track = (key: string, read: Promise<Uint8Array>): Promise<Uint8Array> => {
    times.set(key, (times.get(key) ?? 0) + 1)
    const counted = read.then((b) => {
      if (!reads.has(key)) reads.set(key, b.byteLength)
      return b
    })
    inFlight.add(counted)
    counted.then(
      () => inFlight.delete(counted),
      () => inFlight.delete(counted),
    )
    return counted
  }
  return {
    reads,
    times,
    bytes: (name) => track(name, inner.bytes(name)),
    range: (name, start, end) => track(`${name}#${start}-${end}`, readRange(inner, name, start, end)),
    // The part is counted as read whole, as readJsonPart would read it, then handed over decoded.
    ...(decodes(inner)
      ? {
          json: async (name: string) => {
            await track(name, inner.bytes(name))
            return inner.json(name)
          },
        }
      : {}),
    async settled() {
      // A finished read may lead to another (a directory, then its rows): a task later, with every
      // promise chain run, nothing new may be in flight.
      do {
        await Promise.allSettled(inFlight)
        await new Promise((next) => setTimeout(next, 0))
      } while (inFlight.size)
    },
  }
}

/** Parts held in memory (an index just written), the others read through `fallback`. */
export function memoryPartLoader(parts: ReadonlyMap<string, Uint8Array>, fallback: PartLoader): PartLoader {
  return {
    bytes: async (name) => parts.get(name) ?? fallback.bytes(name),
    range: async (name, start, end) => parts.get(name)?.subarray(start, end) ?? readRange(fallback, name, start, end),
  }
}

/**
 * A loader that reads each part from `inner` once and serves every later
 * read, and every range, from those bytes, and decodes each JSON part once:
 * for many readers over one local index (the indexer's fetch-cost sample),
 * each behind its own counting loader, so what each reader asks for is
 * still counted as it asks. `gunzip`: a faster one than the browser's where
 * the runtime has it (node:zlib).
 */
export function sharedPartsLoader(inner: PartLoader, gunzip?: (gz: Uint8Array) => Uint8Array): Required<PartLoader> & DecodingPartLoader {
  const bytes = once((name) => inner.bytes(name))
  return {
    bytes,
    // Like a range read, a part shorter than `end` gives what it has.
    range: async (name, start, end) => (await bytes(name)).subarray(start, end),
    json: once(async (name) => decodeJsonPart(name, await bytes(name), gunzip)),
  }
}

/** `load` run once per name; a failure is not kept: the next caller tries again and sees the same error. */
function once<T>(load: (name: string) => Promise<T>): (name: string) => Promise<T> {
  const done = new Map<string, Promise<T>>()
  return (name) => {
    let p = done.get(name)
    if (!p) {
      done.set(name, (p = load(name)))
      p.catch(() => done.delete(name))
    }
    return p
  }
}
