/**
 * The reader's side, in Chromium, side by side (engine API against engine
 * API: docpilot's core searcher, which the widget's worker runs, against
 * Pagefind's and Orama's browser APIs; each page paints its first hit):
 *
 * - cold visits: one per answerable question, each in a fresh context (empty
 *   HTTP cache and IndexedDB), at three network profiles set through the
 *   DevTools protocol. The page searches as soon as its script loads; counted
 *   are the bytes of every response but the page itself (split into code,
 *   index data and docpilot's embedding model, which IS part of the total: a
 *   first visit pays for it) and the time from navigation start to the first
 *   hit painted. docpilot (hybrid when the index has vectors) and Pagefind
 *   run every question at every profile; the other rows run a few questions
 *   unthrottled, for bytes.
 * - a page view without intent: a docs page carrying the shipped widget
 *   loader, left idle for 30 s; every request in that time is counted.
 * - warm query latency (median, p95) over the question set: each engine's
 *   page is loaded and warmed with one pass, then timed passes alternate
 *   engines. A query's time ends when its top-8 passages are ready to show.
 *
 * Pagefind gets the question as keywords (stop words dropped): it requires
 * every term to match, so a whole question finds nothing.
 */
import type { Browser } from '@playwright/test'
import type { EvalQuestion } from '../core/eval/score.ts'
import { partOfModel } from '../core/index/format.ts'
import { prepareCorpus, type PreparedCorpus } from './compare-corpora.ts'
import { serveCorpus, type EngineId, type EnginePage } from './compare-pages.ts'
import { engineLabel } from './compare-quality.ts'
import { compareQuestions, corporaOf, loadQuestionSets, workRootOf, type CompareOptions } from './compare-questions.ts'
import { kb, median, ms, p95, ratio } from './stats.ts'
import { coldVisit, idlePageView, launchChromium, NETWORK_PROFILES, openEnginePage, searchAll, type NetworkProfile, type Transfer } from './peers/chromium.ts'
import { embedQueries } from './peers/docpilot-vectors.ts'
import { toKeywords } from './peers/keywords.ts'

const K = 8
/** How long a page view without intent is watched. */
export const PAGE_VIEW_IDLE_MS = 30_000

export interface ColdFigures {
  /** Medians over the visits that found a hit. */
  loader: number
  index: number
  model: number
  /** Everything the visit downloaded (the model included). */
  total: number
  requests: number
  /** Navigation start to the first hit painted. */
  ms: number
  samples: number
  /** Visits whose query found nothing (not in the medians). */
  empty: number
}

export interface BrowserRow {
  engine: EngineId
  /** Cold-visit figures by network profile name (only the profiles this engine ran). */
  cold: Record<string, ColdFigures>
  warm: { medianMs: number; p95Ms: number; samples: number }
}

export interface PageViewFigures {
  bytes: number
  requests: number
  idleMs: number
  /** Path and body bytes of each response. */
  files: Array<{ path: string; bytes: number }>
}

export interface BrowserResult {
  corpus: string
  set: string
  /** Profile names, in the order measured. */
  profiles: string[]
  rows: BrowserRow[]
  pageView: PageViewFigures
  /** Wall time of the cold-visit and warm-pass phases, ms: where a run's minutes go. */
  phases: { coldMs: number; warmMs: number }
}

type Role = 'loader' | 'index' | 'model'

function roleOf(t: Transfer, modelFiles: (name: string) => boolean): Role {
  const path = new URL(t.url).pathname
  const name = path.split('/').pop() ?? ''
  if (path.startsWith('/bench/')) return 'loader'
  if (path.startsWith('/pagefind/') && (/^pagefind(-worker)?\.js$/.test(name) || name.startsWith('wasm.'))) return 'loader'
  if (path.startsWith('/docpilot/') && modelFiles(path.slice('/docpilot/'.length))) return 'model'
  return 'index'
}

const queryFor = (engine: EngineId, q: string) => (engine === 'pagefind' ? toKeywords(q) : q)

async function queryVectors(c: PreparedCorpus, questions: EvalQuestion[]): Promise<(number[] | undefined)[] | undefined> {
  const v = c.vectors ? await embedQueries(c.docpilotDir, c.index, questions.map((q) => q.q)) : null
  return v ? v.map((x) => Array.from(x)) : undefined
}

/** The docpilot row peers are compared with: hybrid when the index has it. */
function primaryEngine(pages: EnginePage[]): EngineId {
  return pages.some((p) => p.engine === 'docpilot-hybrid') ? 'docpilot-hybrid' : 'docpilot-lexical'
}

/** Which (engine, profile) pairs get a visit per question, and which only a few unthrottled visits. */
function fullCoverage(engine: EngineId, primary: EngineId): boolean {
  return engine === primary || engine === 'pagefind'
}

