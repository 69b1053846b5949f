/**
 * The insights report as one self-contained HTML page: inline CSS and inline
 * SVG charts, no script, no font, no request of any kind, so it opens from
 * disk or a CI artifact. Each chart is an image with a text title and
 * description, followed by the table of its numbers for screen readers and
 * copying. Every value from the store is escaped.
 */
import { OUTCOMES, sectionLabel, type Outcome, type Report } from './report.ts'
import { SAMPLES } from './markdown.ts'

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' }
const esc = (s: string | number) => String(s).replace(/[&<>"']/g, (c) => ESCAPES[c]!)
const pct = (x: number) => `${Math.round(x * 100)}%`

/** Colours with at least 3:1 contrast on white, told apart by lightness too (the tables carry the numbers). */
const COLOURS: Record<Outcome, string> = {
  answered: '#1a7f37',
  partial: '#5a8f00',
  hybrid: '#0969da',
  refused: '#cf222e',
  'rate-limited': '#9a6700',
  error: '#6e7781',
}

interface Bar {
  label: string
  parts: { value: number; colour: string; name: string }[]
}

let chartIds = 0

/** Vertical stacked bars with a labelled axis; role=img with its title and description. */
function barChart(title: string, desc: string, bars: Bar[]): string {
  const id = `chart-${++chartIds}`
  const width = Math.max(320, bars.length * 36 + 60)
  const height = 200
  const plot = height - 40
  const max = Math.max(1, ...bars.map((b) => b.parts.reduce((n, p) => n + p.value, 0)))
  const barW = Math.min(28, (width - 60) / Math.max(1, bars.length) - 6)
  const rects = bars
    .map((b, i) => {
      const x = 50 + i * (barW + 6)
      let y = plot + 10
      const stack = b.parts
        .filter((p) => p.value > 0)
        .map((p) => {
          const h = (p.value / max) * plot
          y -= h
          return `<rect x="${x}" y="${y.toFixed(1)}" width="${barW.toFixed(1)}" height="${h.toFixed(1)}" fill="${p.colour}"><title>${esc(b.label)}: ${esc(p.name)} ${p.value}</title></rect>`
        })
        .join('')
      const label = bars.length <= 16 ? `<text x="${(x + barW / 2).toFixed(1)}" y="${height - 12}" text-anchor="middle" class="tick">${esc(b.label)}</text>` : ''
      return stack + label
    })
    .join('')
  return `<svg role="img" aria-labelledby="${id}-t ${id}-d" viewBox="0 0 ${width} ${height}" width="${width}" height="${height}">
<title id="${id}-t">${esc(title)}</title><desc id="${id}-d">${esc(desc)}</desc>
<line x1="46" y1="10" x2="46" y2="${plot + 10}" class="axis"/><line x1="46" y1="${plot + 10}" x2="${width - 4}" y2="${plot + 10}" class="axis"/>
<text x="40" y="16" text-anchor="end" class="tick">${max}</text><text x="40" y="${plot + 10}" text-anchor="end" class="tick">0</text>
${rects}</svg>`
}

function legend(names: Outcome[]): string {
  return `<ul class="legend">${names.map((o) => `<li><span class="swatch" style="background:${COLOURS[o]}"></span>${esc(o)}</li>`).join('')}</ul>`
}

function table(caption: string, head: string[], rows: (string | number)[][], numeric: boolean[] = []): string {
  const th = head.map((h, i) => `<th scope="col"${numeric[i] ? ' class="num"' : ''}>${esc(h)}</th>`).join('')
  const body = rows.map((r) => `<tr>${r.map((c, i) => `<td${numeric[i] ? ' class="num"' : ''}>${c}</td>`).join('')}</tr>`).join('\n')
  return `<table><caption>${esc(caption)}</caption><thead><tr>${th}</tr></thead><tbody>${body}</tbody></table>`
}

const STYLE = `
:root{color-scheme:light}
body{font:16px/1.5 system-ui,-apple-system,"Segoe UI",sans-serif;color:#1f2328;background:#fff;max-width:64rem;margin:0 auto;padding:1rem 1.5rem 3rem}
h1{font-size:1.6rem}h2{font-size:1.25rem;margin-top:2.2rem;border-bottom:1px solid #d0d7de;padding-bottom:.3rem}
table{border-collapse:collapse;margin:.8rem 0;width:100%}caption{text-align:left;font-weight:600;padding:.3rem 0}
th,td{border:1px solid #d0d7de;padding:.35rem .6rem;text-align:left;vertical-align:top}th{background:#f6f8fa}.num{text-align:right}
svg{display:block;max-width:100%;height:auto}.axis{stroke:#57606a}.tick{font-size:11px;fill:#424a53}
.legend{list-style:none;padding:0;display:flex;flex-wrap:wrap;gap:1rem;margin:.3rem 0}.swatch{display:inline-block;width:.9rem;height:.9rem;margin-right:.35rem;vertical-align:-2px}
code{background:#f6f8fa;padding:0 .25rem;border-radius:3px;font-size:.9em}.muted{color:#57606a}
`

export function renderHtml(report: Report, generatedAt: Date): string {
  chartIds = 0
  const parts: string[] = []
  const summary = report.turns
    ? `${report.turns} turns from ${esc(report.from!.slice(0, 10))} to ${esc(report.to!.slice(0, 10))}; ${report.ratings.down} thumbs down, ${report.ratings.up} thumbs up.`
    : 'No turns stored yet. Insights are collected when <code>insights.enabled</code> is true in the docpilot config.'
  parts.push(`<p>${summary}</p>`)

  if (report.turns) {
    const shown = OUTCOMES.filter((o) => report.outcomes[o] > 0)
    parts.push('<section aria-labelledby="h-outcomes"><h2 id="h-outcomes">Questions over time by outcome</h2>')
    parts.push(
      barChart(
        'Turns per day by outcome',
        `Stacked bars, one per day from ${report.days[0]!.day} to ${report.days.at(-1)!.day}. ${shown.map((o) => `${o}: ${report.outcomes[o]}`).join(', ')}.`,
        report.days.map((d) => ({ label: d.day.slice(5), parts: OUTCOMES.map((o) => ({ value: d.outcomes[o], colour: COLOURS[o], name: o })) })),
      ),
    )
    parts.push(legend(shown))
    parts.push(table('Turns per day', ['Day', ...OUTCOMES], report.days.map((d) => [esc(d.day), ...OUTCOMES.map((o) => d.outcomes[o])]), [false, ...OUTCOMES.map(() => true)]))
    parts.push('</section>')

    parts.push('<section aria-labelledby="h-gaps"><h2 id="h-gaps">Gaps: what the docs did not answer</h2>')
    parts.push('<p class="muted">Refused and thumbs-down turns, grouped by the section they landed nearest, most readers first.</p>')
    parts.push(
      report.gaps.length
        ? table(
            'Gap groups',
            ['Readers', 'Refused', 'Thumbs down', 'Nearest sections', 'Sample questions'],
            report.gaps.map((g) => [
              g.readers,
              g.refused,
              g.thumbsDown,
              g.nearest.map((s) => `${esc(sectionLabel(s))} <code>${esc(s.path)}</code>`).join('<br>'),
              g.questions.length ? g.questions.slice(0, SAMPLES).map(esc).join('<br>') : '<span class="muted">question text not stored</span>',
            ]),
            [true, true, true, false, false],
          )
        : '<p>None.</p>',
    )
    parts.push('</section>')

    parts.push('<section aria-labelledby="h-ladder"><h2 id="h-ladder">The answer ladder</h2>')
    parts.push(
      barChart(
        'Share of answers by rung',
        report.rungs.map((r) => `${r.member}: ${pct(r.share)} of answers, began cooling ${r.cooling} times`).join('; ') || 'No answers yet.',
        report.rungs.map((r) => ({ label: r.member, parts: [{ value: r.answered, colour: COLOURS.answered, name: 'answered' }] })),
      ),
    )
    parts.push(
      table(
        'Answers and cooling by member',
        ['Rung', 'Member', 'Answered', 'Share of answers', 'Turns begun cooling'],
        report.rungs.map((r) => [r.index === Number.MAX_SAFE_INTEGER ? '–' : r.index + 1, esc(r.member), r.answered, pct(r.share), r.cooling]),
        [true, false, true, true, true],
      ),
    )
    parts.push('</section>')

    parts.push('<section aria-labelledby="h-cited"><h2 id="h-cited">Sections cited most</h2>')
    parts.push(report.cited.length ? table('Most cited sections', ['Citations', 'Section', 'Page'], report.cited.map((c) => [c.count, esc(sectionLabel(c)), `<code>${esc(c.path)}</code>`]), [true]) : '<p>No answer cited a section yet.</p>')
    if (report.neverCited) {
      parts.push(`<h3>Pages never cited (${report.neverCited.length})</h3>`)
      parts.push(report.neverCited.length ? `<ul>${report.neverCited.map((p) => `<li>${esc(p.title)} <code>${esc(p.path)}</code></li>`).join('')}</ul>` : '<p>Every page was cited at least once.</p>')
    }
    parts.push('</section>')

    const r = report.retrieval
    parts.push('<section aria-labelledby="h-health"><h2 id="h-health">Retrieval health</h2>')
    parts.push(`<p>Hybrid turns: ${r.hybrid}; lexical-only: ${r.lexical}; degraded (embedder lost): ${r.degraded}.</p>`)
    parts.push(
      barChart(
        'Gate score distribution',
        `Turns by gate score in tenths from 0 to 1, passed (blue) and refused (red). Passed: ${report.gate.reduce((n, b) => n + b.passed, 0)}, refused: ${report.gate.reduce((n, b) => n + b.refused, 0)}.`,
        report.gate.map((b) => ({
          label: b.from.toFixed(1),
          parts: [
            { value: b.passed, colour: COLOURS.hybrid, name: 'passed' },
            { value: b.refused, colour: COLOURS.refused, name: 'refused' },
          ],
        })),
      ),
    )
    parts.push(table('Gate scores', ['Score', 'Passed', 'Refused'], report.gate.map((b) => [`${b.from.toFixed(1)}–${(b.from + 0.1).toFixed(1)}`, b.passed, b.refused]), [false, true, true]))
    parts.push('</section>')
  }

  return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>docpilot insights</title>
<style>${STYLE}</style>
</head>
<body>
<main>
<h1>docpilot insights</h1>
<p class="muted">Generated ${esc(generatedAt.toISOString().slice(0, 16).replace('T', ' '))} UTC by <code>docpilot insights</code>.</p>
${parts.join('\n')}
</main>
</body>
</html>
`
}
