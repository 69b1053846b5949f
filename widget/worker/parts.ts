/**
 * The browser's part loader: index parts come from the index URL and are kept
 * in IndexedDB. Part names carry their digest, so a cached part never goes
 * stale; what changes is the set of names. When the manifest names a new
 * corpus digest, the previous index's parts are dropped from the cache.
 */
import { createStore, del, get, set, type UseStore } from 'idb-keyval'

export interface PartLoaderLike {
  json<T>(name: string): Promise<T>
  bytes(name: string): Promise<Uint8Array>
  range(name: string, start: number, end: number): Promise<Uint8Array>
}

interface CacheBook {
  digest: string
  names: string[]
}

export interface BrowserLoaderStats {
  /** Bytes that came over the network (not from the IndexedDB cache). */
  fetchedBytes: number
  cachedHits: number
}

function openStore(): UseStore | undefined {
  try {
    return typeof indexedDB === 'undefined' ? undefined : createStore('docpilot-index', 'parts')
  } catch {
    return undefined
  }
}

export class BrowserPartLoader implements PartLoaderLike {
  readonly stats: BrowserLoaderStats = { fetchedBytes: 0, cachedHits: 0 }
  private readonly store = openStore()
  private readonly decoder = new TextDecoder()
  private book: CacheBook | undefined

  constructor(
    private readonly indexUrl: string,
    private readonly fetchImpl: typeof fetch = fetch.bind(globalThis),
  ) {}

  /**
   * Records which index the cached parts belong to. A different digest drops
   * the old parts, except those the new index still uses (the embedding
   * model's rows usually survive a docs change).
   */
  async bind(digest: string, keep: (name: string) => boolean = () => false): Promise<void> {
    if (!this.store) return
    const key = `book:${this.indexUrl}`
    const previous = await get<CacheBook>(key, this.store).catch(() => undefined)
    let kept: string[] = []
    if (previous && previous.digest !== digest) {
      // A range of a part is kept with its part (`name#start-end`).
      const keeps = (n: string) => keep(n.split('#')[0]!)
      kept = previous.names.filter(keeps)
      await Promise.all(previous.names.filter((n) => !keeps(n)).map((n) => del(`part:${this.indexUrl}${n}`, this.store).catch(() => {})))
    }
    this.book = previous?.digest === digest ? previous : { digest, names: kept }
    await set(key, this.book, this.store).catch(() => {})
  }

  async json<T>(name: string): Promise<T> {
    return JSON.parse(this.decoder.decode(await this.bytes(name))) as T
  }

  async bytes(name: string): Promise<Uint8Array> {
    // The manifest is the one mutable file: always ask the network first.
    return this.cached(name, name !== 'manifest.json', async () => {
      const response = await this.fetchImpl(new URL(name, this.indexUrl).href)
      if (!response.ok) throw new Error(`docpilot: index part ${name} answered HTTP ${response.status}`)
      return new Uint8Array(await response.arrayBuffer())
    })
  }

  /**
   * Bytes start..end of a part through an HTTP range request (static hosts
   * answer them with 206). A host that ignores the range would send the
   * whole file: its body is cancelled unread and the read fails, naming why.
   */
  async range(name: string, start: number, end: number): Promise<Uint8Array> {
    return this.cached(`${name}#${start}-${end}`, true, async () => {
      // no-store: the browser's HTTP cache would queue range requests to one file behind each other; IndexedDB keeps them instead.
      const response = await this.fetchImpl(new URL(name, this.indexUrl).href, { headers: { range: `bytes=${start}-${end - 1}` }, cache: 'no-store' })
      if (response.status === 200) {
        await response.body?.cancel().catch(() => {})
        throw new Error(`docpilot: the server sent all of ${name} for a byte range request; serve the index from a host that answers HTTP range requests (static hosts do)`)
      }
      if (response.status !== 206) throw new Error(`docpilot: index part ${name} (bytes ${start}-${end - 1}) answered HTTP ${response.status}`)
      return new Uint8Array(await response.arrayBuffer())
    })
  }

  /** Reads `key` from IndexedDB when immutable and cached there, else fetches it (and caches it). */
  private async cached(key: string, immutable: boolean, fetchIt: () => Promise<Uint8Array>): Promise<Uint8Array> {
    const storeKey = `part:${this.indexUrl}${key}`
    if (immutable && this.store) {
      const hit = await get<Uint8Array>(storeKey, this.store).catch(() => undefined)
      if (hit) {
        this.stats.cachedHits++
        return hit
      }
    }
    const data = await fetchIt()
    this.stats.fetchedBytes += data.byteLength
    if (immutable && this.store && this.book) {
      this.book.names.push(key)
      await Promise.all([set(storeKey, data, this.store), set(`book:${this.indexUrl}`, this.book, this.store)]).catch(() => {})
    }
    return data
  }
}
