/**
 * The PartLoader of an index served over HTTP, nothing cached: each read is
 * one fetchPart of the part's URL below the index URL. The readers that take
 * an index from a URL build on it: the widget's worker adds its IndexedDB
 * cache, the MCP server on Workers tracks the reads it must wait for, the
 * bench page uses it as it is.
 */
import { fetchPart } from './fetch-part.ts'
import type { PartLoader } from './parts.ts'

export interface HttpPartsOptions {
  /** Give up a read after this long without a byte (fetchPart's default when absent). */
  stallMs?: number
  /**
   * Passed to the fetch of a byte range. The browser's `cache: 'no-store'`:
   * its HTTP cache would queue range requests to one file behind each other.
   */
  rangeInit?: RequestInit
}

export function httpPartLoader(indexUrl: string, doFetch: typeof fetch, opts: HttpPartsOptions = {}): Required<PartLoader> {
  const base = indexUrl.endsWith('/') ? indexUrl : `${indexUrl}/`
  const url = (name: string) => new URL(name, base).href
  const { stallMs, rangeInit } = opts
  return {
    bytes: (name) => fetchPart(doFetch, url(name), { stallMs }, name),
    range: (name, start, end) =>
      fetchPart(doFetch, url(name), { range: { start, end }, ...(rangeInit ? { init: rangeInit } : {}), stallMs }, `${name} (bytes ${start}-${end - 1})`),
  }
}
