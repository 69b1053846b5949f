/**
 * What the panel renders for one turn. The engine fills it from the core
 * turn's events and result; the components only read it.
 */
import type { TurnReceipt } from '../../core/turn/types.ts'
import type { CitationTarget } from './links.ts'

export type SettledState = 'answered' | 'partial' | 'hybrid' | 'refused' | 'rate-limited' | 'error' | 'aborted'

export interface PassageView extends CitationTarget {
  id: string
  text: string
  score: number
  channels?: { lexical?: number; dense?: number }
}

export type { TurnLadder as LadderView } from '../../core/ladder/receipt.ts'
import type { TurnLadder as LadderView } from '../../core/ladder/receipt.ts'

export interface TurnView {
  id: number
  question: string
  /** searching: stages 1-4; answering: a model is streaming; settled: the result is in. */
  phase: 'searching' | 'answering' | 'settled'
  state?: SettledState
  /** Streamed answer (Markdown). */
  text: string
  /** Ranked passages retrieved this turn (the model's [n] refers to the n-th). */
  passages: PassageView[]
  /** The refusal explains a weakened search (embedder lost), never a declared lexical-only site. */
  degraded: boolean
  /** Rate-limited: when the service said the allowance comes back (epoch ms), if it said. */
  resetAt?: number
  ladder?: LadderView
  receipt?: TurnReceipt
  /** ?dpdebug=1 only: the cooldowns after the turn (key -> until, class). */
  cooldowns?: Record<string, { until: string; class: string }>
  feedback?: 'up' | 'down'
  feedbackError?: boolean
  /** A results view of the passages ("Search the docs" when the site has no search page). */
  searchOnly?: boolean
}
