/**
 * The receipt of a turn: what was tried, in order, how each attempt ended and
 * how long the stages took. It holds measurements and classes only — never
 * prompt text, answer text, passage text or credentials — so it can go into
 * `?dpdebug=1` output and feedback records as it is.
 */
import type { MemberId } from '../providers/table.ts'
import type { FailureClass } from './failure.ts'

export interface AttemptRecord {
  member: MemberId
  /** Position of the member in the configured chain. */
  index: number
  model: string
  /** Position of the model inside a free pool. */
  poolIndex?: number
  class: 'ok' | 'aborted' | FailureClass
  status: number | null
  /** Time to the response headers. */
  ttfbMs: number | null
  /** Time to the first delta of the answer. */
  firstDeltaMs: number | null
  durationMs: number
  /** The model the service says served (may differ from the requested id, e.g. behind openrouter/free). */
  servedModel?: string
  code?: string
  retryAfterMs?: number
}

/** Where the turn landed: `turn.ladder = {provider, index, freePool}`. */
export interface TurnLadder {
  provider: MemberId
  /** Position of the member in the configured chain. */
  index: number
  /** The pool id that served, and its place in the pool; null outside a free pool. */
  freePool: { index: number; model: string } | null
}
