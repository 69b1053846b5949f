import { describe, expect, it } from 'vitest'
import type { EventRecord, EventRow } from '../../proxy/events.ts'
import { renderHtml } from './html.ts'
import { renderMarkdown } from './markdown.ts'
import { buildReport, gapQuestions, parseEvents } from './report.ts'

const CONTEXT = { path: 'api/context.md', anchor: 'set-get', trail: ['Context', 'set() / get()'] }
const ROUTING = { path: 'api/routing.md', anchor: 'basic', trail: ['Routing', 'Basic'] }
const DEPLOY = { path: 'deploy.md', anchor: '', trail: ['Deploy'] }

let n = 0
function event(outcome: EventRow['outcome'], over: Partial<EventRecord> & { question?: string; rating?: 'up' | 'down'; day?: string } = {}): EventRow {
  const { question, rating, day, ...rest } = over
  const record: EventRecord = {
    outcome,
    retrieval: { mode: 'hybrid', degraded: false, gate: { pass: outcome !== 'refused', score: outcome === 'refused' ? 0.23 : 0.71 }, passages: 8 },
    sections: [{ ...CONTEXT, cited: outcome === 'answered' }, { ...ROUTING, cited: false }],
    ladder: outcome === 'answered' ? { provider: 'openai', index: 0, freePool: null } : null,
    cooling: [],
    stages: { retrieveMs: 10, answerMs: null, totalMs: 10 },
    ...rest,
  }
  n++
  return { id: `turn-${n}`, tab: 'tab-1', createdAt: `${day ?? '2026-03-02'}T10:00:0${n % 10}.000Z`, outcome, record: JSON.stringify(record), question: question ?? null, rating: rating ?? null }
}

const rows: EventRow[] = [
  event('answered', { day: '2026-03-01' }),
  event('answered', { ladder: { provider: 'gemini', index: 1, freePool: null }, cooling: ['openai'] }),
  event('answered', { rating: 'down', question: 'why does c.get return undefined | sometimes?' }),
  event('refused', { question: 'how do <b>zebras</b> migrate?' }),
  event('refused', { sections: [{ ...ROUTING, cited: false }], retrieval: { mode: 'lexical', degraded: true, gate: { pass: false, score: 0.05 }, passages: 3 } }),
  event('rate-limited', { cooling: ['openai', 'gemini'] }),
  { ...event('hybrid'), record: 'not json' },
]

describe('insights report', () => {
  const { events, skipped } = parseEvents(rows)
  const report = buildReport(events, { pages: [{ path: 'api/context.md', title: 'Context' }, { path: 'deploy.md', title: 'Deploy' }] })

  it('counts outcomes per day, and skips records it cannot read', () => {
    expect(skipped).toEqual(['turn-7'])
    expect(report.turns).toBe(6)
    expect(report.outcomes).toMatchObject({ answered: 3, refused: 2, 'rate-limited': 1, hybrid: 0 })
    expect(report.days.map((d) => [d.day, d.outcomes.answered])).toEqual([['2026-03-01', 1], ['2026-03-02', 2]])
  })

  it('groups refused and thumbs-down turns by the section they landed nearest, biggest first, with or without text', () => {
    expect(report.gaps.map((g) => [g.section.path, g.count, g.refused, g.thumbsDown])).toEqual([
      ['api/context.md', 2, 1, 1],
      ['api/routing.md', 1, 1, 0],
    ])
    expect(report.gaps[0]!.questions).toEqual(['how do <b>zebras</b> migrate?', 'why does c.get return undefined | sometimes?'])
    expect(report.gaps[0]!.nearest.map((s) => s.path)).toEqual(['api/context.md', 'api/routing.md'])
    expect(report.gaps[1]!.questions).toEqual([])
  })

  it('counts answers per rung and turns begun with a member cooling', () => {
    expect(report.rungs).toEqual([
      { member: 'openai', index: 0, answered: 2, share: 2 / 3, cooling: 2 },
      { member: 'gemini', index: 1, answered: 1, share: 1 / 3, cooling: 1 },
    ])
  })

  it('lists cited sections, pages never cited, gate scores and degraded turns', () => {
    expect(report.cited).toEqual([{ ...CONTEXT, count: 3 }])
    expect(report.neverCited).toEqual([{ path: 'deploy.md', title: 'Deploy' }])
    expect(report.gate[0]).toEqual({ from: 0, passed: 0, refused: 1 })
    expect(report.gate[2]).toEqual({ from: 0.2, passed: 0, refused: 1 })
    expect(report.gate[7]!.passed).toBe(4)
    expect(report.retrieval).toEqual({ hybrid: 5, lexical: 1, degraded: 1 })
  })

  it('exports the gap questions in the eval question format with gold empty', () => {
    expect(gapQuestions(report)).toEqual([
      { id: 'gap-001', q: 'how do <b>zebras</b> migrate?', kind: 'paraphrase', gold: [], nearest: [{ path: CONTEXT.path, trail: CONTEXT.trail }, { path: ROUTING.path, trail: ROUTING.trail }] },
      { id: 'gap-002', q: 'why does c.get return undefined | sometimes?', kind: 'paraphrase', gold: [], nearest: [{ path: CONTEXT.path, trail: CONTEXT.trail }, { path: ROUTING.path, trail: ROUTING.trail }] },
    ])
  })

  it('renders readers\' text escaped: no markup in the page, no broken table in the Markdown', () => {
    const html = renderHtml(report, new Date('2026-03-03T00:00:00Z'))
    expect(html).toContain('how do &lt;b&gt;zebras&lt;/b&gt; migrate?')
    expect(html).not.toContain('<b>zebras')
    expect(html).not.toMatch(/<script|https?:\/\//)
    const md = renderMarkdown(report)
    expect(md).toContain('undefined \\| sometimes?')
    const gapRows = md.split('\n').filter((l) => l.includes('api/context.md') && l.includes('sometimes'))
    expect(gapRows).toHaveLength(1)
    expect(gapRows[0]!.split(/(?<!\\)\|/).length).toBe(7)
  })

  it('counts a gap\'s readers by tab: one reader rephrasing a refused question three times is one reader, and ranks below two', () => {
    const refused = (tab: string, section: typeof CONTEXT) => ({ ...event('refused', { sections: [{ ...section, cited: false }] }), tab })
    const rephrased = buildReport(parseEvents([refused('tab-a', CONTEXT), refused('tab-a', CONTEXT), refused('tab-a', CONTEXT), refused('tab-b', ROUTING), refused('tab-c', ROUTING)]).events)
    const gaps = renderMarkdown(rephrased).split('## Gaps')[1]!.split('\n## ')[0]!
    // Readers, refused, thumbs down, and the section.
    const rows = gaps.split('\n').filter((l) => /^\| \d/.test(l)).map((l) => [...l.split(' | ').slice(0, 3), /`([^`]+)`/.exec(l)![1]])
    expect(rows).toEqual([['| 2', '2', '0', 'api/routing.md'], ['| 1', '3', '0', 'api/context.md']])
  })

  it('says how to turn insights on when nothing is stored', () => {
    const empty = buildReport([])
    expect(renderMarkdown(empty)).toMatch(/insights\.enabled/)
    expect(renderHtml(empty, new Date())).toMatch(/insights\.enabled/)
  })
})
