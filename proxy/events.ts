/**
 * Insights events: one small record per settled turn, posted by the panel to
 * `/ai/events` when the owner enabled insights, and stored next to feedback
 * (same database, table `events`). Like feedback, what is stored is an
 * allow-list: the outcome, the retrieval measurements, the ids of the top
 * sections and which were cited, the ladder rung, the members cooling when
 * the turn began, the stage timings and, later, the reader's thumbs. The
 * question text is kept only under `feedback.storeText`. No address, no
 * answer text, no user id: `tab` is a random id the panel makes per browser
 * tab, `turn` a random id per turn (so a rating can find its turn).
 */
import * as z from 'zod'
import { MEMBER_IDS, type MemberId } from '../core/providers/table.ts'
import { FAILURE_CLASSES } from '../core/ladder/failure.ts'
import { LadderSchema, ReceiptSchema, TURN_STATES, text } from './feedback.ts'

const randomId = z.string().regex(/^[\w-]{8,64}$/, 'expected a random id of 8 to 64 letters, digits, _ or -')
const member = z.enum(MEMBER_IDS as [MemberId, ...MemberId[]])

/** A top section of the turn: where the question landed, whether the answer cited it. */
export const EventSectionSchema = z.object({
  path: text(1024),
  anchor: text(512),
  trail: z.array(text(300)).max(12),
  cited: z.boolean(),
})
export type EventSection = z.infer<typeof EventSectionSchema>

/** The most sections one event carries: the closest few are what groups a gap. */
export const EVENT_SECTIONS = 5

const TurnEventSchema = z.object({
  kind: z.literal('turn'),
  tab: randomId,
  turn: randomId,
  outcome: z.enum(TURN_STATES),
  retrieval: ReceiptSchema.shape.retrieval.unwrap().unwrap().nullable(),
  sections: z.array(EventSectionSchema).max(EVENT_SECTIONS),
  ladder: LadderSchema.nullable(),
  /** Members cooling (stepped aside) when the turn began. */
  cooling: z.array(member).max(MEMBER_IDS.length),
  stages: ReceiptSchema.shape.stages.unwrap(),
  stoppedBy: z.enum(FAILURE_CLASSES).optional(),
  question: text(8192).optional(),
})

const RatingEventSchema = z.object({
  kind: z.literal('rating'),
  tab: randomId,
  turn: randomId,
  rating: z.enum(['up', 'down']),
})

export const EventInputSchema = z.discriminatedUnion('kind', [TurnEventSchema, RatingEventSchema])
export type EventInput = z.infer<typeof EventInputSchema>
export type TurnEventInput = z.infer<typeof TurnEventSchema>

/** What one event row's `record` column holds (JSON): the turn without its ids and text. */
export type EventRecord = Omit<TurnEventInput, 'kind' | 'tab' | 'turn' | 'question'>

export interface EventRow {
  /** The panel's random turn id. */
  id: string
  tab: string
  createdAt: string
  outcome: TurnEventInput['outcome']
  /** EventRecord as JSON. */
  record: string
  question: string | null
  rating: 'up' | 'down' | null
}

export interface EventRating {
  id: string
  tab: string
  rating: 'up' | 'down'
}

/** The events table and its index, one statement each (D1 runs one per call); the same SQL on SQLite and D1. */
export const EVENTS_DDL = [
  `CREATE TABLE IF NOT EXISTS events (
  id TEXT PRIMARY KEY,
  tab TEXT NOT NULL,
  created_at TEXT NOT NULL,
  outcome TEXT NOT NULL,
  record TEXT NOT NULL,
  question TEXT,
  rating TEXT
)`,
  'CREATE INDEX IF NOT EXISTS events_created_at ON events (created_at)',
]

/** A beacon sent twice stores one row. */
export const EVENT_INSERT = 'INSERT OR IGNORE INTO events (id, tab, created_at, outcome, record, question, rating) VALUES (?, ?, ?, ?, ?, ?, ?)'
/** A rating finds its turn by both random ids. */
export const EVENT_RATE = 'UPDATE events SET rating = ? WHERE id = ? AND tab = ?'
/** Retention: what is older than the cut-off goes. */
export const EVENT_PRUNE = 'DELETE FROM events WHERE created_at < ?'
export const EVENT_SELECT = 'SELECT id, tab, created_at AS createdAt, outcome, record, question, rating FROM events ORDER BY created_at, id'

export function eventParams(row: EventRow): (string | null)[] {
  return [row.id, row.tab, row.createdAt, row.outcome, row.record, row.question, row.rating]
}

export function eventRow(input: TurnEventInput, storeText: boolean, now: Date): EventRow {
  const { kind: _kind, tab, turn, question, ...record } = input
  return {
    id: turn,
    tab,
    createdAt: now.toISOString(),
    outcome: input.outcome,
    record: JSON.stringify(record satisfies EventRecord),
    question: storeText ? (question ?? null) : null,
    rating: null,
  }
}

/** Rows created before this instant are past retention. */
export function retentionCutoff(now: number, retentionDays: number): string {
  return new Date(now - retentionDays * 86_400_000).toISOString()
}
