/**
 * A local static host for the browser benchmarks, behaving like a typical
 * docs host: gzip for compressible types (HTML, JS, JSON, wasm), files served
 * as-is otherwise (Pagefind's `.pf_*` parts are already gzipped by Pagefind).
 * Every engine is served by the same server, so byte counts compare.
 */
import { serve } from '@hono/node-server'
import { serveStatic } from '@hono/node-server/serve-static'
import { Hono } from 'hono'
import { compress } from 'hono/compress'
import type { AddressInfo } from 'node:net'

export interface StaticServer {
  url: string
  close(): Promise<void>
}

/** mounts: URL prefix (e.g. '/pagefind/') -> absolute folder. */
export async function startStaticServer(mounts: Record<string, string>): Promise<StaticServer> {
  const app = new Hono()
  app.use(compress())
  // Longest prefix first, so '/bench/x/' wins over '/bench/'.
  for (const [prefix, root] of Object.entries(mounts).sort((a, b) => b[0].length - a[0].length)) {
    const p = prefix.endsWith('/') ? prefix : `${prefix}/`
    app.use(
      `${p}*`,
      serveStatic({ root, rewriteRequestPath: (path) => path.slice(p.length - 1) }),
    )
  }
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve({ fetch: app.fetch, hostname: '127.0.0.1', port: 0 }, () => resolve(s))
  })
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
