/**
 * One index part, or a byte range of one, read over HTTP: the read every
 * loader that takes an index from a URL shares (the widget's worker, the MCP
 * server on Workers, the bench page).
 *
 * A read always settles. A fetch has no time limit of its own, and every
 * cache that shares a read (postings and text shards, model rows, exact
 * vector rows, the vector codes) would hand one response that never comes
 * to every later question: the reader would wait forever. So a response
 * that goes silent (no header or body byte for `stallMs`) is aborted; the
 * read is tried once more, as is one that failed on the network, and then
 * fails naming the part. The caches forget a failed read, so the next
 * question reads again. The limit is on silence, not on duration: a large
 * part on a slow network goes on as long as bytes keep coming.
 *
 * A host that ignores a range (200 and the whole file) is named and its body
 * cancelled unread: it would send the whole rows file for every few rows.
 */
import { untilAborted } from '../abort.ts'
import { PartMissingError } from './parts.ts'

/** Silence after which a read is given up: far beyond a slow phone's round trip, well short of a reader's patience. */
export const PART_STALL_MS = 10_000

/** Tries per read: a second one after silence or a network error (an HTTP refusal is final). */
export const PART_ATTEMPTS = 2

export interface PartRead {
  /** Bytes start..end (end exclusive), through an HTTP range request answered 206. */
  range?: { start: number; end: number }
  /** Passed to fetch (the browser's `cache: 'no-store'` for ranges, say); headers are merged. */
  init?: RequestInit
  /** Give up an attempt after this long without a byte (default PART_STALL_MS). */
  stallMs?: number
}

/** The host answered, and not with the part: asking again would get the same answer. */
class Refused extends Error {}

/** Reads `url`; fails with a PartMissingError naming `part` (default the URL) when it cannot. */
export async function fetchPart(doFetch: typeof fetch, url: string, read: PartRead = {}, part: string = url): Promise<Uint8Array> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await attemptRead(doFetch, url, read)
    } catch (err) {
      if (err instanceof Refused || attempt === PART_ATTEMPTS) throw new PartMissingError(part, err)
    }
  }
}

async function attemptRead(doFetch: typeof fetch, url: string, read: PartRead): Promise<Uint8Array> {
  const stallMs = read.stallMs ?? PART_STALL_MS
  const ctrl = new AbortController()
  let timer: ReturnType<typeof setTimeout> | undefined
  const heard = () => {
    clearTimeout(timer)
    timer = setTimeout(() => ctrl.abort(new Error(`no data for ${stallMs} ms; the read was given up`)), stallMs)
  }
  heard()
  try {
    // untilAborted: the attempt ends when the limit fires even if this fetch ignores its signal.
    return await untilAborted(readResponse(doFetch, url, read, ctrl.signal, heard), ctrl.signal)
  } finally {
    clearTimeout(timer)
  }
}

async function readResponse(doFetch: typeof fetch, url: string, read: PartRead, signal: AbortSignal, heard: () => void): Promise<Uint8Array> {
  const { range } = read
  const headers = new Headers(read.init?.headers)
  if (range) headers.set('range', `bytes=${range.start}-${range.end - 1}`)
  const res = await doFetch(url, { ...read.init, headers, signal })
  if (signal.aborted || (range ? res.status !== 206 : !res.ok)) {
    await res.body?.cancel().catch(() => {})
    if (signal.aborted) throw signal.reason
    throw new Refused(
      range && res.status === 200
        ? 'the host sent the whole file for a byte range request; serve the index from a host that answers HTTP range requests (static hosts do)'
        : `HTTP ${res.status}`,
    )
  }
  heard()
  if (!res.body) return new Uint8Array(await res.arrayBuffer())
  const reader = res.body.getReader()
  // Given up: stop the download too, when this fetch does not honour its signal.
  signal.addEventListener('abort', () => reader.cancel().catch(() => {}), { once: true })
  const chunks: BlobPart[] = []
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    heard()
    chunks.push(value as Uint8Array<ArrayBuffer>)
  }
  // One exact buffer: callers read it through DataViews, and the widget stores it in IndexedDB.
  return new Uint8Array(await new Blob(chunks).arrayBuffer())
}
