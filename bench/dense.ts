/**
 * What the dense channel costs, each figure next to a baseline measured in the
 * same run (printed as dense / baseline, so a ratio under 1 means cheaper):
 *
 * - query embedding latency with the offline model, Node and Chromium (the
 *   panel's own worker), median and p95; baseline: the lexical search of the
 *   same question;
 * - full index build with vectors vs the same build with embed: false, and a
 *   one-file-changed re-index (embedding cache warm) vs the full build;
 * - vector bytes per 1k chunks: int8 + per-row scale vs float32;
 * - hybrid query latency on the astro corpus vs lexical-only, Node.
 *
 * Absolute times swing with the shared machine's load; ratios much less.
 */
import { appendFileSync, cpSync, existsSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { ASSET_PATH, INDEX_PATH, startDevServer } from '../cli/commands/dev.ts'
import { validateConfig } from '../core/config/validate.ts'
import { openIndex, type DocIndex } from '../core/retrieval/search.ts'
import { buildIndex, type BuildResult } from '../indexer/build.ts'
import { devCorpus, readDevSet, type DevCorpusName } from '../fixtures/dev-corpora.ts'
import { fsPartLoader } from '../indexer/fs-parts.ts'
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../playwright.config.ts'
import { timeInProcess, type Timing } from './cpu-time.ts'
import type { BenchOptions } from './run.ts'
import { kb, median, ms, p95, ratio, timePasses } from './stats.ts'

const WIDGET = resolve(import.meta.dirname, '../dist/widget')

const questionsOf = (corpus: DevCorpusName) => readDevSet(devCorpus(corpus).sets[0]).map((q) => q.q)

async function build(root: string, out: string, embed: 'default' | false, cacheDir: string, include?: readonly string[]): Promise<BuildResult> {
  return buildIndex({
    root,
    mode: 'source',
    out,
    config: validateConfig({ embed }, '(bench)'),
    docpilotVersion: 'bench',
    ...(include ? { include: [...include] } : {}),
    embed: { env: {}, cacheDir },
  })
}

const line = (label: string, a: string, b: string, r: string) => `  ${label.padEnd(44)} ${a.padStart(12)} ${b.padStart(12)} ${r.padStart(8)}`
const timingLine = (label: string, a: Timing, b: Timing) =>
  line(label, `${ms(a.wallMs)} (${ms(a.cpuMs)} cpu)`, `${ms(b.wallMs)} (${ms(b.cpuMs)} cpu)`, ratio(a.cpuMs, b.cpuMs))

interface Latency {
  median: number
  p95: number
  samples: number
}
const latency = (s: number[]): Latency => ({ median: median(s), p95: p95(s), samples: s.length })

/** Question embedding in Chromium through the panel's worker (its own timer, so page round trips are excluded). */
async function chromiumEmbedding(indexDir: string, docsDir: string, questions: string[], rounds: number, log: (l: string) => void): Promise<{ embed: Latency; lexical: Latency } | null> {
  if (!existsSync(join(WIDGET, 'docpilot-worker.js'))) {
    log('  Chromium: skipped (the widget is not built; run `npm run build:widget`)')
    return null
  }
  const { chromium } = await import('@playwright/test')
  const server = await startDevServer({ docsDir, indexDir, index: 'reuse', widgetDir: WIDGET, buildWidget: false, config: validateConfig({}, '(bench)'), env: {}, dbPath: ':memory:', log: () => {} })
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS })
  try {
    const page = await browser.newPage()
    await page.goto(server.url)
    const args = { workerUrl: `${ASSET_PATH}docpilot-worker.js`, indexUrl: new URL(INDEX_PATH, server.url).href, questions, rounds }
    // Plain JavaScript text: tsx's helpers (__name) do not exist in the page.
    return (await page.evaluate(`(${IN_PAGE})(${JSON.stringify(args)})`)) as { embed: Latency; lexical: Latency }
  } finally {
    await browser.close()
    await server.close()
  }
}

/** Runs in the page: the panel's worker embeds each question (timed inside the worker) and searches it lexical-only. */
const IN_PAGE = `async ({ workerUrl, indexUrl, questions, rounds }) => {
  const worker = new Worker(workerUrl, { type: 'module' })
  let next = 1
  const call = (msg) => new Promise((resolve, reject) => {
    const id = next++
    const onMessage = (e) => {
      if (e.data.id !== id) return
      worker.removeEventListener('message', onMessage)
      if (e.data.ok) resolve(e.data)
      else reject(new Error(e.data.error))
    }
    worker.addEventListener('message', onMessage)
    worker.postMessage({ ...msg, id })
  })
  await call({ type: 'open', indexUrl, proxyBase: '' })
  const embed = []
  const lexical = []
  for (let r = 0; r <= rounds; r++) {
    for (const q of questions) {
      const e = await call({ type: 'embed', q })
      if (!e.vector) throw new Error('no query vector: ' + e.reason)
      const t0 = performance.now()
      await call({ type: 'search', q, k: 8, lexicalOnly: true })
      if (r > 0) { embed.push(e.ms); lexical.push(performance.now() - t0) }
    }
  }
  worker.terminate()
  const at = (s, p) => [...s].sort((a, b) => a - b)[Math.min(s.length - 1, Math.floor(p * s.length))]
  return {
    embed: { median: at(embed, 0.5), p95: at(embed, 0.95), samples: embed.length },
    lexical: { median: at(lexical, 0.5), p95: at(lexical, 0.95), samples: lexical.length },
  }
}`