export async function runBrowser(opts: Pick<CompareOptions, 'corpora' | 'workDir'> & {
  questions: string[]
  /** Cold visits for the engines that do not run every question (unthrottled only). */
  loads: number
  /** Answerable questions visited cold per profile (default: all). */
  maxQuestions?: number
  /** Timed warm passes over the question set. */
  passes: number
  profiles?: NetworkProfile[]
  pageViewIdleMs?: number
  browser?: Browser
}): Promise<BrowserResult[]> {
  const browser = opts.browser ?? (await launchChromium())
  const profiles = opts.profiles ?? NETWORK_PROFILES
  const out: BrowserResult[] = []
  try {
    for (const set of loadQuestionSets(opts.questions, corporaOf(opts))) {
      const c = await prepareCorpus(set.corpus, workRootOf(opts))
      const site = await serveCorpus(c)
      try {
        const vectors = await queryVectors(c, set.questions)
        const isModel = partOfModel(c.index.manifest.embedder)
        const primary = primaryEngine(site.pages)
        const answerable = set.questions
          .map((q, i) => ({ q, i }))
          .filter(({ q }) => q.gold.length > 0)
          .slice(0, opts.maxQuestions ?? Infinity)

        // The idle page view runs beside the cold visits: it costs the machine nothing unless the loader fetches.
        const pageView = idlePageView(browser, site.docsPageUrl, opts.pageViewIdleMs ?? PAGE_VIEW_IDLE_MS)

        const coldStart = performance.now()
        type Samples = { loader: number[]; index: number[]; model: number[]; requests: number[]; ms: number[]; empty: number }
        const samples = new Map<string, Samples>()
        const sampleOf = (engine: EngineId, profile: string) => {
          const key = `${engine}|${profile}`
          let s = samples.get(key)
          if (!s) samples.set(key, (s = { loader: [], index: [], model: [], requests: [], ms: [], empty: 0 }))
          return s
        }
        for (const profile of profiles) {
          for (const [n, { q, i }] of answerable.entries()) {
            // Engines alternate within a question, so machine noise hits all of them alike.
            for (const p of site.pages) {
              const full = fullCoverage(p.engine, primary)
              if (!full && (profile.throttle || n >= opts.loads)) continue
              const visit = () => coldVisit(browser, site.url(p), queryFor(p.engine, q.q), profile, p.needsVectors ? vectors?.[i] : undefined)
              const what = `${engineLabel(p.engine)} cold visit at ${profile.name} for "${q.q}"`
              // One visit stalling on a loaded machine is retried once, in the log; twice is a failure.
              const r = await visit()
                .catch((err: unknown) => {
                  console.warn(`  ${what} failed (${err instanceof Error ? err.message.split('\n')[0] : String(err)}); retrying once`)
                  return visit()
                })
                .catch((err: unknown) => {
                  throw new Error(`${what} failed twice: ${err instanceof Error ? err.message : String(err)}`, { cause: err })
                })
              const s = sampleOf(p.engine, profile.name)
              if (!r.hits) {
                s.empty++
                continue // no result, no "first result" to count to
              }
              const sum: Record<Role, number> = { loader: 0, index: 0, model: 0 }
              for (const t of r.transfers) sum[roleOf(t, isModel)] += t.body
              s.loader.push(sum.loader)
              s.index.push(sum.index)
              s.model.push(sum.model)
              s.requests.push(r.transfers.length)
              s.ms.push(r.ms)
            }
          }
        }
        const coldMs = performance.now() - coldStart

        // Warm latency: one page per engine, a warm-up pass, then alternating timed passes.
        const warmStart = performance.now()
        const tabs = await Promise.all(site.pages.map(async (p) => ({ p, ...(await openEnginePage(browser, site.url(p))) })))
        const warm = new Map<EngineId, number[]>(site.pages.map((p) => [p.engine, []]))
        try {
          for (let pass = 0; pass <= opts.passes; pass++) {
            for (const { p, page } of tabs) {
              const qs = set.questions.map((q) => queryFor(p.engine, q.q))
              const vs = p.needsVectors ? vectors : undefined
              const r = await searchAll(page, qs, K, vs)
              if (pass > 0) warm.get(p.engine)!.push(...r.ms)
            }
          }
        } finally {
          await Promise.all(tabs.map((t) => t.context.close()))
        }

        const rows: BrowserRow[] = site.pages.map((p) => {
          const cold: Record<string, ColdFigures> = {}
          for (const profile of profiles) {
            const s = samples.get(`${p.engine}|${profile.name}`)
            if (!s) continue
            const [loader, index, model] = [median(s.loader), median(s.index), median(s.model)]
            cold[profile.name] = {
              loader,
              index,
              model,
              // Median of the per-visit totals, not the sum of the part medians.
              total: median(s.loader.map((l, j) => l + s.index[j]! + s.model[j]!)),
              requests: median(s.requests),
              ms: median(s.ms),
              samples: s.ms.length,
              empty: s.empty,
            }
          }
          const w = warm.get(p.engine)!
          return { engine: p.engine, cold, warm: { medianMs: median(w), p95Ms: p95(w), samples: w.length } }
        })
        const viewed = await pageView
        const files = viewed.map((t) => ({ path: new URL(t.url).pathname, bytes: t.body }))
        out.push({
          corpus: c.spec.name,
          set: set.name,
          profiles: profiles.map((p) => p.name),
          rows,
          pageView: {
            bytes: files.reduce((s, f) => s + f.bytes, 0),
            requests: files.length,
            idleMs: opts.pageViewIdleMs ?? PAGE_VIEW_IDLE_MS,
            files,
          },
          phases: { coldMs, warmMs: performance.now() - warmStart },
        })
      } finally {
        await site.server.close()
      }
    }
  } finally {
    if (!opts.browser) await browser.close()
  }
  return out
}

