/**
 * The proxy's MCP route (`/ai/mcp`): the docs server of core/mcp over the
 * SDK's Streamable HTTP transport, stateless (a server and a transport per
 * request, plain JSON responses), so it runs the same on Node and Workers.
 * app.ts admits the request first (origin, method, rate limit); the body cap
 * is the proxy's own (proxy.maxBodyBytes).
 *
 * The index and the agent files come from the site's own static files: on
 * Workers fetched from the origin (`originSite`), on Node read from disk
 * (proxy/mcp-disk.ts). The opened index is kept for the life of the process
 * or isolate. A hosted embedder is called through this proxy's own
 * embeddings route, with the request's client identity, so it is counted in
 * that client's MCP bucket (app.ts) and never sees a key.
 */
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/server'
import type { Transport } from '../core/ladder/attempt.ts'
import { createDocsMcpServer, type DocsSite } from '../core/mcp/docs-server.ts'
import { reopeningIndex } from '../core/mcp/index-cache.ts'
import type { DenseOptions } from '../core/retrieval/hybrid.ts'
import { httpPartLoader } from '../core/index/http-parts.ts'
import type { PartLoader } from '../core/index/parts.ts'
import type { DocIndex } from '../core/retrieval/search.ts'
import { onOrigin, siteRelativePath } from '../core/site-files.ts'
import { pathToUrl } from '../indexer/urls.ts'
import type { ProxyAppOptions } from './app.ts'
import type { McpSettings } from './mcp-settings.ts'

export const MCP_PATH = '/ai/mcp'

/** Answers one MCP request (a POST of JSON-RPC) with a fresh stateless server over `site`. */
export async function serveMcp(request: Request, site: DocsSite, opts: { maxBodyBytes: number; settle?: () => Promise<void> }): Promise<Response> {
  const server = createDocsMcpServer(site, { version: await indexVersion(site) })
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
    maxRequestBodySize: opts.maxBodyBytes,
  })
  await server.connect(transport)
  try {
    return await transport.handleRequest(request)
  } finally {
    // A Worker's fetches die with its request: none the index started may be left running (fetchPartLoader).
    await opts.settle?.()
    // The JSON response is complete once handleRequest resolves: nothing of this request outlives it.
    await server.close()
  }
}

/** The mount a runtime gives createProxyApp: this request's docs site, served over MCP. */
export type McpMount = NonNullable<ProxyAppOptions['mcp']>

/** Workers: the index and the agent files fetched from the site's own origin (the first of proxy.siteOrigins). */
export const originMcp: McpMount = (c, rt, self) => {
  const site = originSite(siteOriginOf(c.req.raw, rt), rt.settings.mcp, throughProxy(self, c.req.raw))
  return serveMcp(c.req.raw, site, { maxBodyBytes: rt.settings.proxy.maxBodyBytes, settle: site.settled })
}

/** The site's own origin: the one the config names (proxy.siteOrigins), else the origin the request came to. */
export function siteOriginOf(request: Request, rt: { settings: { proxy: { siteOrigins: string[] } } }): string {
  return rt.settings.proxy.siteOrigins[0] ?? new URL(request.url).origin
}

/** The docpilot version that built the index being served (clients see it as the server's version). */
async function indexVersion(site: DocsSite): Promise<string> {
  return site.index().then(
    (index) => index.manifest.docpilot,
    () => 'unknown',
  )
}

/**
 * A transport for the hosted embedder that goes through this proxy's own
 * /ai/<member> route: the same model allowlist and key, and the client
 * identity of the MCP request that asked (whose MCP bucket it spends).
 */
export function throughProxy(self: (request: Request) => Promise<Response>, outer: Request): Transport {
  return (member, req) => {
    const headers = new Headers(req.headers)
    for (const name of ['cf-connecting-ip', 'x-forwarded-for']) {
      const value = outer.headers.get(name)
      if (value) headers.set(name, value)
    }
    return self(new Request(new URL(`${member.route}${req.path}`, outer.url), { method: req.method, headers, body: req.body, signal: req.signal }))
  }
}

