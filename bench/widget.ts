/**
 * Widget bench (`npm run bench -- --only widget`), in the Debian Chromium
 * against the real `docpilot dev` server over fixtures/site:
 *
 * 1. Bundle sizes, gzip -9: the loader a site drops in (target <= 20 KB), the
 *    panel code the first open imports, the retrieval worker.
 * 2. Click to panel interactive: from the launcher's click to the question box
 *    focused inside the open dialog, measured on the page's own clock. Cold:
 *    nothing fetched before the click (data-prefetch="none"); warm: after the
 *    prefetch the loader starts when the pointer reaches the launcher.
 * 3. Bytes downloaded before the first result: a fresh page (empty HTTP cache
 *    and IndexedDB), the reader opens the panel and asks; counted until the
 *    first passage rows are on screen. No provider is configured, so the turn
 *    is the search view and no model time is mixed in. Split into widget
 *    code, index data and the embedding model (cached after first use).
 */
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import type { Browser, Page } from '@playwright/test'
import { ASSET_PATH, INDEX_PATH, startDevServer, type DevServer } from '../cli/commands/dev.ts'
import { validateConfig } from '../core/config/validate.ts'
import { partOfModel } from '../core/index/format.ts'
import { COVERED } from '../e2e/paths.ts'
import { buildWidget } from '../widget/vite.config.ts'
import { launchChromium } from './peers/chromium.ts'
import { kb, median, ms } from './stats.ts'

export interface WidgetBenchOptions {
  rounds: number
  log: (line: string) => void
  smoke?: boolean
}

export const LOADER_TARGET_BYTES = 20 * 1024
const SITE = fileURLToPath(new URL('../fixtures/site/', import.meta.url))

export interface BundleSizes {
  /** docpilot.js, the one script tag. */
  loader: number
  /** Everything the first open imports for the panel (entry plus the chunks it pulls in statically). */
  panel: number
  /** What the panel fetches on open without waiting for it (the rich renderer: Markdown, excerpts), beyond the panel's own chunks. */
  panelLazy: number
  worker: number
  /** The ES module a bundling site imports (entry only; it shares the panel's chunks). */
  esm: number
}

export interface WidgetBenchResult {
  gzip: BundleSizes
  raw: BundleSizes
  loaderTargetBytes: number
  clickToInteractive: { coldMs: number[]; warmMs: number[] }
  firstResult: { widget: number[]; index: number[]; model: number[]; total: number[]; requests: number[] }
}

const gz = (b: Buffer) => gzipSync(b, { level: 9 }).length

/** The entry and the chunks it imports statically (`from "./x.js"`), transitively. */
async function closure(dir: string, entry: string): Promise<string[]> {
  const seen = new Set<string>()
  const visit = async (name: string) => {
    if (seen.has(name)) return
    seen.add(name)
    const code = await readFile(join(dir, name), 'utf8')
    for (const m of code.matchAll(/(?:^|[;}\s])(?:import|export)\s*(?:[\w$*{}\s,]+from\s*)?["']\.\/([^"']+\.js)["']/g)) await visit(m[1]!)
  }
  await visit(entry)
  return [...seen]
}

/** Chunks the given files import dynamically (`import("./x.js")`) and what those pull in, minus the given files. */
async function lazyClosure(dir: string, files: string[]): Promise<string[]> {
  const lazy = new Set<string>()
  for (const name of files) {
    const code = await readFile(join(dir, name), 'utf8')
    for (const m of code.matchAll(/import\(\s*["']\.\/([^"']+\.js)["']\s*\)/g)) for (const f of await closure(dir, m[1]!)) lazy.add(f)
  }
  return [...lazy].filter((f) => !files.includes(f))
}

export async function bundleSizes(dir: string): Promise<{ gzip: BundleSizes; raw: BundleSizes }> {
  const files = new Set(await readdir(dir))
  const measure = async (names: string[]) => {
    let raw = 0
    let gzip = 0
    for (const n of names) {
      if (!files.has(n)) throw new Error(`widget build in ${dir} has no ${n}`)
      const b = await readFile(join(dir, n))
      raw += b.length
      gzip += gz(b)
    }
    return { raw, gzip }
  }
  const loader = await measure(['docpilot.js'])
  const panelFiles = await closure(dir, 'docpilot-panel.js')
  const panel = await measure(panelFiles)
  const panelLazy = await measure(await lazyClosure(dir, panelFiles))
  const worker = await measure(await closure(dir, 'docpilot-worker.js'))
  const esm = await measure(['docpilot.esm.js'])
  return {
    gzip: { loader: loader.gzip, panel: panel.gzip, panelLazy: panelLazy.gzip, worker: worker.gzip, esm: esm.gzip },
    raw: { loader: loader.raw, panel: panel.raw, panelLazy: panelLazy.raw, worker: worker.raw, esm: esm.raw },
  }
}

/**
 * Click the launcher, then wait (on the page's clock) until the dialog's
 * question box has focus. A string, not a function: tsx would wrap a
 * function's inner helpers in a `__name` call the page does not have.
 */
const CLICK_TO_INTERACTIVE = `new Promise((resolve) => {
  const button = document.querySelector('[data-docpilot-launcher]').shadowRoot.querySelector('button')
  const t0 = performance.now()
  button.click()
  const check = () => {
    const root = document.querySelector('[data-docpilot-panel]')?.shadowRoot
    const box = root?.querySelector('[role="dialog"] textarea')
    if (box && root.activeElement === box) resolve(performance.now() - t0)
    else requestAnimationFrame(check)
  }
  check()
})`

