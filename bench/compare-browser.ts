/**
 * The reader's side, in Chromium, side by side:
 * - bytes downloaded from a fresh page load to the first result (split into
 *   loader/runtime code, index data, and docpilot's embedding model, which is
 *   counted separately because it is cached after first use);
 * - warm query latency (median, p95) over the question set: each engine's
 *   page is loaded and warmed with one pass, then timed passes alternate
 *   engines. A query's time ends when its top-8 passages are ready to show.
 * Pagefind gets the question as keywords (stop words dropped): it requires
 * every term to match, so a whole question finds nothing.
 */
import type { Browser } from '@playwright/test'
import type { EvalQuestion } from '../core/eval/score.ts'
import { prepareCorpus, type PreparedCorpus } from './compare-corpora.ts'
import { serveCorpus, type EngineId, type EnginePage } from './compare-pages.ts'
import { engineLabel } from './compare-quality.ts'
import { compareQuestions, corporaOf, loadQuestionSets, workRootOf, type CompareOptions } from './compare-questions.ts'
import { kb, median, ms, p95, ratio } from './stats.ts'
import { firstResultTransfers, launchChromium, openEnginePage, searchAll, type Transfer } from './peers/chromium.ts'
import { embedQueries } from './peers/docpilot-vectors.ts'
import { toKeywords } from './peers/keywords.ts'

const K = 8

export interface BrowserRow {
  engine: EngineId
  firstResult: { loader: number; index: number; model: number; total: number; requests: number; ms: number; samples: number }
  warm: { medianMs: number; p95Ms: number; samples: number }
}

export interface BrowserResult {
  corpus: string
  set: string
  rows: BrowserRow[]
  /** Wall time of the fresh-load and warm-pass phases, ms: where a run's minutes go. */
  phases: { loadsMs: number; warmMs: number }
}

type Role = 'loader' | 'index' | 'model'

function roleOf(t: Transfer, modelFiles: Set<string>): Role {
  const path = new URL(t.url).pathname
  const name = path.split('/').pop() ?? ''
  if (path.startsWith('/bench/')) return 'loader'
  if (path.startsWith('/pagefind/') && (/^pagefind(-worker)?\.js$/.test(name) || name.startsWith('wasm.'))) return 'loader'
  if (path.startsWith('/docpilot/') && modelFiles.has(name)) return 'model'
  return 'index'
}

const queryFor = (engine: EngineId, q: string) => (engine === 'pagefind' ? toKeywords(q) : q)

async function queryVectors(c: PreparedCorpus, questions: EvalQuestion[]): Promise<(number[] | undefined)[] | undefined> {
  const v = c.vectors ? await embedQueries(c.docpilotDir, c.index, questions.map((q) => q.q)) : null
  return v ? v.map((x) => Array.from(x)) : undefined
}