/** The docpilot row peers are compared with: hybrid when the index has it. */
export function primaryRow(rows: BrowserRow[]): BrowserRow {
  return rows.find((r) => r.engine === 'docpilot-hybrid') ?? rows.find((r) => r.engine === 'docpilot-lexical')!
}

/** The unthrottled cold figures (the bytes table), or undefined for an engine that ran none. */
export const bytesOf = (row: BrowserRow | undefined) => row?.cold[NETWORK_PROFILES[0]!.name]

export function formatBrowser(results: BrowserResult[]): string {
  const lines: string[] = []
  for (const r of results) {
    const dp = primaryRow(r.rows)
    const dpBytes = bytesOf(dp)
    lines.push(
      `browser: ${r.corpus} (${r.set}; Chromium; cold visits = fresh context per answerable question, ${dp.warm.samples} warm queries; ` +
        `ratios ${engineLabel(dp.engine)} / row, below 1 = docpilot smaller or faster)`,
    )
    lines.push(
      `  ${'engine (unthrottled)'.padEnd(24)}${'code'.padStart(10)}${'index'.padStart(10)}${'model'.padStart(10)}${'total'.padStart(10)}${'dp/peer'.padStart(9)}` +
        `${'reqs'.padStart(6)}${'visits'.padStart(8)}${'warm med'.padStart(11)}${'p95'.padStart(10)}${'dp/peer'.padStart(9)}`,
    )
    for (const row of r.rows) {
      const f = bytesOf(row)
      const self = row === dp
      lines.push(
        `  ${engineLabel(row.engine).padEnd(24)}${(f ? kb(f.loader) : '—').padStart(10)}${(f ? kb(f.index) : '—').padStart(10)}` +
          `${(f?.model ? kb(f.model) : '—').padStart(10)}${(f ? kb(f.total) : '—').padStart(10)}` +
          `${(self || !f || !dpBytes ? '' : ratio(dpBytes.total, f.total)).padStart(9)}${String(f?.requests ?? '—').padStart(6)}` +
          `${(f ? `${f.samples}${f.empty ? `+${f.empty}∅` : ''}` : '—').padStart(8)}` +
          `${ms(row.warm.medianMs).padStart(11)}${ms(row.warm.p95Ms).padStart(10)}` +
          `${(self ? '' : ratio(dp.warm.medianMs, row.warm.medianMs)).padStart(9)}`,
      )
    }
    lines.push(`  time to the first result painted, cold visit (median ms; bytes median):`)
    for (const profile of r.profiles) {
      const cells = r.rows
        .filter((row) => row.cold[profile] && (row === dp || row.engine === 'pagefind'))
        .map((row) => {
          const f = row.cold[profile]!
          const vs = row === dp ? '' : ` (${ratio(dp.cold[profile]?.ms ?? NaN, f.ms)})`
          return `${engineLabel(row.engine)} ${ms(f.ms)}${vs}, ${kb(f.total)} in ${f.requests} requests`
        })
      lines.push(`    ${profile.padEnd(20)} ${cells.join('  |  ')}`)
    }
    lines.push(
      `  page view without intent (docs page + loader, idle ${(r.pageView.idleMs / 1000).toFixed(0)} s): ${kb(r.pageView.bytes)} in ${r.pageView.requests} requests` +
        (r.pageView.files.length ? ` (${r.pageView.files.map((f) => `${f.path} ${kb(f.bytes)}`).join(', ')})` : ''),
    )
    lines.push(`  (cold visits ${(r.phases.coldMs / 1000).toFixed(1)} s, warm passes ${(r.phases.warmMs / 1000).toFixed(1)} s)`, '')
  }
  return lines.join('\n')
}

/** Harness entry (`--only browser`): cold visits per answerable question; warm passes scale with `--rounds`. */
export async function run(opts: CompareOptions): Promise<BrowserResult[]> {
  const results = await runBrowser({
    ...opts,
    questions: compareQuestions(opts),
    loads: opts.smoke ? 1 : 3,
    ...(opts.smoke ? { maxQuestions: 2, pageViewIdleMs: 5_000 } : {}),
    passes: opts.smoke ? 1 : Math.max(5, opts.rounds),
  })
  opts.log(formatBrowser(results))
  return results
}
