/** The insights report as Markdown: short enough for a pull-request comment. */
import { OUTCOMES, sectionLabel, type Report } from './report.ts'

/** Sample questions shown per gap group (the export has them all). */
export const SAMPLES = 3

const pct = (x: number) => `${Math.round(x * 100)}%`
/** Table cells: a pipe or a line break in a reader's question must not break the table. */
const cell = (s: string) => s.replace(/\\/g, '\\\\').replace(/\|/g, '\\|').replace(/[\r\n]+/g, ' ')
const code = (s: string) => '`' + s.replace(/`/g, "'") + '`'

export function renderMarkdown(report: Report): string {
  const out: string[] = ['# docpilot insights', '']
  if (report.turns === 0) {
    out.push('No turns stored yet. Insights are collected when `insights.enabled` is true in the docpilot config (re-index and redeploy the proxy after turning it on).', '')
    return out.join('\n')
  }
  out.push(`${report.turns} turns from ${report.from!.slice(0, 10)} to ${report.to!.slice(0, 10)}; ${report.ratings.down} thumbs down, ${report.ratings.up} thumbs up.`, '')

  out.push('## Outcomes', '', '| Outcome | Turns | Share |', '|---|---:|---:|')
  for (const o of OUTCOMES) out.push(`| ${o} | ${report.outcomes[o]} | ${pct(report.outcomes[o] / report.turns)} |`)
  out.push('')

  out.push('## Gaps: refused and thumbs-down turns by the section they landed nearest', '')
  if (report.gaps.length === 0) out.push('None.', '')
  else {
    out.push('| Readers | Refused | Thumbs down | Nearest sections | Sample questions |', '|---:|---:|---:|---|---|')
    for (const g of report.gaps) {
      const near = g.nearest.map((s) => `${cell(sectionLabel(s))} (${code(s.path)})`).join('<br>')
      const samples = g.questions.slice(0, SAMPLES).map((q) => cell(q)).join('<br>') || '(question text not stored)'
      out.push(`| ${g.readers} | ${g.refused} | ${g.thumbsDown} | ${near} | ${samples} |`)
    }
    out.push('')
  }

  out.push('## Answer ladder', '', '| Rung | Member | Answered | Share of answers | Turns begun cooling |', '|---:|---|---:|---:|---:|')
  for (const r of report.rungs) out.push(`| ${r.index === Number.MAX_SAFE_INTEGER ? '–' : r.index + 1} | ${r.member} | ${r.answered} | ${pct(r.share)} | ${r.cooling} |`)
  out.push('')

  out.push('## Most cited sections', '')
  if (report.cited.length === 0) out.push('No answer cited a section yet.', '')
  else {
    out.push('| Citations | Section | Page |', '|---:|---|---|')
    for (const c of report.cited) out.push(`| ${c.count} | ${cell(sectionLabel(c))} | ${code(c.path)} |`)
    out.push('')
  }
  if (report.neverCited) {
    out.push(`## Pages never cited (${report.neverCited.length})`, '')
    for (const p of report.neverCited) out.push(`- ${cell(p.title)} (${code(p.path)})`)
    out.push('')
  }

  const r = report.retrieval
  out.push('## Retrieval health', '', `Hybrid turns: ${r.hybrid}; lexical-only: ${r.lexical}; degraded (embedder lost): ${r.degraded}.`, '')
  out.push('| Gate score | Passed | Refused |', '|---|---:|---:|')
  for (const b of report.gate) out.push(`| ${b.from.toFixed(1)}–${(b.from + 0.1).toFixed(1)} | ${b.passed} | ${b.refused} |`)
  out.push('')
  return out.join('\n')
}