export async function run(opts: BenchOptions): Promise<unknown> {
  const { log } = opts
  const rounds = Math.max(1, opts.rounds)
  const work = mkdtempSync(join(tmpdir(), 'dp-bench-dense-'))
  try {
    // A private copy of the hono docs, so one file can change.
    const hono = join(work, 'hono')
    cpSync(devCorpus('hono').root, hono, { recursive: true })
    const cache = join(work, 'cache')
    const out = join(work, 'ix-hono')

    // Untimed warm-up: the first build in a process also pays for JIT and a cold file cache.
    await build(hono, join(work, 'ix-warm-up'), 'default', join(work, 'warm-up-cache'))
    const lexicalBuild = await timeInProcess(() => build(hono, join(work, 'ix-hono-lexical'), false, cache))
    let full!: BuildResult
    const fullBuild = await timeInProcess(async () => (full = await build(hono, out, 'default', join(work, 'cold-cache'))))
    // Warm the cache for this output folder, then change one page.
    await build(hono, out, 'default', cache)
    appendFileSync(join(hono, 'docs/api/context.md'), '\n\n## Benchmark note\n\nOne changed paragraph, so one chunk is embedded again.\n')
    let incremental!: BuildResult
    const oneFile = await timeInProcess(async () => (incremental = await build(hono, out, 'default', cache)))

    log('hono: index build (wall, cpu)                       dense       baseline    ratio')
    log(timingLine('full build with vectors / embed: false', fullBuild, lexicalBuild))
    log(timingLine('one file changed / full build with vectors', oneFile, fullBuild))
    log(`  embedding step: ${ms(full.embed!.ms)} of the full build (cold cache), ${ms(incremental.embed!.ms)} of the re-index`)
    log(`  re-index embedded ${incremental.embed!.embedded} chunk(s), reused ${incremental.embed!.reused} of ${incremental.chunks}`)

    const dims = full.embed!.identity.dims
    const perK = (full.embed!.vectorBytes / full.chunks) * 1000
    const float32PerK = dims * 4 * 1000
    const lexicalPart = full.parts.find((p) => p.name.startsWith('lexical.'))!
    log(line('vector bytes per 1k chunks (int8 / float32)', kb(perK), kb(float32PerK), ratio(perK, float32PerK)))
    log(line('  next to the lexical part (gzip) per 1k chunks', kb(perK), kb((lexicalPart.gzip / full.chunks) * 1000), ratio(perK, (lexicalPart.gzip / full.chunks) * 1000)))

    // Query embedding in Node, next to the lexical search of the same question.
    const honoIndex = await openIndex(fsPartLoader(out), { log: () => {} })
    const honoQs = questionsOf('hono')
    const embedNode = latency(await timePasses(rounds, honoQs, (q) => honoIndex.dense!.queryVector(q)))
    const lexNode = latency(await timePasses(rounds, honoQs, (q) => honoIndex.search(q, { lexicalOnly: true })))
    log('query embedding, offline model (median / p95)       dense       lexical     ratio')
    log(line(`Node, ${embedNode.samples} questions`, `${ms(embedNode.median)} / ${ms(embedNode.p95)}`, `${ms(lexNode.median)} / ${ms(lexNode.p95)}`, ratio(embedNode.median, lexNode.median)))
    let browser: Awaited<ReturnType<typeof chromiumEmbedding>> = null
    try {
      browser = await chromiumEmbedding(out, hono, honoQs, rounds, log)
      if (browser) log(line(`Chromium worker, ${browser.embed.samples} questions`, `${ms(browser.embed.median)} / ${ms(browser.embed.p95)}`, `${ms(browser.lexical.median)} / ${ms(browser.lexical.p95)}`, ratio(browser.embed.median, browser.lexical.median)))
    } catch (err) {
      log(`  Chromium: failed (${err instanceof Error ? err.message : String(err)})`)
    }

    // Hybrid search on astro vs lexical-only, same index, same questions.
    const astroOut = join(work, 'ix-astro')
    const astroPages = devCorpus('astro')
    await build(astroPages.root, astroOut, 'default', cache, astroPages.include)
    const astro: DocIndex = await openIndex(fsPartLoader(astroOut), { log: () => {} })
    const astroQs = questionsOf('astro')
    const hybrid = latency(await timePasses(rounds, astroQs, (q) => astro.search(q)))
    const lexical = latency(await timePasses(rounds, astroQs, (q) => astro.search(q, { lexicalOnly: true })))
    log(`astro (${astro.size} chunks): warm query (median / p95)    hybrid      lexical     ratio`)
    log(line(`Node, ${hybrid.samples} searches`, `${ms(hybrid.median)} / ${ms(hybrid.p95)}`, `${ms(lexical.median)} / ${ms(lexical.p95)}`, ratio(hybrid.median, lexical.median)))

    return {
      build: { embedStepMs: { full: full.embed!.ms, oneFileChanged: incremental.embed!.ms }, fullWithVectors: fullBuild, lexicalOnly: lexicalBuild, oneFileChanged: oneFile, reembedded: incremental.embed!.embedded, chunks: incremental.chunks },
      vectorBytesPer1kChunks: { int8: perK, float32: float32PerK, lexicalGzip: (lexicalPart.gzip / full.chunks) * 1000 },
      queryEmbedding: { node: embedNode, nodeLexical: lexNode, chromium: browser?.embed ?? null, chromiumLexical: browser?.lexical ?? null },
      astroQuery: { chunks: astro.size, hybrid, lexical },
    }
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}
