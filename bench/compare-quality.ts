/**
 * Retrieval quality side by side: R@1, R@8 and MRR@8 over the answerable
 * questions of each set, scored by core/eval (the rule of
 * shared/eval/README.md), for docpilot hybrid, docpilot lexical-only,
 * Pagefind, Orama BM25 and Orama hybrid (docpilot's vectors).
 * docpilot and Orama run in Node (the same core code the browser runs);
 * Pagefind has only a browser API, so it runs in Chromium. A peer's hit is
 * mapped back to path + heading trail through its URL and anchor.
 */
import type { Browser } from '@playwright/test'
import { scoreRun, type EvalReport, type EvalQuestion, type QueryOutput } from '../core/eval/score.ts'
import { prepareCorpus, type PreparedCorpus } from './compare-corpora.ts'
import { serveCorpus, type EngineId } from './compare-pages.ts'
import { compareQuestions, corporaOf, loadQuestionSets, workRootOf, type CompareOptions, type QuestionSet } from './compare-questions.ts'
import { ratio } from './stats.ts'
import { sectionKeyOfHref, sectionsByUrl } from './render-html.ts'
import { launchChromium, openEnginePage, searchAll } from './peers/chromium.ts'
import { embedQueries } from './peers/docpilot-vectors.ts'
import { toKeywords } from './peers/keywords.ts'
import { searchOrama } from './peers/orama.ts'
import type { PageHit } from './peers/page-engine.ts'

const K = 8

export interface QualityRow {
  engine: EngineId
  /** Why an engine has no figures (e.g. no dense channel in the index). */
  skipped?: string
  r1?: number
  r8?: number
  mrr?: number
  /** Share of off-topic questions refused / answerable wrongly refused (engines with a gate). */
  gate?: EvalReport['gate']
  misses?: string[]
}

export interface QualityResult {
  set: string
  corpus: string
  answerable: number
  offTopic: number
  rows: QualityRow[]
}

type Ranked = Array<{ path: string; trail: string[] }>

function report(engine: EngineId, questions: EvalQuestion[], ranked: Ranked[], gates?: QueryOutput['gate'][]): QualityRow {
  const outputs: QueryOutput[] = questions.map((q, i) => ({
    id: q.id,
    mode: 'lexical',
    gate: gates?.[i] ?? { pass: true, score: 0 },
    results: ranked[i]!,
  }))
  const r = scoreRun(questions, outputs)
  const all = r.byKind.all
  return {
    engine,
    r1: all?.recall[1] ?? 0,
    r8: all?.recall[8] ?? 0,
    mrr: all?.mrr ?? 0,
    ...(gates ? { gate: r.gate } : {}),
    misses: r.misses,
  }
}

/** Hits that carry only a URL are mapped through docpilot's own url#anchor table. */
export function mapHits(hits: PageHit[], table: Map<string, { path: string; trail: string[] }>): Ranked {
  return hits.flatMap((h) => {
    if (h.path && h.trail) return [{ path: h.path, trail: h.trail }]
    const found = h.href ? table.get(sectionKeyOfHref(h.href)) : undefined
    return found ? [found] : []
  })
}

async function docpilotRows(c: PreparedCorpus, questions: EvalQuestion[]): Promise<QualityRow[]> {
  const rows: QualityRow[] = []
  for (const lexicalOnly of [false, true]) {
    const engine: EngineId = lexicalOnly ? 'docpilot-lexical' : 'docpilot-hybrid'
    const ranked: Ranked[] = []
    const gates: QueryOutput['gate'][] = []
    let mode = 'lexical'
    for (const q of questions) {
      const res = await c.index.search(q.q, { k: K, lexicalOnly })
      mode = res.mode
      ranked.push(res.results)
      gates.push(res.gate)
    }
    if (!lexicalOnly && mode !== 'hybrid') {
      rows.push({ engine, skipped: 'the index has no dense channel' })
      continue
    }
    rows.push(report(engine, questions, ranked, gates))
  }
  return rows
}

/** Orama searched in Node over the databases the build made (the same code its bench page runs). */
async function oramaRows(c: PreparedCorpus, questions: EvalQuestion[]): Promise<QualityRow[]> {
  const rows: QualityRow[] = []
  const ranked: Ranked[] = []
  for (const q of questions) ranked.push(await searchOrama(c.oramaDbs.bm25!, q.q, { k: K }))
  rows.push(report('orama-bm25', questions, ranked))

  const hybrid = c.oramaDbs.hybrid
  const qv = hybrid ? await embedQueries(c.docpilotDir, c.index, questions.map((q) => q.q)) : null
  if (!hybrid || !qv) {
    rows.push({ engine: 'orama-hybrid', skipped: 'the docpilot index has no vectors to share' })
    return rows
  }
  const rankedH: Ranked[] = []
  for (const [i, q] of questions.entries()) rankedH.push(await searchOrama(hybrid, q.q, { k: K, queryVector: qv[i]! }))
  rows.push(report('orama-hybrid', questions, rankedH))
  return rows
}

