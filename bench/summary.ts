/**
 * One side-by-side table per corpus and question set, joining what the build,
 * browser and quality benchmarks of ONE run measured: the table
 * bench/README.md shows. Each peer figure carries the docpilot/peer ratio;
 * docpilot's own row is the one the ratios are taken against (hybrid when the
 * index has a dense channel).
 */
import { writeFile } from 'node:fs/promises'
import { availableParallelism, cpus } from 'node:os'
import { join } from 'node:path'
import { bytesOf, primaryRow, type BrowserResult, type BrowserRow } from './compare-browser.ts'
import { caCertsLine, reindexLine, type BuildResult, type BuildRow } from './compare-build.ts'
import type { EngineId } from './compare-pages.ts'
import { engineLabel, type QualityResult, type QualityRow } from './compare-quality.ts'
import type { BenchOutcome } from './harness.ts'
import { kb, ms, ratio } from './stats.ts'

const ENGINES: EngineId[] = ['docpilot-hybrid', 'docpilot-lexical', 'pagefind', 'orama-bm25', 'orama-hybrid']

/** The build that produced what each engine row serves (both docpilot modes read one index). */
const BUILD_OF: Record<EngineId, string> = {
  'docpilot-hybrid': 'docpilot',
  'docpilot-lexical': 'docpilot',
  pagefind: 'Pagefind',
  'orama-bm25': 'Orama BM25',
  'orama-hybrid': 'Orama hybrid',
}

export interface SummaryInput {
  build?: BuildResult[]
  browser?: BrowserResult[]
  quality?: QualityResult[]
}

interface Cells {
  build?: BuildRow
  browser?: BrowserRow
  quality?: QualityRow
}

const f3 = (n: number | undefined) => (n === undefined ? '—' : n.toFixed(3))
const withRatio = (text: string, dp: number | undefined, peer: number | undefined, self: boolean) =>
  self || dp === undefined || peer === undefined ? text : `${text} (${ratio(dp, peer)})`

function table(title: string, cells: Map<EngineId, Cells>, notes: string[]): string[] {
  const primary: EngineId = cells.get('docpilot-hybrid')?.browser || cells.get('docpilot-hybrid')?.quality?.r8 !== undefined ? 'docpilot-hybrid' : 'docpilot-lexical'
  const dp = cells.get(primary) ?? {}
  const lines = [
    `### ${title}`,
    '',
    '| engine | build wall / CPU (median) | index gzip (raw) | to first result, cold: code + index + model = total | warm query median / p95 | R@1 | R@8 | MRR@8 |',
    '|---|---|---|---|---|---|---|---|',
  ]
  for (const engine of ENGINES) {
    const c = cells.get(engine)
    if (!c || (!c.build && !c.browser && (!c.quality || c.quality.skipped))) continue
    const self = engine === primary
    const b = c.build
    const f = bytesOf(c.browser)
    const w = c.browser?.warm
    const q = c.quality && !c.quality.skipped ? c.quality : undefined
    const dq = dp.quality && !dp.quality.skipped ? dp.quality : undefined
    lines.push(
      '| ' +
        [
          self ? `**${engineLabel(engine)}**` : engineLabel(engine),
          b
            ? `${withRatio(ms(b.medianMs), dp.build?.medianMs, b.medianMs, self || b === dp.build)} / ` +
              withRatio(ms(b.cpuMedianMs), dp.build?.cpuMedianMs, b.cpuMedianMs, self || b === dp.build)
            : '—',
          b ? `${withRatio(kb(b.bytes.gzip), dp.build?.bytes.gzip, b.bytes.gzip, self || b === dp.build)} (${kb(b.bytes.raw)})` : '—',
          f ? withRatio(`${kb(f.loader)} + ${kb(f.index)} + ${f.model ? kb(f.model) : '0'} = ${kb(f.total)}`, bytesOf(dp.browser)?.total, f.total, self) : '—',
          w ? `${withRatio(ms(w.medianMs), dp.browser?.warm.medianMs, w.medianMs, self)} / ${ms(w.p95Ms)}` : '—',
          f3(q?.r1),
          withRatio(f3(q?.r8), dq?.r8, q?.r8, self),
          withRatio(f3(q?.mrr), dq?.mrr, q?.mrr, self),
        ].join(' | ') +
        ' |',
    )
  }
  return [...lines, '', ...notes, '']
}

