/**
 * Chromium plumbing for the side-by-side browser figures: bundle each
 * engine's bench page, launch the Debian Chromium, count the bytes a fresh
 * page downloads until its first result, and time warm searches in-page.
 */
import { chromium, type Browser, type BrowserContext, type Page } from '@playwright/test'
import { build } from 'esbuild'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { PageHit } from './page-engine.ts'

export const CHROMIUM_PATH = process.env.DOCPILOT_CHROMIUM ?? '/usr/bin/chromium'
export const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--host-resolver-rules=MAP * ~NOTFOUND , EXCLUDE 127.0.0.1',
]

export function launchChromium(): Promise<Browser> {
  process.env.PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD = '1'
  return chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS })
}

/**
 * Bundles one page entry to `<outDir>/<name>.js` and writes `<name>.html` that
 * loads it. Dynamic imports become separate chunks, as in the widget's own
 * build: code a page never runs (docpilot's ONNX runtime, for an index with
 * the static default model) is never downloaded, so it is not counted.
 */
export async function bundlePage(entry: string, outDir: string, name: string): Promise<void> {
  await mkdir(outDir, { recursive: true })
  await build({
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
  })
  await writeFile(
    join(outDir, `${name}.html`),
    `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>${name}</title>` +
      `<script type="module" src="./${name}.js"></script></head><body><main></main></body></html>\n`,
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
  const context = await browser.newContext()
  const page = await context.newPage()
  await page.goto(url)
  await page.waitForFunction(() => window.benchEngine !== undefined)
  return { context, page }
}

/**
 * Fresh page -> first search with one result ready. Every response that
 * finished in between is counted except the host HTML page itself (the docs
 * page a reader is already on).
 */
export async function firstResultTransfers(
  browser: Browser,
  pageUrl: string,
  q: string,
  queryVector?: number[],
): Promise<{ transfers: Transfer[]; ms: number; hits: PageHit[] }> {
  const context = await browser.newContext()
  const pending: Promise<Transfer | undefined>[] = []
  context.on('requestfinished', (req) => {
    if (req.url() === pageUrl) return
    pending.push(
      req
        .sizes()
        .then((s) => ({ url: req.url(), body: s.responseBodySize, headers: s.responseHeadersSize }))
        .catch(() => undefined),
    )
  })
  try {
    const page = await context.newPage()
    const t0 = Date.now()
    await page.goto(pageUrl)
    await page.waitForFunction(() => window.benchEngine !== undefined)
    const hits = await page.evaluate(
      ([query, vec]) => window.benchEngine!.search(query, 1, vec ?? undefined),
      [q, queryVector ?? null] as const,
    )
    const ms = Date.now() - t0
    const transfers = (await Promise.all(pending)).filter((t): t is Transfer => t !== undefined)
    return { transfers, ms, hits }
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
