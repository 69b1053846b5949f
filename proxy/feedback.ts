/**
 * Reader feedback: a rating with the turn's receipt and ladder record. What
 * is stored is an allow-list, not a filter: every field below, with its type
 * and length, and nothing else (unknown fields are dropped at any depth, so
 * text under any name, `Question` or `msgs[].Content`, never reaches the
 * table). The question, answer and comment text are kept only when the owner
 * opted in (`feedback.storeText`); the page is kept as its path, without the
 * query or fragment that may carry a question. Strings must be well-formed
 * Unicode, so what is stored is valid UTF-8.
 */
import * as z from 'zod'
import { FAILURE_CLASSES } from '../core/ladder/failure.ts'
import { hasLoneSurrogate } from '../core/text/lone-surrogate.ts'
import { MEMBER_IDS, type MemberId } from '../core/providers/table.ts'
import type { EventRating, EventRow } from './events.ts'

export const text = (max: number) => z.string().max(max).refine((s) => !hasLoneSurrogate(s), 'holds a lone surrogate (not valid Unicode)')
const member = z.enum(MEMBER_IDS as [MemberId, ...MemberId[]])
const count = z.number().int().min(0).max(1_000_000)
const ms = z.number().min(0).max(86_400_000)
export const TURN_STATES = ['answered', 'partial', 'hybrid', 'refused', 'rate-limited', 'error', 'aborted'] as const
const attemptClass = z.enum(['ok', 'aborted', ...FAILURE_CLASSES])
/** Service error codes are short identifiers (`overloaded_error`); anything else is not a code. */
const code = z.string().max(64).regex(/^[\w.-]*$/)

export const LadderSchema = z.object({
  provider: member,
  index: count,
  freePool: z.union([z.boolean(), z.object({ index: count, model: text(200) })]).nullable().optional(),
})

export const ReceiptSchema = z.object({
  version: z.literal(1).optional(),
  outcome: z.enum(TURN_STATES).optional(),
  retrieval: z
    .object({
      mode: z.enum(['hybrid', 'lexical']),
      degraded: z.boolean(),
      gate: z.object({ pass: z.boolean(), score: z.number() }),
      passages: count,
    })
    .nullable()
    .optional(),
  stages: z.object({ retrieveMs: ms.nullable(), answerMs: ms.nullable(), totalMs: ms }).optional(),
  attempts: z
    .array(
      z.object({
        member,
        index: count.optional(),
        model: text(200),
        poolIndex: count.optional(),
        class: attemptClass,
        status: z.number().int().min(0).max(999).nullable(),
        ttfbMs: ms.nullable().optional(),
        firstDeltaMs: ms.nullable().optional(),
        durationMs: ms.optional(),
        latencyMs: ms.optional(),
        servedModel: text(200).optional(),
        code: code.optional(),
        retryAfterMs: ms.optional(),
      }),
    )
    .max(64)
    .optional(),
  ladder: LadderSchema.nullable().optional(),
  resetAt: z.string().max(40).regex(/^[\dT:.Z+-]*$/).optional(),
  stoppedBy: z.enum(FAILURE_CLASSES).optional(),
})

export const FeedbackInputSchema = z.object({
  rating: z.enum(['up', 'down']),
  /** The turn's receipt: attempts, outcome, timings. */
  receipt: ReceiptSchema.optional(),
  /** turn.ladder = {provider, index, freePool} */
  ladder: LadderSchema.nullable().optional(),
  /** Page the panel was opened on. */
  page: text(2048).optional(),
  question: text(8192).optional(),
  answer: text(32_768).optional(),
  comment: text(4096).optional(),
})
export type FeedbackInput = z.infer<typeof FeedbackInputSchema>

export interface FeedbackRow {
  id: string
  createdAt: string
  rating: 'up' | 'down'
  page: string | null
  receipt: string | null
  ladder: string | null
  question: string | null
  answer: string | null
  comment: string | null
}

/** Feedback and insights events: one database (SQLite on Node, D1 on Workers). */
export interface FeedbackStore {
  /** Stores one rating, then deletes the ratings created before `deleteBefore` (the retention the privacy statement names). */
  save(row: FeedbackRow, deleteBefore: string): Promise<void>
  /** Stores one turn's event (a copy of a stored turn is ignored), then deletes events created before `deleteBefore`. */
  saveEvent(row: EventRow, deleteBefore: string): Promise<void>
  /** Records a reader's thumbs on a stored turn (nothing when no turn has both ids). */
  rateEvent(rating: EventRating): Promise<void>
}

/** One table, the same SQL on SQLite (Node) and D1 (Workers). */
export const FEEDBACK_DDL = `CREATE TABLE IF NOT EXISTS feedback (
  id TEXT PRIMARY KEY,
  created_at TEXT NOT NULL,
  rating TEXT NOT NULL,
  page TEXT,
  receipt TEXT,
  ladder TEXT,
  question TEXT,
  answer TEXT,
  comment TEXT
)`

export const FEEDBACK_INSERT =
  'INSERT INTO feedback (id, created_at, rating, page, receipt, ladder, question, answer, comment) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)'

export const FEEDBACK_PRUNE = 'DELETE FROM feedback WHERE created_at < ?'

export function feedbackParams(row: FeedbackRow): (string | null)[] {
  return [row.id, row.createdAt, row.rating, row.page, row.receipt, row.ladder, row.question, row.answer, row.comment]
}

/** The page as a path: a query or fragment may carry the reader's question (`?q=...`). */
function pagePath(page: string): string {
  const url = URL.parse(page, 'http://page.invalid/')
  return url ? (url.origin === 'http://page.invalid' ? url.pathname : `${url.origin}${url.pathname}`) : ''
}

export function feedbackRow(input: FeedbackInput, storeText: boolean, now: Date, id: string): FeedbackRow {
  const json = (v: unknown) => (v === undefined ? null : JSON.stringify(v))
  return {
    id,
    createdAt: now.toISOString(),
    rating: input.rating,
    page: input.page === undefined ? null : storeText ? input.page : pagePath(input.page),
    receipt: json(input.receipt),
    ladder: json(input.ladder),
    question: storeText ? (input.question ?? null) : null,
    answer: storeText ? (input.answer ?? null) : null,
    comment: storeText ? (input.comment ?? null) : null,
  }
}
