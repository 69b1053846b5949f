/**
 * One turn: retrieve (injected) -> gate -> ladder -> settle. Every passage is
 * in memory before the first model is called, so every failure after
 * retrieval still settles with something to show: the answer, a partial
 * answer marked cut off, the hybrid search answer, or the rate-limited state
 * with the passages beneath it. Only a failure before retrieval is an error.
 */
import { untilAborted } from '../abort.ts'
import { CHAT_DEFAULTS } from '../config/chat-defaults.ts'
import { walkLadder, type WalkResult } from '../ladder/walk.ts'
import { buildPrompt, type Citation } from '../prompt/build.ts'
import type { SearchResult } from '../retrieval/search.ts'
import { msSince } from '../timing.ts'
import type { StageTimings, TurnInput, TurnReceipt, TurnResult, TurnState } from './types.ts'

const WALK_STATE: Record<WalkResult['outcome'], TurnState> = {
  answered: 'answered',
  partial: 'partial',
  unanswered: 'hybrid',
  'rate-limited': 'rate-limited',
  aborted: 'aborted',
}

export async function runTurn(input: TurnInput): Promise<TurnResult> {
  const t0 = performance.now()
  const { signal } = input
  const stages: StageTimings = { retrieveMs: null, answerMs: null, totalMs: 0 }
  let search: SearchResult | undefined
  let citations: Citation[] = []
  let walk: WalkResult | undefined

  const settle = (state: TurnState): TurnResult => {
    stages.totalMs = msSince(t0)
    const receipt: TurnReceipt = {
      version: 1,
      outcome: state,
      retrieval: search
        ? { mode: search.mode, degraded: search.degraded, gate: { pass: search.gate.pass, score: search.gate.score }, passages: search.results.length }
        : null,
      stages,
      attempts: walk?.attempts ?? [],
      ladder: walk?.ladder ?? null,
    }
    if (walk?.resetAt !== undefined) receipt.resetAt = new Date(walk.resetAt).toISOString()
    if (walk?.stoppedBy) receipt.stoppedBy = walk.stoppedBy
    const result: TurnResult = {
      state,
      text: state === 'answered' || state === 'partial' ? (walk?.text ?? '') : '',
      cutOff: state === 'partial',
      passages: search?.results ?? [],
      citations,
      degraded: search?.degraded ?? false,
      ladder: receipt.ladder,
      receipt,
    }
    if (search?.degradedReason) result.degradedReason = search.degradedReason
    if (walk?.resetAt !== undefined) result.resetAt = walk.resetAt
    input.onEvent?.({ type: 'settled', result })
    return result
  }

  if (signal?.aborted) return settle('aborted')

  // Stages 1-4: no model involved.
  const r0 = performance.now()
  try {
    search = await untilAborted(input.retrieve(input.question), signal)
  } catch (err) {
    stages.retrieveMs = msSince(r0)
    return settle(signal?.aborted ? 'aborted' : 'error')
  }
  stages.retrieveMs = msSince(r0)
  const o = input.options ?? {}
  // Built before the passages are announced, so the panel links only the passages the model is given from the
  // first delta on, rather than linking a [7] the budget left out until the turn settles.
  const prompt = search.gate.pass ? buildPrompt(input.question, search.results, input.history ?? [], o.prompt) : undefined
  input.onEvent?.({
    type: 'retrieval',
    mode: search.mode,
    degraded: search.degraded,
    passages: search.results,
    ...(prompt ? { given: prompt.citations.length } : {}),
  })

  // The gate ends the turn before any model is called.
  if (!prompt) return settle('refused')

  // Stage 5: the ladder.
  citations = prompt.citations
  const a0 = performance.now()
  walk = await walkLadder({
    chain: input.chain,
    request: {
      messages: prompt.messages,
      maxTokens: o.maxTokens ?? CHAT_DEFAULTS.maxTokens,
      temperature: o.temperature ?? CHAT_DEFAULTS.temperature,
    },
    transport: input.transport,
    cooldowns: input.cooldowns,
    clock: input.clock,
    timeouts: { ...CHAT_DEFAULTS.timeouts, ...o.timeouts },
    ...(signal ? { signal } : {}),
    onDelta: (text) => input.onEvent?.({ type: 'delta', text }),
    onRetract: () => input.onEvent?.({ type: 'retract' }),
  })
  stages.answerMs = msSince(a0)
  // Stage 6.
  return settle(WALK_STATE[walk.outcome])
}

export type { TurnEvent, TurnInput, TurnOptions, TurnReceipt, TurnResult, TurnState } from './types.ts'