/** Index readers by where the index lives, kept across requests (one per process or isolate). */
const indexes = new Map<string, () => Promise<DocIndex>>()

export function keptIndex(key: string, loader: PartLoader, opts: Pick<DenseOptions, 'transport'> = {}): () => Promise<DocIndex> {
  let get = indexes.get(key)
  // Degradation reasons reach the client in each result; the server's log stays quiet.
  if (!get) indexes.set(key, (get = reopeningIndex(loader, { ...opts, log: () => {} })))
  return get
}

/** A part loader that can say when none of the fetches it started is still running. */
export interface SettlingLoader extends PartLoader {
  /** Resolves once every fetch started through this loader (and any it led to) has finished. */
  settled(): Promise<void>
}

/**
 * Index parts fetched from the index URL, whole or by byte range, nothing
 * cached here: the opened index keeps what it loaded, and parts are
 * content-addressed. (The panel's loader adds IndexedDB, which a server has
 * no use for.)
 *
 * The index starts some fetches without waiting for them (warming the
 * embedder, postings and texts it may need next) and keeps their promises.
 * A Worker cancels a request's I/O when the request ends, so a promise kept
 * from one request would never settle in the next: a Worker waits for
 * `settled()` before it answers.
 */
export function fetchPartLoader(indexUrl: string, doFetch: typeof fetch): SettlingLoader {
  const http = httpPartLoader(indexUrl, doFetch)
  const running = new Set<Promise<unknown>>()
  const tracked = <A extends unknown[], T>(read: (...args: A) => Promise<T>) => (...args: A): Promise<T> => {
    const p = read(...args)
    running.add(p)
    p.then(() => running.delete(p), () => running.delete(p))
    return p
  }
  return {
    bytes: tracked(http.bytes),
    // The model's rows and the exact vectors are read a few rows at a time, by byte range.
    range: tracked(http.range),
    async settled() {
      // A finished fetch may lead to the next one (a directory, then its rows): look again until none runs.
      while (running.size) {
        await Promise.allSettled([...running])
        await new Promise((next) => setTimeout(next, 0))
      }
    },
  }
}

/** Part loaders by index URL, one per isolate like the indexes they feed. */
const loaders = new Map<string, SettlingLoader>()

/**
 * The site as the Worker sees it: its own static files, fetched from its
 * origin (or the absolute URLs the settings name). Only files under the site
 * URL are ever fetched.
 */
export function originSite(
  origin: string,
  mcp: McpSettings,
  embedTransport: Transport,
  doFetch: typeof fetch = (i, init) => fetch(i, init),
): DocsSite & Pick<SettlingLoader, 'settled'> {
  const indexUrl = new URL(mcp.indexUrl, origin).href
  const siteUrl = new URL(mcp.siteUrl, origin).href
  // The loader is kept with the index it reads, so a request can wait for the fetches that index started.
  let loader = loaders.get(indexUrl)
  if (!loader) loaders.set(indexUrl, (loader = fetchPartLoader(indexUrl, doFetch)))
  return {
    settled: loader.settled,
    index: keptIndex(indexUrl, loader),
    embedTransport,
    siteUrl: mcp.siteUrl,
    uriOf: (url) => new URL(url, siteUrl).href,
    citeUrl: (url) => onOrigin(url, origin),
    urlOfPath: (path) => pathToUrl(path, mcp.urls),
    async file(url) {
      // Root-relative page URLs live on the site's host (the request's own origin unless siteUrl names another).
      const absolute = new URL(url, siteUrl).href
      if (siteRelativePath(absolute, siteUrl) === undefined) return undefined
      const res = await doFetch(absolute)
      if (res.status === 404) {
        await res.body?.cancel().catch(() => {})
        return undefined
      }
      if (!res.ok) {
        await res.body?.cancel().catch(() => {})
        throw new Error(`${absolute} answered HTTP ${res.status}`)
      }
      return res.text()
    },
  }
}
