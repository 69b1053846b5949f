/** The shape of a turn, shared by runTurn, the panel and the CLI. */
import type { PublicChainMember } from '../index/format.ts'
import type { Timeouts, Transport } from '../ladder/attempt.ts'
import type { Clock, CooldownStore } from '../ladder/cooldown.ts'
import type { FailureClass } from '../ladder/failure.ts'
import type { AttemptRecord, TurnLadder } from '../ladder/receipt.ts'
import type { Citation, HistoryTurn, PromptOptions } from '../prompt/build.ts'
import type { Passage, SearchResult } from '../retrieval/search.ts'

export type TurnState = 'answered' | 'partial' | 'hybrid' | 'refused' | 'rate-limited' | 'error' | 'aborted'

export interface TurnInput {
  question: string
  history?: HistoryTurn[]
  /** Stages 1-4 (embed, retrieve, fuse, gate), injected: the panel and the CLI pass their DocIndex search. */
  retrieve: (question: string) => Promise<SearchResult>
  chain: readonly PublicChainMember[]
  transport: Transport
  cooldowns: CooldownStore
  clock: Clock
  signal?: AbortSignal
  onEvent?: (event: TurnEvent) => void
  options?: TurnOptions
}

export interface TurnOptions {
  maxTokens?: number
  temperature?: number
  timeouts?: Partial<Timeouts>
  prompt?: PromptOptions
}

export type TurnEvent =
  /** `given`: how many of the passages, from the first, the prompt holds (absent when the gate refused). */
  | { type: 'retrieval'; mode: SearchResult['mode']; degraded: boolean; passages: Passage[]; given?: number }
  | { type: 'delta'; text: string }
  /** The deltas so far were a reasoning model's thinking, sent with only its closing tag: clear them; the answer follows. */
  | { type: 'retract' }
  | { type: 'settled'; result: TurnResult }

export interface StageTimings {
  retrieveMs: number | null
  answerMs: number | null
  totalMs: number
}

export interface TurnReceipt {
  version: 1
  outcome: TurnState
  retrieval: { mode: SearchResult['mode']; degraded: boolean; gate: { pass: boolean; score: number }; passages: number } | null
  stages: StageTimings
  attempts: AttemptRecord[]
  ladder: TurnLadder | null
  /** rate-limited: when the allowance returns (ISO time). */
  resetAt?: string
  /** The class that ended the walk early or cut the stream. */
  stoppedBy?: FailureClass
}

export interface TurnResult {
  state: TurnState
  /** The answer text (answered, partial); empty otherwise. */
  text: string
  /** partial: the stream broke after it began. */
  cutOff: boolean
  /** The ranked passages this turn retrieved (empty only for 'error' and an abort before retrieval). */
  passages: Passage[]
  /** [n] in the answer -> the passage's link. */
  citations: Citation[]
  /** rate-limited: when the allowance returns (epoch ms), as the service named it. */
  resetAt?: number
  /** Search was degraded (embedder lost); said on a refusal only. */
  degraded: boolean
  degradedReason?: string
  ladder: TurnLadder | null
  receipt: TurnReceipt
}
