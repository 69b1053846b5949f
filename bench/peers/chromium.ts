/**
 * Chromium plumbing for the side-by-side browser figures: bundle each
 * engine's bench page, launch the Debian Chromium, count the bytes a fresh
 * page downloads until its first result, and time warm searches in-page.
 */
import { chromium, type Browser, type BrowserContext, type Page } from '@playwright/test'
import { build } from 'esbuild'
import { mkdir, writeFile } from 'node:fs/promises'
import { basename, join } from 'node:path'
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../../playwright.config.ts'
import type { PageHit } from './page-engine.ts'

// The tests' flags, plus one: the bench host serves HTTP/2 over TLS with a certificate made for the run (static-server.ts).
const BENCH_ARGS = [...CHROMIUM_ARGS, '--ignore-certificate-errors']

export function launchChromium(): Promise<Browser> {
  process.env.PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD = '1'
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: BENCH_ARGS })
}

/**
 * Bundles one page entry to `<outDir>/<name>.js` and writes `<name>.html` that
 * loads it. Dynamic imports become separate chunks, as in the widget's own
 * build: code a page never runs (docpilot's ONNX runtime, for an index with
 * the static default model) is never downloaded, so it is not counted.
 */
export async function bundlePage(entry: string, outDir: string, name: string): Promise<void> {
  await mkdir(outDir, { recursive: true })
  const result = await build({
    entryPoints: { [name]: entry },
    outdir: outDir,
    chunkNames: `${name}-chunk-[hash]`,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'browser',
    target: 'es2022',
    minify: true,
    legalComments: 'none',
    logLevel: 'error',
    metafile: true,
  })
  // The chunks the entry imports statically are preloaded with it, as bundlers' HTML does (Vite's modulepreload).
  const output = Object.entries(result.metafile.outputs).find(([, o]) => o.entryPoint !== undefined)
  const preload = (output?.[1].imports ?? []).filter((i) => i.kind === 'import-statement').map((i) => `<link rel="modulepreload" href="./${basename(i.path)}">`)
  await writeFile(
    join(outDir, `${name}.html`),
    `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>${name}</title>` +
      `<script type="module" src="./${name}.js"></script>${preload.join('')}</head><body><main></main></body></html>\n`,
  )
}

export interface Transfer {
  url: string
  /** Bytes on the wire for the body (compressed when the server compressed it). */
  body: number
  headers: number
}

/** Opens a page in a fresh context (empty HTTP cache and IndexedDB) and waits for its engine. */
export async function openEnginePage(browser: Browser, url: string): Promise<{ context: BrowserContext; page: Page }> {
  const context = await browser.newContext({ ignoreHTTPSErrors: true })
  const page = await context.newPage()
  await page.goto(url)
  await page.waitForFunction(() => window.benchEngine !== undefined)
  return { context, page }
}

/**
 * A network a reader might be on, applied through the DevTools protocol
 * (Network.emulateNetworkConditions): Chromium delays each response by the
 * latency and paces bodies at the throughput, per page.
 */
export interface NetworkProfile {
  name: string
  /** Absent: no throttling. */
  throttle?: { downloadKbps: number; uploadKbps: number; latencyMs: number }
}

export const NETWORK_PROFILES: NetworkProfile[] = [
  { name: 'unthrottled' },
  { name: '10 Mbit/s, 40 ms', throttle: { downloadKbps: 10_000, uploadKbps: 5_000, latencyMs: 40 } },
  { name: '1.6 Mbit/s, 150 ms', throttle: { downloadKbps: 1_600, uploadKbps: 750, latencyMs: 150 } },
]

async function applyProfile(context: BrowserContext, page: Page, profile: NetworkProfile): Promise<void> {
  if (!profile.throttle) return
  const { downloadKbps, uploadKbps, latencyMs } = profile.throttle
  const cdp = await context.newCDPSession(page)
  await cdp.send('Network.enable')
  await cdp.send('Network.emulateNetworkConditions', {
    offline: false,
    latency: latencyMs,
    // The protocol takes bytes per second.
    downloadThroughput: (downloadKbps * 1000) / 8,
    uploadThroughput: (uploadKbps * 1000) / 8,
  })
}

