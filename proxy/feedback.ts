/**
 * Reader feedback: a rating with the turn's receipt and ladder record. The
 * question, answer and comment text are kept only when the owner opted in
 * (`feedback.storeText`); otherwise they are dropped before storage, and any
 * text-bearing field inside the receipt is dropped too.
 */
import { z } from 'zod'

export const FeedbackInputSchema = z.object({
  rating: z.enum(['up', 'down']),
  /** The turn's receipt: attempts, outcome, timings (secret-free by construction). */
  receipt: z.record(z.string(), z.unknown()).optional(),
  /** turn.ladder = {provider, index, freePool} */
  ladder: z.record(z.string(), z.unknown()).optional(),
  /** Page the panel was opened on. */
  page: z.string().max(2048).optional(),
  question: z.string().max(8192).optional(),
  answer: z.string().max(32_768).optional(),
  comment: z.string().max(4096).optional(),
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

export interface FeedbackStore {
  save(row: FeedbackRow): Promise<void>
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

export function feedbackParams(row: FeedbackRow): (string | null)[] {
  return [row.id, row.createdAt, row.rating, row.page, row.receipt, row.ladder, row.question, row.answer, row.comment]
}

const TEXT_KEYS = new Set(['question', 'answer', 'prompt', 'messages', 'text', 'content', 'comment', 'passages'])

/** Drop every text-bearing key, at any depth. */
function withoutText(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(withoutText)
  if (typeof value === 'object' && value !== null) {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value)) if (!TEXT_KEYS.has(k)) out[k] = withoutText(v)
    return out
  }
  return value
}

export function feedbackRow(input: FeedbackInput, storeText: boolean, now: Date, id: string): FeedbackRow {
  const json = (v: unknown) => (v === undefined ? null : JSON.stringify(storeText ? v : withoutText(v)))
  return {
    id,
    createdAt: now.toISOString(),
    rating: input.rating,
    page: input.page ?? null,
    receipt: json(input.receipt),
    ladder: json(input.ladder),
    question: storeText ? (input.question ?? null) : null,
    answer: storeText ? (input.answer ?? null) : null,
    comment: storeText ? (input.comment ?? null) : null,
  }
}