async function clickToInteractive(page: Page): Promise<number> {
  return (await page.evaluate(CLICK_TO_INTERACTIVE)) as number
}

async function freshPage(browser: Browser, url: string): Promise<{ page: Page; close(): Promise<void> }> {
  const context = await browser.newContext()
  const page = await context.newPage()
  await page.goto(url)
  await page.waitForFunction(() => document.querySelector('[data-docpilot-launcher]') !== null)
  return { page, close: () => context.close() }
}

async function firstResultBytes(browser: Browser, server: DevServer) {
  const context = await browser.newContext()
  const isModel = partOfModel(server.manifest.embedder)
  const pending: Promise<{ path: string; bytes: number } | undefined>[] = []
  const pageUrl = `${server.url}/`
  context.on('requestfinished', (req) => {
    if (req.url() === pageUrl) return // the docs page the reader is already on
    pending.push(
      req
        .sizes()
        .then((s) => ({ path: new URL(req.url()).pathname, bytes: s.responseBodySize + s.responseHeadersSize }))
        .catch(() => undefined),
    )
  })
  try {
    const page = await context.newPage()
    await page.goto(pageUrl)
    await page.getByRole('button', { name: /Ask the docs/ }).first().click()
    const box = page.getByRole('dialog', { name: 'Ask the docs' }).getByRole('textbox')
    await box.fill(COVERED)
    await box.press('Enter')
    await page.getByRole('dialog', { name: 'Ask the docs' }).locator('.dp-row').first().waitFor()
    const split = { widget: 0, index: 0, model: 0, total: 0, requests: 0 }
    for (const t of await Promise.all(pending)) {
      if (!t) continue
      if (t.path.startsWith(ASSET_PATH)) split.widget += t.bytes
      else if (t.path.startsWith(INDEX_PATH) && isModel(t.path.slice(INDEX_PATH.length))) split.model += t.bytes
      else if (t.path.startsWith(INDEX_PATH)) split.index += t.bytes
      else continue
      split.total += t.bytes
      split.requests++
    }
    return split
  } finally {
    await context.close()
  }
}

export async function run(opts: WidgetBenchOptions): Promise<WidgetBenchResult> {
  const { log } = opts
  const rounds = opts.smoke ? 1 : Math.max(1, opts.rounds)
  const work = await mkdtemp(join(tmpdir(), 'docpilot-bench-widget-'))
  const servers: DevServer[] = []
  let browser: Browser | undefined
  try {
    const widgetDir = join(work, 'widget')
    await buildWidget(widgetDir)
    const sizes = await bundleSizes(widgetDir)
    log(`bundle (gzip -9): loader ${kb(sizes.gzip.loader)} (target <= ${kb(LOADER_TARGET_BYTES)}: ${sizes.gzip.loader <= LOADER_TARGET_BYTES ? 'met' : 'MISSED'}), ` +
      `panel ${kb(sizes.gzip.panel)} (+ ${kb(sizes.gzip.panelLazy)} fetched on open, not waited for), worker ${kb(sizes.gzip.worker)}, esm entry ${kb(sizes.gzip.esm)}`)

    const serve = async (scriptData?: Record<string, string>, index: 'build' | 'reuse' = 'reuse') => {
      const server = await startDevServer({
        docsDir: SITE,
        indexDir: join(work, 'index'),
        index,
        widgetDir,
        buildWidget: false,
        // No provider keys: every turn is the search view, so the figures hold no model time.
        config: validateConfig({}, '(bench)'),
        env: {},
        dbPath: ':memory:',
        ...(scriptData ? { scriptData } : {}),
      })
      servers.push(server)
      return server
    }
    const prefetching = await serve(undefined, 'build')
    const cold = await serve({ prefetch: 'none' })

    browser = await launchChromium()
    const result: WidgetBenchResult = {
      ...sizes,
      loaderTargetBytes: LOADER_TARGET_BYTES,
      clickToInteractive: { coldMs: [], warmMs: [] },
      firstResult: { widget: [], index: [], model: [], total: [], requests: [] },
    }
    for (let i = 0; i < rounds; i++) {
      const c = await freshPage(browser, `${cold.url}/`)
      result.clickToInteractive.coldMs.push(await clickToInteractive(c.page))
      await c.close()

      const w = await freshPage(browser, `${prefetching.url}/`)
      // Pointing at the launcher is intent: the loader prefetches the panel; wait for that, not for a time.
      await w.page.getByRole('button', { name: /Ask the docs/ }).first().hover()
      await w.page.waitForFunction(() => document.querySelector('[data-docpilot-panel]') !== null)
      result.clickToInteractive.warmMs.push(await clickToInteractive(w.page))
      await w.close()

      const bytes = await firstResultBytes(browser, cold)
      for (const key of Object.keys(bytes) as (keyof typeof bytes)[]) result.firstResult[key].push(bytes[key])
    }
    const f = result.firstResult
    log(`click to panel interactive (median of ${rounds}): cold ${ms(median(result.clickToInteractive.coldMs))}, after the hover prefetch ${ms(median(result.clickToInteractive.warmMs))}`)
    log(`bytes before the first result (median of ${rounds}, fresh page, fixtures/site): ${kb(median(f.total))} in ${median(f.requests)} requests ` +
      `= widget code ${kb(median(f.widget))} + index ${kb(median(f.index))} + embedding model ${kb(median(f.model))} (cached after first use)`)
    return result
  } finally {
    await browser?.close()
    for (const s of servers) await s.close()
    await rm(work, { recursive: true, force: true })
  }
}
