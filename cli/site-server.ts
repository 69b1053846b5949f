/**
 * The one HTTP server behind `docpilot dev` and `docpilot preview`: a docs
 * site, the index, the widget files and the Node proxy on one origin, as a
 * deployed site serves them. What differs between the two commands (demo
 * pages or the owner's built site, a fresh index or the real one) is passed
 * in; how files are found, typed, cached and compressed lives here once.
 */
import { realpathSync, statSync } from 'node:fs'
import { open, readFile, stat } from 'node:fs/promises'
import { isIP, type AddressInfo } from 'node:net'
import { extname, join, resolve, sep } from 'node:path'
import { Hono, type Context } from 'hono'
import { compress } from 'hono/compress'
import { listen, stopServer, type NodeProxy } from '../proxy/node.ts'

/**
 * The page's Content-Security-Policy: no inline script, no eval. The one
 * relaxation is 'wasm-unsafe-eval', which WebAssembly compilation needs (for
 * embedders that run a WASM runtime); nothing else is allowed to evaluate code.
 */
export const STRICT_CSP = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join('; ')

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.jpeg': 'image/jpeg',
  '.gif': 'image/gif',
  '.webp': 'image/webp',
  '.ico': 'image/x-icon',
  '.woff2': 'font/woff2',
  '.wasm': 'application/wasm',
  '.txt': 'text/plain; charset=utf-8',
  '.xml': 'application/xml; charset=utf-8',
}

export const isHtml = (path: string) => /\.html?$/i.test(path)

const inside = (root: string, path: string) => path === root || path.startsWith(root.endsWith(sep) ? root : root + sep)

/**
 * A file under `root`, or undefined when the path escapes it (also through a symbolic link), names a
 * hidden file or folder (`.env`, `.git/`; `.well-known/` is a site's own), or names nothing.
 */
export function safeFile(root: string, urlPath: string): string | undefined {
  let decoded: string
  try {
    decoded = decodeURIComponent(urlPath)
  } catch {
    return undefined
  }
  if (decoded.split(/[/\\]/).some((segment) => segment.startsWith('.') && segment !== '.well-known')) return undefined
  const file = resolve(root, `.${decoded.startsWith('/') ? decoded : `/${decoded}`}`)
  if (!inside(root, file)) return undefined
  try {
    return statSync(file).isFile() && inside(realpathSync(root), realpathSync(file)) ? file : undefined
  } catch {
    return undefined
  }
}

/**
 * Whether a request's Host may be served: a page of another site whose name was pointed at this machine
 * (DNS rebinding) must not read the docs folder. A rebinding needs a domain name; an IP address or
 * localhost cannot be one, and the host the server was told to listen on, like the site's own names
 * (`siteHosts`, from proxy.siteOrigins: a hosts-file entry for trying the real name), is the owner's.
 */
export function servedHost(hostHeader: string | undefined, listenHost: string, siteHosts: readonly string[] = []): boolean {
  if (!hostHeader) return false
  let hostname: string
  try {
    hostname = new URL(`http://${hostHeader}`).hostname.replace(/^\[|\]$/g, '')
  } catch {
    return false
  }
  const own = [listenHost, ...siteHosts].map((h) => h.replace(/^\[|\]$/g, '').toLowerCase())
  return hostname === 'localhost' || isIP(hostname) !== 0 || own.includes(hostname)
}

/** The host names of a config's proxy.siteOrigins, for servedHost. */
export function siteHostsOf(siteOrigins: readonly string[]): string[] {
  return siteOrigins.flatMap((origin) => {
    try {
      return [new URL(origin).hostname]
    } catch {
      return []
    }
  })
}

/** The file a static host serves for a URL path: the file itself, the folder's index.html, or the path with .html added. */
export function siteFile(root: string, urlPath: string): string | undefined {
  return safeFile(root, urlPath) ?? safeFile(root, join(urlPath, 'index.html')) ?? safeFile(root, `${urlPath.replace(/\/$/, '')}.html`)
}

/** A folder served below a URL path. */
export interface Mount {
  /** URL path ending in '/', e.g. '/docpilot/'. */
  url: string
  dir: string
  /** 'immutable': content-addressed files, cached forever. 'revalidate': checked on every use. */
  cache: 'immutable' | 'revalidate'
  /** Serve only these file names from the folder. */
  only?: readonly string[]
}

/** What the site answers for a page path: HTML to send, a file to send as it is, or nothing (404). */
export type PageAnswer = { html: string; status?: number } | { file: string } | undefined

