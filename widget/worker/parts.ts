/**
 * The browser's part loader: index parts come from the index URL (core's
 * httpPartLoader) and are kept in IndexedDB. Part names carry their digest, so a cached part never goes
 * stale; what changes is the set of names. When the manifest names a new
 * corpus digest, the previous index's parts are dropped from the cache.
 *
 * Nothing here waits forever: every network read gives up after a silence
 * (fetchPart), a cache lookup that keeps the reader waiting is a miss
 * (store-wait.ts), and writes go on behind the reader's back.
 */
import { createStore, del, set, type UseStore } from 'idb-keyval'
import { MANIFEST_FILE } from '../../core/index/format.ts'
import { httpPartLoader } from '../../core/index/http-parts.ts'
import type { PartLoader } from '../../core/index/parts.ts'
import { lookup } from '../store-wait.ts'

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

export class BrowserPartLoader implements PartLoader {
  readonly stats: BrowserLoaderStats = { fetchedBytes: 0, cachedHits: 0 }
  private book: CacheBook | undefined

  private readonly http: Required<PartLoader>
  private readonly store: UseStore | undefined

  /** `deps`: the fetch, the cache store (undefined: no cache) and the silence limit of a read, for tests; the browser's own by default. */
  constructor(
    private readonly indexUrl: string,
    deps: { fetch?: typeof fetch; store?: UseStore | undefined; stallMs?: number } = {},
  ) {
    // no-store for ranges: IndexedDB keeps them instead of the HTTP cache.
    this.http = httpPartLoader(indexUrl, deps.fetch ?? fetch.bind(globalThis), { stallMs: deps.stallMs, rangeInit: { cache: 'no-store' } })
    this.store = 'store' in deps ? deps.store : openStore()
  }

  /** A cache write nobody waits for (a failed one only costs a later fetch). */
  private keep(key: string, value: unknown): void {
    if (this.store) set(key, value, this.store).catch(() => {})
  }

  /**
   * Records which index the cached parts belong to. A different digest drops
   * the old parts, except those the new index still uses (the embedding
   * model's rows usually survive a docs change).
   */
  async bind(digest: string, keep: (name: string) => boolean = () => false): Promise<void> {
    if (!this.store) return
    const key = `book:${this.indexUrl}`
    const previous = await lookup<CacheBook>(key, this.store)
    let kept: string[] = []
    if (previous && previous.digest !== digest) {
      // A range of a part is kept with its part (`name#start-end`).
      const keeps = (n: string) => keep(n.split('#')[0]!)
      kept = previous.names.filter(keeps)
      for (const n of previous.names.filter((n) => !keeps(n))) del(`part:${this.indexUrl}${n}`, this.store).catch(() => {})
    }
    this.book = previous?.digest === digest ? previous : { digest, names: kept }
    this.keep(key, this.book)
  }

  bytes(name: string): Promise<Uint8Array> {
    // The manifest is the one mutable file: always ask the network first.
    return this.cached(name, name !== MANIFEST_FILE, () => this.http.bytes(name))
  }

  /**
   * Bytes start..end of a part through an HTTP range request (static hosts
   * answer them with 206). A host that ignores the range would send the
   * whole file: its body is cancelled unread and the read fails, naming why.
   */
  range(name: string, start: number, end: number): Promise<Uint8Array> {
    return this.cached(`${name}#${start}-${end}`, true, () => this.http.range(name, start, end))
  }

  /** Reads `key` from IndexedDB when immutable and cached there, else fetches it (and caches it). */
  private async cached(key: string, immutable: boolean, fetchIt: () => Promise<Uint8Array>): Promise<Uint8Array> {
    const storeKey = `part:${this.indexUrl}${key}`
    if (immutable) {
      const hit = await lookup<Uint8Array>(storeKey, this.store)
      if (hit) {
        this.stats.cachedHits++
        return hit
      }
    }
    const data = await fetchIt()
    this.stats.fetchedBytes += data.byteLength
    if (immutable && this.book) {
      this.book.names.push(key)
      this.keep(storeKey, data)
      this.keep(`book:${this.indexUrl}`, this.book)
    }
    return data
  }
}
