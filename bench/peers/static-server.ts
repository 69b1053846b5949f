/**
 * A local static host for the browser benchmarks, behaving like a typical
 * docs host (GitHub Pages, Netlify, Cloudflare, Vercel): HTTP/2 over TLS,
 * gzip for compressible types (HTML, JS, JSON, wasm), files served as-is
 * otherwise (Pagefind's `.pf_*` parts are already gzipped by Pagefind), byte
 * ranges answered. Every engine is served by the same server, so byte
 * counts and timings compare. Chromium speaks HTTP/2 only over TLS: the
 * server uses a self-signed certificate made for the run, and the bench's
 * Chromium is told to accept it.
 */
import { serve } from '@hono/node-server'
import { serveStatic } from '@hono/node-server/serve-static'
import { Hono, type MiddlewareHandler } from 'hono'
import { compress } from 'hono/compress'
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createSecureServer } from 'node:http2'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'

export interface StaticServer {
  url: string
  close(): Promise<void>
}

let certificate: { key: Buffer; cert: Buffer } | undefined

/** A throwaway key and certificate for 127.0.0.1, made once per process with openssl. */
function localCertificate(): { key: Buffer; cert: Buffer } {
  if (certificate) return certificate
  const dir = mkdtempSync(join(tmpdir(), 'docpilot-bench-tls-'))
  try {
    execFileSync(
      'openssl',
      ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-keyout', join(dir, 'key.pem'), '-out', join(dir, 'cert.pem'), '-days', '2', '-subj', '/CN=127.0.0.1', '-addext', 'subjectAltName=IP:127.0.0.1'],
      { stdio: 'ignore' },
    )
    certificate = { key: readFileSync(join(dir, 'key.pem')), cert: readFileSync(join(dir, 'cert.pem')) }
    return certificate
  } catch (err) {
    throw new Error(`bench: could not make a TLS certificate with openssl (pages are served over HTTP/2, which Chromium speaks only over TLS): ${(err as Error).message}`)
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/**
 * Pages are served cross-origin isolated, which gives their performance.now()
 * 5 µs steps instead of 100 µs: a warm query takes about a millisecond, so
 * 100 µs steps rounded each engine's median by up to a tenth of it, and a
 * ratio of two such medians by more. Every request here is same-origin, so
 * nothing the engines load is blocked, and neither engine uses what isolation
 * also unlocks (SharedArrayBuffer).
 */
const crossOriginIsolated: MiddlewareHandler = async (c, next) => {
  await next()
  c.header('Cross-Origin-Opener-Policy', 'same-origin')
  c.header('Cross-Origin-Embedder-Policy', 'require-corp')
}

/** mounts: URL prefix (e.g. '/pagefind/') -> absolute folder. */
export async function startStaticServer(mounts: Record<string, string>): Promise<StaticServer> {
  const app = new Hono()
  app.use(compress())
  app.use(crossOriginIsolated)
  // Longest prefix first, so '/bench/x/' wins over '/bench/'.
  for (const [prefix, root] of Object.entries(mounts).sort((a, b) => b[0].length - a[0].length)) {
    const p = prefix.endsWith('/') ? prefix : `${prefix}/`
    app.use(
      `${p}*`,
      serveStatic({ root, rewriteRequestPath: (path) => path.slice(p.length - 1) }),
    )
  }
  const server = await new Promise<ReturnType<typeof serve>>((resolve) => {
    const s = serve(
      { fetch: app.fetch, hostname: '127.0.0.1', port: 0, createServer: createSecureServer, serverOptions: { ...localCertificate(), allowHTTP1: true } },
      () => resolve(s),
    )
  })
  const { port } = server.address() as AddressInfo
  return {
    url: `https://127.0.0.1:${port}`,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
