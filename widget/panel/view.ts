/**
 * What the panel renders for one turn. The engine fills it from the core
 * turn's events and result; the components only read it.
 */
import type { HistoryTurn } from '../../core/prompt/build.ts'
import type { TurnState } from '../../core/turn/types.ts'
import type { TurnReceipt } from '../../core/turn/types.ts'
import type { CitationTarget } from './links.ts'

/** A core turn's states, plus the search view (a site without a chat chain, or "Search the docs"). */
export type SettledState = TurnState | 'search'

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
  /**
   * searching: stages 1-4; asking: the passages are in, a model is being
   * asked and nothing has arrived yet; answering: a model is streaming;
   * settled: the result is in.
   */
  phase: 'searching' | 'asking' | 'answering' | 'settled'
  state?: SettledState
  /** Streamed answer (Markdown). */
  text: string
  /** Ranked passages retrieved this turn (the model's [n] refers to the n-th). */
  passages: PassageView[]
  /** How many passages, from the first, the model is given (the prompt's budget may stop short of all); known once the prompt is built. */
  given?: number
  /** The refusal explains a weakened search (embedder lost), never a declared lexical-only site. */
  degraded: boolean
  /** The search view: the gate found the docs cover the question (else the rows are the nearest, not a match). */
  closeMatch?: boolean
  /** Rate-limited: when the service said the allowance comes back (epoch ms), if it said. */
  resetAt?: number
  ladder?: LadderView
  receipt?: TurnReceipt
  /** ?dpdebug=1 only: the cooldowns after the turn (key -> until, class). */
  cooldowns?: Record<string, { until: string; class: string }>
  /** The site has no chat chain: this turn was a search, and no model was ever involved. */
  searchOnly?: boolean
  /** "Search the docs" was tried from this turn and the search failed (no search URL, and the index unreadable). */
  searchFailed?: boolean
  feedback?: 'up' | 'down'
  feedbackError?: boolean
}

/**
 * The passages the model was given, which its [n] can name: the first
 * `given` of those retrieved (all of them until the prompt is built). A
 * number past them names nothing the model saw, and links nothing.
 */
export function givenPassages(turn: Pick<TurnView, 'passages' | 'given'>): PassageView[] {
  return turn.given === undefined ? turn.passages : turn.passages.slice(0, turn.given)
}

/** States whose text is an answer the model wrote (a stopped turn keeps what it had written). */
const ANSWER_STATES: readonly (SettledState | undefined)[] = ['answered', 'partial', 'aborted']

/**
 * The turns a question follows: the earlier ones, less those that asked this
 * same question (a Retry, the question asked again). Their answer is what the
 * reader wants replaced: handed to the model as what it already said, it comes
 * back shortened or as "as I said". And a Retry of "And on Deno?" searched with
 * "And on Deno?" as the question before it would lose what it follows. Of a
 * question asked more than once before (a search answer, then its Retry), the
 * last asking stands for it, so it takes one of the few places in the prompt.
 */
function followed(turns: readonly TurnView[], question: string): TurnView[] {
  return turns.filter((t, i) => t.question !== question && !turns.slice(i + 1).some((later) => later.question === t.question))
}

/** The questions a new one is searched with (oldest first): a follow-up is searched for the conversation. */
export function searchContext(turns: readonly TurnView[], question: string): string[] {
  return followed(turns, question).map((t) => t.question)
}

/**
 * The earlier exchanges the prompt carries for a new question: every earlier
 * question, with the answer when a model wrote one ('' when none did: the
 * search answer, a refusal, an error). "And on Deno?" after a search answer
 * still needs the question it follows.
 */
export function promptHistory(turns: readonly TurnView[], question: string): HistoryTurn[] {
  return followed(turns, question)
    .slice(-3)
    .map((t) => ({ question: t.question, answer: ANSWER_STATES.includes(t.state) ? t.text : '' }))
}
