/**
 * What `docpilot insights` tells an owner, computed from stored events: the
 * numbers only, no formatting (markdown.ts and html.ts render it). Gaps are
 * grouped by the section each turn landed nearest (its first stored section),
 * so grouping needs no question text and no model.
 */
import type { EventRecord, EventRow, EventSection } from '../../proxy/events.ts'
import type { MemberId } from '../../core/providers/table.ts'

export const OUTCOMES = ['answered', 'partial', 'hybrid', 'refused', 'rate-limited', 'error'] as const
export type Outcome = (typeof OUTCOMES)[number]

export interface SectionRef {
  path: string
  anchor: string
  trail: string[]
}

export interface GapGroup {
  /** The section these turns landed nearest. */
  section: SectionRef
  /** Turns in the group: refused, thumbs-down, or both. */
  count: number
  /** Browser tabs those turns came from: a reader rephrasing a refused question three times is one reader. */
  readers: number
  refused: number
  thumbsDown: number
  /** Stored questions (only when the owner kept question text), newest first. */
  questions: string[]
  /** The sections these turns landed near, most frequent first (the group's own section first). */
  nearest: (SectionRef & { hits: number })[]
}

export interface RungRow {
  member: MemberId
  /** Position in the chain; the free pool counts as one rung. */
  index: number
  /** Turns this member answered (answered or partial). */
  answered: number
  /** Of all turns a model answered. */
  share: number
  /** Turns that began with this member cooling (stepped aside). */
  cooling: number
}

export interface Report {
  from: string | null
  to: string | null
  turns: number
  outcomes: Record<Outcome, number>
  /** Per UTC day, oldest first. */
  days: { day: string; outcomes: Record<Outcome, number> }[]
  rungs: RungRow[]
  ratings: { up: number; down: number }
  gaps: GapGroup[]
  cited: (SectionRef & { count: number })[]
  /** Pages of the index no answer cited (null: no index given). */
  neverCited: { path: string; title: string }[] | null
  /** Gate scores in tenths: [0, 0.1), ... [0.9, 1.0]; passed and refused separately. */
  gate: { from: number; passed: number; refused: number }[]
  retrieval: { hybrid: number; lexical: number; degraded: number }
  /** How many stored events carry question text. */
  withText: number
}

export interface ParsedEvent {
  row: EventRow
  record: EventRecord
}

/** Rows whose record is not readable are skipped (named in `skipped`), never fatal. */
export function parseEvents(rows: EventRow[]): { events: ParsedEvent[]; skipped: string[] } {
  const events: ParsedEvent[] = []
  const skipped: string[] = []
  for (const row of rows) {
    try {
      events.push({ row, record: JSON.parse(row.record) as EventRecord })
    } catch {
      skipped.push(row.id)
    }
  }
  return { events, skipped }
}

const emptyOutcomes = (): Record<Outcome, number> => Object.fromEntries(OUTCOMES.map((o) => [o, 0])) as Record<Outcome, number>
const sectionKey = (s: Pick<EventSection, 'path' | 'anchor'>) => `${s.path}#${s.anchor}`
const ref = (s: EventSection): SectionRef => ({ path: s.path, anchor: s.anchor, trail: s.trail })
const isOutcome = (o: string): o is Outcome => (OUTCOMES as readonly string[]).includes(o)

export interface ReportOptions {
  /** Every page of the index (path and title), for "never cited". */
  pages?: { path: string; title: string }[]
  /** How many cited sections and gap groups to list. */
  top?: number
}