/** Cold visits by network profile, docpilot against Pagefind, and the page view without intent. */
function coldTable(r: BrowserResult): string[] {
  const dp = primaryRow(r.rows)
  const pf = r.rows.find((row) => row.engine === 'pagefind')
  const lines = [
    `Cold visit, one per answerable question (fresh context, empty cache), medians: time from navigation start to the first result painted, and bytes (${engineLabel(dp.engine)} / Pagefind in brackets).`,
    '',
    `| network | ${engineLabel(dp.engine)} time | Pagefind time | ${engineLabel(dp.engine)} bytes (requests) | Pagefind bytes (requests) |`,
    '|---|---|---|---|---|',
  ]
  for (const profile of r.profiles) {
    const d = dp.cold[profile]
    const p = pf?.cold[profile]
    if (!d) continue
    lines.push(
      `| ${profile} | ${ms(d.ms)}${p ? ` (${ratio(d.ms, p.ms)})` : ''} | ${p ? ms(p.ms) : '—'} | ` +
        `${kb(d.total)}${p ? ` (${ratio(d.total, p.total)})` : ''} (${d.requests}) | ${p ? `${kb(p.total)} (${p.requests})` : '—'} |`,
    )
  }
  const v = r.pageView
  lines.push(
    '',
    `Page view without intent (a docs page with the loader script, idle ${(v.idleMs / 1000).toFixed(0)} s): ${kb(v.bytes)} in ${v.requests} requests` +
      (v.files.length ? ` (${v.files.map((f) => `\`${f.path}\` ${kb(f.bytes)}`).join(', ')}).` : '.'),
    '',
  )
  return lines
}

/** Markdown for the figures of one run; '' when the run measured none of them. */
export function formatSummary(input: SummaryInput, machine: string): string {
  const keys = new Map<string, { corpus: string; set?: string }>()
  for (const r of input.browser ?? []) keys.set(`${r.corpus}|${r.set}`, { corpus: r.corpus, set: r.set })
  for (const r of input.quality ?? []) keys.set(`${r.corpus}|${r.set}`, { corpus: r.corpus, set: r.set })
  for (const r of input.build ?? []) {
    if (![...keys.values()].some((k) => k.corpus === r.corpus)) keys.set(r.corpus, { corpus: r.corpus })
  }
  if (!keys.size) return ''
  const out = [
    `Measured ${machine}.`,
    'Ratios in brackets are docpilot (bold row) / that row: below 1 is docpilot smaller or faster; for R@8 and MRR above 1 is docpilot ahead.',
    '',
  ]
  for (const { corpus, set } of keys.values()) {
    const build = input.build?.find((r) => r.corpus === corpus)
    const browser = input.browser?.find((r) => r.corpus === corpus && r.set === set)
    const quality = input.quality?.find((r) => r.corpus === corpus && r.set === set)
    const cells = new Map<EngineId, Cells>()
    for (const engine of ENGINES) {
      cells.set(engine, {
        build: build?.rows.find((r) => r.engine === BUILD_OF[engine]),
        browser: browser?.rows.find((r) => r.engine === engine),
        quality: quality?.rows.find((r) => r.engine === engine),
      })
    }
    const notes: string[] = []
    if (build) {
      notes.push(`${build.pages} pages, ${build.chunks} chunks; build = median of ${build.rows[0]?.times.length ?? 0} rounds.`)
      for (const e of build.extras) notes.push(`Also served: ${e.engine} ${e.what}, ${kb(e.gzip)} gzip.`)
      if (build.reindex) notes.push(`docpilot re-index after one page changed (${build.reindex.page}): ${reindexLine(build)}.`)
      const ca = caCertsLine(build)
      if (ca) notes.push(`${ca}.`)
    }
    if (quality) notes.push(`Quality over ${quality.answerable} answerable questions (${quality.offTopic} off-topic not scored for recall).`)
    const setName = set ? ` — ${set}` : ''
    out.push(...table(`${corpus}${setName}`, cells, notes.map((n) => `${n}  `)))
    if (browser) out.push(...coldTable(browser))
  }
  return out.join('\n')
}

export function machineLine(at = new Date()): string {
  const cpu = cpus()[0]?.model.trim() ?? 'unknown CPU'
  return `${at.toISOString().slice(0, 16).replace('T', ' ')} UTC on ${availableParallelism()} cores (${cpu}), Node ${process.version}`
}

/** Writes `<results>/summary.md` when the run measured comparison figures; returns its path. */
export async function writeSummary(resultsDir: string, outcomes: BenchOutcome[]): Promise<string | null> {
  const ok = (name: string) => outcomes.find((o) => o.name === name && o.status === 'ok')?.result
  const text = formatSummary(
    {
      build: ok('build') as BuildResult[] | undefined,
      browser: ok('browser') as BrowserResult[] | undefined,
      quality: ok('quality') as QualityResult[] | undefined,
    },
    machineLine(),
  )
  if (!text) return null
  const file = join(resultsDir, 'summary.md')
  await writeFile(file, text + '\n')
  return file
}
