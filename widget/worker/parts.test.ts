import type { UseStore } from 'idb-keyval'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { PART_ATTEMPTS, PART_STALL_MS } from '../../core/index/fetch-part.ts'
import { STORE_WAIT_MS } from '../store-wait.ts'
import { BrowserPartLoader } from './parts.ts'

const INDEX = 'https://docs.example/docpilot/'
const never = () => new Promise<never>(() => {})

/** A fetch serving `files` whole or by range, counting requests. */
function site(files: Record<string, Uint8Array<ArrayBuffer>>) {
  const requested: string[] = []
  const doFetch = (async (url: string, init: RequestInit = {}) => {
    const name = url.slice(INDEX.length)
    requested.push(name)
    const file = files[name]
    if (!file) return new Response('missing', { status: 404 })
    const range = new Headers(init.headers).get('range')?.match(/^bytes=(\d+)-(\d+)$/)
    if (!range) return new Response(file)
    return new Response(file.slice(Number(range[1]), Number(range[2]) + 1), { status: 206 })
  }) as typeof fetch
  return { doFetch, requested }
}

const PART = 'vectors.0123.i8'
const files = { [PART]: Uint8Array.of(0, 1, 2, 3, 4, 5), 'manifest.json': new TextEncoder().encode('{"format":1}') }

describe('BrowserPartLoader', () => {
  afterEach(() => vi.useRealTimers())

  it('reads a part, and a range of one, from the index URL', async () => {
    const { doFetch, requested } = site(files)
    const loader = new BrowserPartLoader(INDEX, { fetch: doFetch, store: undefined })
    await expect(loader.bytes('manifest.json')).resolves.toEqual(files['manifest.json'])
    await expect(loader.range(PART, 2, 4)).resolves.toEqual(Uint8Array.of(2, 3))
    expect(requested).toEqual(['manifest.json', PART])
  })

  it('gives up on a range whose answer never comes, naming the part, and reads it afresh next time', async () => {
    vi.useFakeTimers()
    const { doFetch, requested } = site(files)
    let silent = true
    const flaky = ((url: string, init?: RequestInit) => (silent ? never() : doFetch(url, init))) as typeof fetch
    const loader = new BrowserPartLoader(INDEX, { fetch: flaky, store: undefined })
    const read = loader.range(PART, 4, 6)
    const failed = expect(read).rejects.toThrow(`index part ${PART} (bytes 4-5) could not be read: no data for ${PART_STALL_MS} ms`)
    await vi.advanceTimersByTimeAsync(PART_ATTEMPTS * PART_STALL_MS)
    await failed
    silent = false
    await expect(loader.range(PART, 4, 6)).resolves.toEqual(Uint8Array.of(4, 5))
    expect(requested).toEqual([PART])
  })

  it('names a host that answers a range with the whole file', async () => {
    const whole = (async () => new Response(files[PART])) as unknown as typeof fetch
    const loader = new BrowserPartLoader(INDEX, { fetch: whole, store: undefined })
    await expect(loader.range(PART, 0, 2)).rejects.toThrow(/the host sent the whole file for a byte range request/)
  })

  it('fetches past a cache that never answers (an IndexedDB open that hangs)', async () => {
    vi.useFakeTimers()
    const hung: UseStore = () => never()
    const { doFetch } = site(files)
    const loader = new BrowserPartLoader(INDEX, { fetch: doFetch, store: hung })
    const bound = loader.bind('digest-1')
    await vi.advanceTimersByTimeAsync(STORE_WAIT_MS)
    await bound
    const read = loader.range(PART, 0, 3)
    await vi.advanceTimersByTimeAsync(STORE_WAIT_MS)
    await expect(read).resolves.toEqual(Uint8Array.of(0, 1, 2))
    expect(loader.stats).toEqual({ fetchedBytes: 3, cachedHits: 0 })
  })

  it('hands a fetched part over without waiting for the cache to store it', async () => {
    // Lookups answer "not cached" at once; writes never finish.
    const slowWrites: UseStore = (mode) => (mode === 'readonly' ? Promise.resolve(undefined) : never()) as never
    const { doFetch } = site(files)
    const loader = new BrowserPartLoader(INDEX, { fetch: doFetch, store: slowWrites })
    await loader.bind('digest-1')
    await expect(loader.bytes(PART)).resolves.toEqual(files[PART])
  })

  it('answers a repeated read from the cache', async () => {
    const kept = new Map<IDBValidKey, unknown>()
    // An in-memory stand-in for idb-keyval's store: its callback gets an object store whose requests and transactions succeed.
    const memory: UseStore = (_mode, callback) => {
      const transaction = succeeding(undefined)
      return Promise.resolve(
        callback({
          get: (key: IDBValidKey) => succeeding(kept.get(key)),
          put: (value: unknown, key: IDBValidKey) => (kept.set(key, value), succeeding(key)),
          transaction,
        } as unknown as IDBObjectStore),
      )
    }
    const { doFetch, requested } = site(files)
    const loader = new BrowserPartLoader(INDEX, { fetch: doFetch, store: memory })
    await loader.bind('digest-1')
    await loader.range(PART, 1, 2)
    await vi.waitFor(() => expect(kept.has(`part:${INDEX}${PART}#1-2`)).toBe(true))
    await expect(loader.range(PART, 1, 2)).resolves.toEqual(Uint8Array.of(1))
    expect(requested).toEqual([PART])
    expect(loader.stats.cachedHits).toBe(1)
  })
})

/** An IDBRequest- or IDBTransaction-like object that succeeds on the next tick, as idb-keyval awaits them. */
function succeeding(result: unknown): IDBRequest {
  const r = { result } as { result: unknown; onsuccess?: () => void; oncomplete?: () => void }
  queueMicrotask(() => (r.onsuccess ?? r.oncomplete)?.())
  return r as unknown as IDBRequest
}