export function buildReport(events: ParsedEvent[], opts: ReportOptions = {}): Report {
  const top = opts.top ?? 20
  const outcomes = emptyOutcomes()
  const days = new Map<string, Record<Outcome, number>>()
  const rungs = new Map<string, RungRow>()
  const cooling = new Map<MemberId, number>()
  const cited = new Map<string, SectionRef & { count: number }>()
  type Group = GapGroup & { near: Map<string, SectionRef & { hits: number }>; tabs: Set<string> }
  const gaps = new Map<string, Group>()
  const gate = Array.from({ length: 10 }, (_, i) => ({ from: i / 10, passed: 0, refused: 0 }))
  const retrieval = { hybrid: 0, lexical: 0, degraded: 0 }
  const ratings = { up: 0, down: 0 }
  let withText = 0

  for (const { row, record } of events) {
    const outcome = row.outcome
    if (!isOutcome(outcome)) continue
    outcomes[outcome]++
    const day = row.createdAt.slice(0, 10)
    const perDay = days.get(day) ?? emptyOutcomes()
    perDay[outcome]++
    days.set(day, perDay)
    if (row.rating) ratings[row.rating]++
    if (row.question) withText++

    for (const member of record.cooling ?? []) cooling.set(member, (cooling.get(member) ?? 0) + 1)
    if ((outcome === 'answered' || outcome === 'partial') && record.ladder) {
      const key = `${record.ladder.index}:${record.ladder.provider}`
      const rung = rungs.get(key) ?? { member: record.ladder.provider, index: record.ladder.index, answered: 0, share: 0, cooling: 0 }
      rung.answered++
      rungs.set(key, rung)
    }

    const r = record.retrieval
    if (r) {
      retrieval[r.mode]++
      if (r.degraded) retrieval.degraded++
      const bucket = gate[Math.min(9, Math.max(0, Math.floor(r.gate.score * 10)))]!
      if (r.gate.pass) bucket.passed++
      else bucket.refused++
    }

    for (const s of record.sections) {
      if (!s.cited) continue
      const entry = cited.get(sectionKey(s)) ?? { ...ref(s), count: 0 }
      entry.count++
      cited.set(sectionKey(s), entry)
    }

    const refused = outcome === 'refused'
    const down = row.rating === 'down'
    const nearest = record.sections[0]
    if ((refused || down) && nearest) {
      const key = sectionKey(nearest)
      const group: Group = gaps.get(key) ?? { section: ref(nearest), count: 0, readers: 0, refused: 0, thumbsDown: 0, questions: [], nearest: [], near: new Map(), tabs: new Set() }
      group.count++
      group.tabs.add(row.tab)
      group.readers = group.tabs.size
      if (refused) group.refused++
      if (down) group.thumbsDown++
      if (row.question) group.questions.unshift(row.question)
      for (const s of record.sections) {
        const hit = group.near.get(sectionKey(s)) ?? { ...ref(s), hits: 0 }
        hit.hits++
        group.near.set(sectionKey(s), hit)
      }
      gaps.set(key, group)
    }
  }

  // Every member that answered or cooled gets a row, in chain order.
  for (const [member, n] of cooling) {
    const existing = [...rungs.values()].find((r) => r.member === member)
    if (existing) existing.cooling = n
    else rungs.set(`?:${member}`, { member, index: Number.MAX_SAFE_INTEGER, answered: 0, share: 0, cooling: n })
  }
  const answeredTotal = outcomes.answered + outcomes.partial
  for (const rung of rungs.values()) rung.share = answeredTotal ? rung.answered / answeredTotal : 0

  const citedPaths = new Set([...cited.values()].map((c) => c.path))
  const times = events.map((e) => e.row.createdAt).sort()
  return {
    from: times[0] ?? null,
    to: times.at(-1) ?? null,
    turns: OUTCOMES.reduce((n, o) => n + outcomes[o], 0),
    outcomes,
    days: [...days.entries()].sort(([a], [b]) => a.localeCompare(b)).map(([day, o]) => ({ day, outcomes: o })),
    rungs: [...rungs.values()].sort((a, b) => a.index - b.index || a.member.localeCompare(b.member)),
    ratings,
    gaps: [...gaps.values()]
      .sort((a, b) => b.readers - a.readers || b.count - a.count || sectionKey(a.section).localeCompare(sectionKey(b.section)))
      .slice(0, top)
      .map(({ near, tabs: _, ...g }) => ({
        ...g,
        nearest: [...near.values()].sort((a, b) => b.hits - a.hits || sectionKey(a).localeCompare(sectionKey(b))).slice(0, 3),
      })),
    cited: [...cited.values()].sort((a, b) => b.count - a.count || sectionKey(a).localeCompare(sectionKey(b))).slice(0, top),
    neverCited: opts.pages ? opts.pages.filter((p) => !citedPaths.has(p.path)) : null,
    gate,
    retrieval,
    withText,
  }
}

/** The gap questions in the shared question format (gold empty: the owner fills it once the docs answer). */
export function gapQuestions(report: Report): { id: string; q: string; kind: 'paraphrase'; gold: []; nearest: { path: string; trail: string[] }[] }[] {
  const out: ReturnType<typeof gapQuestions> = []
  for (const group of report.gaps) {
    for (const q of group.questions) {
      if (out.some((o) => o.q === q)) continue
      out.push({ id: `gap-${String(out.length + 1).padStart(3, '0')}`, q, kind: 'paraphrase', gold: [], nearest: group.nearest.map((s) => ({ path: s.path, trail: s.trail })) })
    }
  }
  return out
}

/** A section's label: its heading trail, else path#anchor. */
export function sectionLabel(s: SectionRef): string {
  return s.trail.length ? s.trail.join(' › ') : s.anchor ? `${s.path}#${s.anchor}` : s.path
}
