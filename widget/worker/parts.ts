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
      kept = previous.names.filter(keep)
      await Promise.all(previous.names.filter((n) => !keep(n)).map((n) => del(`part:${this.indexUrl}${n}`, this.store).catch(() => {})))
    }
    this.book = previous?.digest === digest ? previous : { digest, names: kept }
    await set(key, this.book, this.store).catch(() => {})
  }

  async json<T>(name: string): Promise<T> {
    return JSON.parse(this.decoder.decode(await this.bytes(name))) as T
  }

  async bytes(name: string): Promise<Uint8Array> {
    // The manifest is the one mutable file: always ask the network first.
    const immutable = name !== 'manifest.json'
    const key = `part:${this.indexUrl}${name}`
    if (immutable && this.store) {
      const hit = await get<Uint8Array>(key, this.store).catch(() => undefined)
      if (hit) {
        this.stats.cachedHits++
        return hit
      }
    }
    const response = await this.fetchImpl(new URL(name, this.indexUrl).href)
    if (!response.ok) throw new Error(`docpilot: index part ${name} answered HTTP ${response.status}`)
    const data = new Uint8Array(await response.arrayBuffer())
    this.stats.fetchedBytes += data.byteLength
    if (immutable && this.store && this.book) {
      this.book.names.push(name)
      await Promise.all([
        set(key, data, this.store),
        set(`book:${this.indexUrl}`, this.book, this.store),
      ]).catch(() => {})
    }
    return data
  }
}