/** Every response a context receives, except `skip` (the docs page the reader is already on). */
function countTransfers(context: BrowserContext, skip: string): () => Promise<Transfer[]> {
  const pending: Promise<Transfer | undefined>[] = []
  context.on('requestfinished', (req) => {
    if (req.url() === skip) return
    pending.push(
      req
        .sizes()
        // A size the browser could not tell (a response served from its memory cache) reads as -1.
        .then((s) => ({ url: req.url(), body: Math.max(0, s.responseBodySize), headers: Math.max(0, s.responseHeadersSize) }))
        .catch(() => undefined),
    )
  })
  return async () => (await Promise.all(pending)).filter((t): t is Transfer => t !== undefined)
}

export interface ColdVisit {
  transfers: Transfer[]
  /** Navigation start to the first hit painted, on the page's clock. */
  ms: number
  hits: number
}

/**
 * One cold visit: a fresh context (empty HTTP cache and IndexedDB) on the
 * given network opens `pageUrl?q=...`, whose script searches at once and
 * paints the first hit. Counts every response but the page itself.
 */
export async function coldVisit(browser: Browser, pageUrl: string, q: string, profile: NetworkProfile, queryVector?: number[]): Promise<ColdVisit> {
  const url = new URL(pageUrl)
  url.searchParams.set('q', q)
  if (queryVector) url.searchParams.set('v', JSON.stringify(queryVector.map((x) => Number(x.toFixed(6)))))
  const context = await browser.newContext({ ignoreHTTPSErrors: true })
  const transfers = countTransfers(context, url.href)
  try {
    const page = await context.newPage()
    await applyProfile(context, page, profile)
    await page.goto(url.href)
    await page.waitForFunction(() => window.benchFirst !== undefined, undefined, { timeout: 120_000 })
    const first = (await page.evaluate(() => window.benchFirst))!
    if (first.error) throw new Error(`cold visit to ${pageUrl}: ${first.error}`)
    return { transfers: await transfers(), ms: first.ms, hits: first.hits }
  } finally {
    await context.close()
  }
}

/**
 * What a page view costs a visitor who never touches the panel: a fresh
 * context opens `pageUrl`, the page sits idle for `idleMs`, and every
 * response after the page itself is counted.
 */
export async function idlePageView(browser: Browser, pageUrl: string, idleMs: number): Promise<Transfer[]> {
  const context = await browser.newContext({ ignoreHTTPSErrors: true })
  const transfers = countTransfers(context, pageUrl)
  try {
    const page = await context.newPage()
    await page.goto(pageUrl)
    await page.waitForTimeout(idleMs)
    return await transfers()
  } finally {
    await context.close()
  }
}

/** Runs every query once in the page; returns each query's wall time (ms, in-page clock) and hits. */
export async function searchAll(
  page: Page,
  queries: string[],
  k: number,
  vectors?: (number[] | undefined)[],
): Promise<{ ms: number[]; hits: PageHit[][] }> {
  if (!(await page.evaluate(() => self.crossOriginIsolated))) console.warn('  bench: the page is not cross-origin isolated: its clock ticks in 100 µs steps, too coarse for a warm query (static-server.ts)')
  return page.evaluate(
    async ([qs, kk, vs]) => {
      const ms: number[] = []
      const hits: PageHit[][] = []
      for (let i = 0; i < qs.length; i++) {
        const t0 = performance.now()
        hits.push(await window.benchEngine!.search(qs[i]!, kk, vs?.[i] ?? undefined))
        ms.push(performance.now() - t0)
      }
      return { ms, hits }
    },
    [queries, k, vectors ?? null] as const,
  )
}