export interface SiteServerOptions {
  /** Served at /ai/; closed with the server (or when the server cannot start). */
  proxy: NodeProxy
  /** Also run on close (e.g. stopping fake providers started for this server). */
  onClose?: () => Promise<void>
  /** Folders served below URL paths (the index, the widget files), checked before the pages. */
  mounts?: Mount[]
  /** Exact paths answered from memory (a rewritten manifest, a stylesheet), checked first. */
  fixed?: Record<string, { body: string; type: string }>
  /** Every other GET. */
  page: (path: string) => Promise<PageAnswer>
  /** Send STRICT_CSP with every HTML response. */
  csp: boolean
  port: number
  host: string
  /** Further names it answers to: the site's own (proxy.siteOrigins), see servedHost. */
  siteHosts?: readonly string[]
}

export interface SiteServer {
  url: string
  port: number
  close(): Promise<void>
}

export async function startSiteServer(opts: SiteServerOptions): Promise<SiteServer> {
  const typeOf = (path: string) => TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream'
  const sendFile = async (c: Context, path: string, cache: string) => {
    const headers = { 'content-type': typeOf(path), 'cache-control': cache, 'accept-ranges': 'bytes' }
    // A byte range (one, as static hosts serve them): how the reader reads single rows from a packed index part.
    const range = /^bytes=(\d+)-(\d*)$/.exec(c.req.header('range') ?? '')
    if (!range) return c.body(await readFile(path), 200, headers)
    const size = (await stat(path)).size
    const start = Number(range[1])
    const end = Math.min(range[2] ? Number(range[2]) : size - 1, size - 1)
    if (start > end) return c.body(null, 416, { ...headers, 'content-range': `bytes */${size}` })
    const file = await open(path)
    try {
      const body = new Uint8Array(end - start + 1)
      await file.read(body, 0, body.length, start)
      return c.body(body, 206, { ...headers, 'content-range': `bytes ${start}-${end}/${size}` })
    } finally {
      await file.close()
    }
  }
  const sendHtml = (c: Context, body: string, status: number) => {
    if (opts.csp) c.header('content-security-policy', STRICT_CSP)
    c.header('cache-control', 'no-store')
    return c.html(body, status as 200)
  }

  const app = new Hono()
  app.use('*', async (c, next) => (servedHost(c.req.header('host'), opts.host, opts.siteHosts) ? next() : c.text('Misdirected request: this server answers only its own address.', 421)))
  app.all('/ai/*', (c) => opts.proxy.app.fetch(c.req.raw, c.env))
  // Everything else is compressed on the wire, as any production server does (the bench counts
  // these bytes). Not /ai/: a streamed answer must reach the reader delta by delta.
  app.use('*', async (c, next) => (c.req.path.startsWith('/ai/') ? next() : compress()(c, next)))
  app.get('*', async (c) => {
    const path = c.req.path
    const fixed = opts.fixed?.[path]
    if (fixed) return c.body(fixed.body, 200, { 'content-type': fixed.type, 'cache-control': 'no-cache' })
    // Several folders may share a URL path (the widget, and the ONNX runtime beside it): the first that has the file serves it.
    const mounted = (opts.mounts ?? []).filter((m) => path.startsWith(m.url))
    for (const mount of mounted) {
      const name = path.slice(mount.url.length)
      if (mount.only && !mount.only.includes(name)) continue
      const file = safeFile(mount.dir, name)
      if (file) return sendFile(c, file, mount.cache === 'immutable' ? 'public, max-age=31536000, immutable' : 'no-cache')
    }
    if (mounted.length) return c.notFound()
    const answer = await opts.page(path)
    if (answer && 'file' in answer) {
      if (opts.csp && isHtml(answer.file)) return sendHtml(c, await readFile(answer.file, 'utf8'), 200)
      return sendFile(c, answer.file, 'no-cache')
    }
    // A site without an icon: say so instead of a 404 in every reader's console.
    if (path === '/favicon.ico') return c.body(null, 204)
    if (answer) return sendHtml(c, answer.html, answer.status ?? 200)
    return sendHtml(c, '<!doctype html><title>Not found</title><p>Not found.</p>', 404)
  })

  const stopOthers = async () => {
    opts.proxy.close()
    await opts.onClose?.()
  }
  let server: Awaited<ReturnType<typeof listen>>
  try {
    server = await listen(app.fetch, opts.port, opts.host)
  } catch (err) {
    await stopOthers()
    throw err
  }
  const { port } = server.address() as AddressInfo
  const shown = opts.host === '0.0.0.0' || opts.host === '::' ? '127.0.0.1' : opts.host.includes(':') ? `[${opts.host}]` : opts.host
  return {
    url: `http://${shown}:${port}`,
    port,
    async close() {
      await stopServer(server)
      await stopOthers()
    },
  }
}
