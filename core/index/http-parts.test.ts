import { describe, expect, it } from 'vitest'
import { httpPartLoader } from './http-parts.ts'

/** A fetch that records each request's URL, range header and cache mode, and answers a range with 206. */
function recording() {
  const seen: Array<{ url: string; range: string | null; cache?: RequestCache }> = []
  const doFetch = (async (url: string, init: RequestInit = {}) => {
    const range = new Headers(init.headers).get('range')
    seen.push({ url, range, ...(init.cache ? { cache: init.cache } : {}) })
    return range ? new Response(Uint8Array.of(1, 2), { status: 206 }) : new Response('{}')
  }) as typeof fetch
  return { doFetch, seen }
}

describe('the HTTP part loader', () => {
  it('reads parts below the index URL, with or without its closing slash', async () => {
    for (const indexUrl of ['https://docs.example/docpilot', 'https://docs.example/docpilot/']) {
      const { doFetch, seen } = recording()
      await httpPartLoader(indexUrl, doFetch).bytes('texts.ab/3.json.gz')
      expect(seen).toEqual([{ url: 'https://docs.example/docpilot/texts.ab/3.json.gz', range: null }])
    }
  })

  it('reads a range by an HTTP range request with the range init, and names the bytes when it fails', async () => {
    const { doFetch, seen } = recording()
    const loader = httpPartLoader('https://docs.example/i/', doFetch, { rangeInit: { cache: 'no-store' } })
    await expect(loader.range('vectors.i8', 4, 6)).resolves.toEqual(Uint8Array.of(1, 2))
    expect(seen).toEqual([{ url: 'https://docs.example/i/vectors.i8', range: 'bytes=4-5', cache: 'no-store' }])
    const missing = httpPartLoader('https://docs.example/i/', (async () => new Response('gone', { status: 404 })) as unknown as typeof fetch)
    await expect(missing.range('vectors.i8', 4, 6)).rejects.toThrow('index part vectors.i8 (bytes 4-5) could not be read: HTTP 404')
  })
})