export async function runBrowser(opts: Pick<CompareOptions, 'corpora' | 'workDir'> & {
  questions: string[]
  /** Fresh page loads per engine for the bytes figure. */
  loads: number
  /** Timed warm passes over the question set. */
  passes: number
  browser?: Browser
}): Promise<BrowserResult[]> {
  const browser = opts.browser ?? (await launchChromium())
  const out: BrowserResult[] = []
  try {
    for (const set of loadQuestionSets(opts.questions, corporaOf(opts))) {
      const c = await prepareCorpus(set.corpus, workRootOf(opts))
      const site = await serveCorpus(c)
      try {
        const vectors = await queryVectors(c, set.questions)
        const modelFiles = new Set(Object.values(c.index.manifest.embedder.files ?? {}))
        const vecFor = (p: EnginePage, i: number) => (p.needsVectors ? vectors?.[i] : undefined)
        const answerable = set.questions.map((q, i) => ({ q, i })).filter(({ q }) => q.gold.length > 0)

        // Bytes to the first result: fresh context per load, engines alternating.
        const loadsStart = performance.now()
        const first = new Map<EngineId, { loader: number[]; index: number[]; model: number[]; requests: number[]; ms: number[] }>()
        for (const p of site.pages) first.set(p.engine, { loader: [], index: [], model: [], requests: [], ms: [] })
        for (let load = 0; load < opts.loads; load++) {
          for (const p of site.pages) {
            const { q, i } = answerable[load % answerable.length]!
            const r = await firstResultTransfers(browser, site.url(p), queryFor(p.engine, q.q), vecFor(p, i))
            if (!r.hits.length) continue // no result, no "first result" to count to
            const sum: Record<Role, number> = { loader: 0, index: 0, model: 0 }
            for (const t of r.transfers) sum[roleOf(t, modelFiles)] += t.body
            const f = first.get(p.engine)!
            f.loader.push(sum.loader)
            f.index.push(sum.index)
            f.model.push(sum.model)
            f.requests.push(r.transfers.length)
            f.ms.push(r.ms)
          }
        }

        // Warm latency: one page per engine, a warm-up pass, then alternating timed passes.
        const warmStart = performance.now()
        const loadsMs = warmStart - loadsStart
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
          const f = first.get(p.engine)!
          const loader = median(f.loader)
          const index = median(f.index)
          const model = median(f.model)
          const w = warm.get(p.engine)!
          return {
            engine: p.engine,
            firstResult: {
              loader,
              index,
              model,
              total: loader + index,
              requests: median(f.requests),
              ms: median(f.ms),
              samples: f.loader.length,
            },
            warm: { medianMs: median(w), p95Ms: p95(w), samples: w.length },
          }
        })
        out.push({ corpus: c.spec.name, set: set.name, rows, phases: { loadsMs, warmMs: performance.now() - warmStart } })
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
function primary(rows: BrowserRow[]): BrowserRow {
  return rows.find((r) => r.engine === 'docpilot-hybrid') ?? rows.find((r) => r.engine === 'docpilot-lexical')!
}

export function formatBrowser(results: BrowserResult[]): string {
  const lines: string[] = []
  for (const r of results) {
    const dp = primary(r.rows)
    const f = dp.firstResult
    lines.push(
      `browser: ${r.corpus} (${r.set}; Chromium; ${f.samples} fresh loads per engine, ${dp.warm.samples} warm queries; ` +
        `ratios ${engineLabel(dp.engine)} / row, below 1 = docpilot smaller or faster)`,
    )
    lines.push(
      `  ${'engine'.padEnd(24)}${'loader'.padStart(10)}${'index'.padStart(10)}${'total'.padStart(10)}${'dp/peer'.padStart(9)}` +
        `${'model'.padStart(10)}${'warm med'.padStart(11)}${'p95'.padStart(10)}${'dp/peer'.padStart(9)}`,
    )
    for (const row of r.rows) {
      const f = row.firstResult
      const self = row === dp
      lines.push(
        `  ${engineLabel(row.engine).padEnd(24)}${kb(f.loader).padStart(10)}${kb(f.index).padStart(10)}${kb(f.total).padStart(10)}` +
          `${(self ? '' : ratio(dp.firstResult.total, f.total)).padStart(9)}${(f.model ? kb(f.model) : '—').padStart(10)}` +
          `${ms(row.warm.medianMs).padStart(11)}${ms(row.warm.p95Ms).padStart(10)}` +
          `${(self ? '' : ratio(dp.warm.medianMs, row.warm.medianMs)).padStart(9)}`,
      )
    }
    lines.push(`  (fresh loads ${(r.phases.loadsMs / 1000).toFixed(1)} s, warm passes ${(r.phases.warmMs / 1000).toFixed(1)} s)`, '')
  }
  return lines.join('\n')
}

/** Harness entry (`--only browser`): fresh loads and timed passes scale with `--rounds`. */
export async function run(opts: CompareOptions): Promise<BrowserResult[]> {
  const results = await runBrowser({
    ...opts,
    questions: compareQuestions(opts),
    loads: opts.smoke ? 1 : Math.max(3, opts.rounds),
    passes: opts.smoke ? 1 : Math.max(5, opts.rounds),
  })
  opts.log(formatBrowser(results))
  return results
}