async function pagefindRow(c: PreparedCorpus, questions: EvalQuestion[], browser: Browser): Promise<QualityRow> {
  const site = await serveCorpus(c)
  try {
    const page = site.pages.find((p) => p.engine === 'pagefind')!
    const { context, page: tab } = await openEnginePage(browser, site.url(page))
    try {
      const { hits } = await searchAll(tab, questions.map((q) => toKeywords(q.q)), K)
      const table = sectionsByUrl(c.chunks)
      return report('pagefind', questions, hits.map((h) => mapHits(h, table)))
    } finally {
      await context.close()
    }
  } finally {
    await site.server.close()
  }
}

export async function runQuality(
  opts: Pick<CompareOptions, 'corpora' | 'workDir'> & { questions: string[]; browser?: Browser },
): Promise<QualityResult[]> {
  const sets: QuestionSet[] = loadQuestionSets(opts.questions, corporaOf(opts))
  const browser = opts.browser ?? (await launchChromium())
  try {
    const out: QualityResult[] = []
    for (const set of sets) {
      const c = await prepareCorpus(set.corpus, workRootOf(opts))
      const answerable = set.questions.filter((q) => q.gold.length > 0).length
      const rows = [
        ...(await docpilotRows(c, set.questions)),
        await pagefindRow(c, set.questions, browser),
        ...(await oramaRows(c, set.questions)),
      ]
      out.push({ set: set.name, corpus: set.corpus.name, answerable, offTopic: set.questions.length - answerable, rows })
    }
    return out
  } finally {
    if (!opts.browser) await browser.close()
  }
}

const ENGINE_LABEL: Record<EngineId, string> = {
  'docpilot-hybrid': 'docpilot hybrid',
  'docpilot-lexical': 'docpilot lexical-only',
  pagefind: 'Pagefind 1.6',
  'orama-bm25': 'Orama 3 BM25',
  'orama-hybrid': 'Orama 3 hybrid',
}
export const engineLabel = (e: EngineId) => ENGINE_LABEL[e]

const f3 = (n: number | undefined) => (n === undefined ? '—' : n.toFixed(3))

/** The docpilot row peers are compared with: hybrid when the index has it, else lexical-only. */
function primaryRow(rows: QualityRow[]): QualityRow | undefined {
  const usable = rows.filter((r) => !r.skipped)
  return usable.find((r) => r.engine === 'docpilot-hybrid') ?? usable.find((r) => r.engine === 'docpilot-lexical')
}

/** The table `npm run bench -- --questions FILE` prints; ratios are docpilot / row (above 1: docpilot ahead). */
export function formatQuality(results: QualityResult[]): string {
  const lines: string[] = []
  for (const r of results) {
    const dp = primaryRow(r.rows)
    lines.push(`quality: ${r.set} on ${r.corpus} (${r.answerable} answerable, ${r.offTopic} off-topic; k=${K}; ratios ${dp ? ENGINE_LABEL[dp.engine] : 'docpilot'} / row, higher = docpilot ahead)`)
    lines.push(
      `  ${'engine'.padEnd(24)}${'R@1'.padStart(7)}${'R@8'.padStart(7)}${'MRR@8'.padStart(8)}` +
        `${'dp/R@8'.padStart(8)}${'dp/MRR'.padStart(8)}   gate (off-topic refused / answerable refused)`,
    )
    for (const row of r.rows) {
      const label = ENGINE_LABEL[row.engine].padEnd(24)
      if (row.skipped) {
        lines.push(`  ${label}   n/a: ${row.skipped}`)
        continue
      }
      const self = row === dp
      const gate = row.gate ? `${pct(row.gate.offTopicRefused)} / ${pct(row.gate.answerableRefused)}` : 'no gate'
      lines.push(
        `  ${label}${f3(row.r1).padStart(7)}${f3(row.r8).padStart(7)}${f3(row.mrr).padStart(8)}` +
          `${(self || !dp ? '' : ratio(dp.r8!, row.r8!)).padStart(8)}${(self || !dp ? '' : ratio(dp.mrr!, row.mrr!)).padStart(8)}   ${gate}`,
      )
    }
    lines.push('')
  }
  return lines.join('\n')
}

const pct = (x: number) => `${Math.round(x * 100)}%`

/** Harness entry (`--only quality`): `--questions FILE` (repeatable) or the dev sets; `--smoke` the first corpus only. */
export async function run(opts: CompareOptions): Promise<QualityResult[]> {
  const results = await runQuality({ ...opts, questions: compareQuestions(opts) })
  opts.log(formatQuality(results))
  return results
}
