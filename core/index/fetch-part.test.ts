import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { fetchPart, PART_ATTEMPTS, PART_STALL_MS } from './fetch-part.ts'
import { PartMissingError } from './parts.ts'

const URL_ = 'https://docs.example/docpilot/vectors.i8'

/** A body that sends `chunks`, one every `everyMs`, and then either ends or goes silent for good. */
function body(chunks: number[][], everyMs: number, then: 'end' | 'silence' = 'end') {
  let cancelled = false
  const stream = new ReadableStream<Uint8Array>({
    async start(ctrl) {
      for (const c of chunks) {
        await new Promise((r) => setTimeout(r, everyMs))
        ctrl.enqueue(Uint8Array.from(c))
      }
      if (then === 'end') ctrl.close()
    },
    cancel() {
      cancelled = true
    },
  })
  return { stream, cancelled: () => cancelled }
}

/** A fetch that records what it was asked and answers with `respond`. */
function fakeFetch(respond: (init: RequestInit) => Promise<Response>) {
  const calls: RequestInit[] = []
  const doFetch = ((_url: string, init: RequestInit = {}) => {
    calls.push(init)
    return respond(init)
  }) as typeof fetch
  return { doFetch, calls }
}

const never = () => new Promise<never>(() => {})

describe('fetchPart', () => {
  beforeEach(() => vi.useFakeTimers())
  afterEach(() => vi.useRealTimers())

  it('reads a whole part, and a range through a 206 answer to a Range header', async () => {
    const whole = fakeFetch(async () => new Response(body([[1, 2], [3]], 5).stream))
    const read = fetchPart(whole.doFetch, URL_)
    await vi.advanceTimersByTimeAsync(20)
    expect([...(await read)]).toEqual([1, 2, 3])

    const ranged = fakeFetch(async () => new Response(Uint8Array.of(7, 8), { status: 206 }))
    await expect(fetchPart(ranged.doFetch, URL_, { range: { start: 10, end: 12 }, init: { cache: 'no-store' } })).resolves.toEqual(Uint8Array.of(7, 8))
    expect(new Headers(ranged.calls[0]!.headers).get('range')).toBe('bytes=10-11')
    expect(ranged.calls[0]!.cache).toBe('no-store')
  })

  it('gives up on a response whose headers never come, aborting each fetch, after one more try', async () => {
    const { doFetch, calls } = fakeFetch(() => never())
    const read = fetchPart(doFetch, URL_, {}, 'vectors.i8')
    const failed = expect(read).rejects.toThrow(/index part vectors\.i8 could not be read: no data for 10000 ms/)
    await vi.advanceTimersByTimeAsync(PART_ATTEMPTS * PART_STALL_MS)
    await failed
    await expect(read).rejects.toBeInstanceOf(PartMissingError)
    expect(calls).toHaveLength(PART_ATTEMPTS)
    expect(calls.every((c) => c.signal!.aborted)).toBe(true)
  })

  it('reads again after a silence, and takes the second answer', async () => {
    let n = 0
    const { doFetch, calls } = fakeFetch(() => (n++ === 0 ? never() : Promise.resolve(new Response(Uint8Array.of(9), { status: 206 }))))
    const read = fetchPart(doFetch, URL_, { range: { start: 3, end: 4 } })
    await vi.advanceTimersByTimeAsync(PART_STALL_MS)
    await expect(read).resolves.toEqual(Uint8Array.of(9))
    expect(calls).toHaveLength(2)
  })

  it('gives up on a body that stops arriving, and cancels it', async () => {
    const bodies: ReturnType<typeof body>[] = []
    const { doFetch } = fakeFetch(async () => {
      bodies.push(body([[1], [2]], 10, 'silence'))
      return new Response(bodies.at(-1)!.stream, { status: 206 })
    })
    const read = fetchPart(doFetch, URL_, { range: { start: 0, end: 4 }, stallMs: 1000 })
    const failed = expect(read).rejects.toThrow(/no data for 1000 ms/)
    await vi.advanceTimersByTimeAsync(PART_ATTEMPTS * 1100)
    await failed
    expect(bodies.map((b) => b.cancelled())).toEqual(Array(PART_ATTEMPTS).fill(true))
  })

  it('keeps reading a slow body for as long as bytes keep coming', async () => {
    // Ten chunks, 400 ms apart: four seconds in all, against a one-second limit on silence.
    const chunks = Array.from({ length: 10 }, (_, i) => [i])
    const { doFetch } = fakeFetch(async () => new Response(body(chunks, 400).stream))
    const read = fetchPart(doFetch, URL_, { stallMs: 1000 })
    await vi.advanceTimersByTimeAsync(4500)
    expect([...(await read)]).toEqual(chunks.flat())
  })

  it('settles even when the fetch ignores its signal', async () => {
    const { doFetch } = fakeFetch(() => never())
    const read = fetchPart(doFetch, URL_, { stallMs: 50 })
    const failed = expect(read).rejects.toThrow(/no data for 50 ms/)
    await vi.advanceTimersByTimeAsync(PART_ATTEMPTS * 50)
    await failed
  })

  it('names a host that sends the whole file for a range, without reading it or asking again', async () => {
    const b = body([[0, 0, 0]], 0, 'silence')
    const { doFetch, calls } = fakeFetch(async () => new Response(b.stream, { status: 200 }))
    await expect(fetchPart(doFetch, URL_, { range: { start: 0, end: 1 } }, 'vectors.i8')).rejects.toThrow(
      /vectors\.i8 could not be read: the host sent the whole file for a byte range request/,
    )
    expect(b.cancelled()).toBe(true)
    expect(calls).toHaveLength(1)
  })

  it('fails on an HTTP error at once, and on a network error after one more try, naming the part', async () => {
    const missing = fakeFetch(async () => new Response('no', { status: 404 }))
    await expect(fetchPart(missing.doFetch, URL_, {}, 'texts/3.json.gz')).rejects.toThrow(/texts\/3\.json\.gz could not be read: HTTP 404/)
    expect(missing.calls).toHaveLength(1)
    const refused = fakeFetch(async () => Promise.reject(new TypeError('Failed to fetch')))
    await expect(fetchPart(refused.doFetch, URL_)).rejects.toThrow(`index part ${URL_} could not be read: Failed to fetch`)
    expect(refused.calls).toHaveLength(PART_ATTEMPTS)
  })
})
