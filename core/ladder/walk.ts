/**
 * The walk: members in this turn's order (configured order, cooling members at
 * the back), each at most once. A member that fails with a class that costs
 * it its turn cools down and the next one is asked; a refused body or an
 * unknown error ends the walk (it would be refused again / is never retried
 * blind); the proxy's own limits (this reader's pace, the site's daily
 * ceiling) settle the turn as rate-limited and cool nobody. Once a delta has
 * reached the reader nothing rotates: a broken stream settles as a partial
 * answer. Inside a member with several models (the free pool, a models list)
 * one model's 429 moves to the next model.
 */
import type { PublicChainMember } from '../index/format.ts'
import { providerSpec } from '../providers/table.ts'
import { adapterFor } from './adapters/index.ts'
import type { ChatRequest, Usage } from './adapters/types.ts'
import { runAttempt, type Timeouts, type Transport } from './attempt.ts'
import { cooldownKey, cooldownUntil, orderForTurn, type Clock, type CooldownStore } from './cooldown.ts'
import { stepsAside, type Failure, type FailureClass } from './failure.ts'
import type { AttemptRecord, TurnLadder } from './receipt.ts'

export interface WalkInput {
  chain: readonly PublicChainMember[]
  request: ChatRequest
  transport: Transport
  cooldowns: CooldownStore
  clock: Clock
  timeouts: Timeouts
  signal?: AbortSignal
  onDelta: (text: string) => void
  /** The deltas so far were a reasoning model's thinking (see think.ts): clear them. */
  onRetract: () => void
}

export type WalkOutcome =
  /** A member finished its answer. */
  | 'answered'
  /** A stream broke after its first delta, or the answer ran into the output-token ceiling: the text so far stands, marked cut off. */
  | 'partial'
  /** Every member was asked and none answered (or the walk had to stop). */
  | 'unanswered'
  /**
   * The last member's daily allowance is spent, the site's own daily ceiling is, or the proxy
   * asked this reader to slow down (stoppedBy client_rate_limited); resetAt says until when.
   */
  | 'rate-limited'
  | 'aborted'

export interface WalkResult {
  outcome: WalkOutcome
  text: string
  attempts: AttemptRecord[]
  ladder: TurnLadder | null
  /** rate-limited: when the allowance comes back, or the reader may ask again (epoch ms), when the service said. */
  resetAt?: number
  /** The class that ended the walk early (request_rejected, unknown, client_rate_limited), or cut the stream. */
  stoppedBy?: FailureClass
  finishReason?: string
  usage?: Usage
}

/**
 * The finish reasons that say the model stopped at the output-token ceiling,
 * as each protocol spells them (OpenAI and Ollama, Anthropic, Gemini). The
 * answer ends mid-sentence; settled as finished, it reads as complete.
 */
const TOKEN_CEILING: ReadonlySet<string> = new Set(['length', 'max_tokens', 'MAX_TOKENS'])

function coolDown(store: CooldownStore, key: string, failure: Failure, now: number): void {
  store.set(key, { until: cooldownUntil(now, failure), since: now, class: failure.class })
}

export async function walkLadder(input: WalkInput): Promise<WalkResult> {
  const { cooldowns, clock } = input
  const indexed = input.chain.map((member, index) => ({ member, index }))
  const order = orderForTurn(indexed, (m) => cooldownKey(m.member.provider), cooldowns, clock.now())
  const attempts: AttemptRecord[] = []
  let ladder: TurnLadder | null = null
  let lastFailure: Failure | undefined

  for (const { member, index } of order) {
    const adapter = adapterFor(providerSpec(member.provider).protocol)
    const models = member.models.map((model, poolIndex) => ({ model, poolIndex }))
    const modelOrder =
      models.length > 1 ? orderForTurn(models, (m) => cooldownKey(member.provider, m.model), cooldowns, clock.now()) : models
    let memberFailure: Failure | undefined

    for (const { model, poolIndex } of modelOrder) {
      const outcome = await runAttempt({
        member,
        index,
        model,
        ...(member.freePool ? { poolIndex } : {}),
        adapter,
        request: input.request,
        transport: input.transport,
        timeouts: input.timeouts,
        clock,
        ...(input.signal ? { signal: input.signal } : {}),
        onDelta: input.onDelta,
        onRetract: input.onRetract,
      })
      attempts.push(outcome.record)
      ladder = { provider: member.provider, index, freePool: member.freePool ? { index: poolIndex, model } : null }
      const base = { text: outcome.text, attempts, ladder }
      const extra = {
        ...(outcome.finishReason ? { finishReason: outcome.finishReason } : {}),
        ...(outcome.usage ? { usage: outcome.usage } : {}),
      }

      if (outcome.kind === 'aborted') return { outcome: 'aborted', ...base }
      if (outcome.kind === 'ok') {
        // Healthy again: back in its configured place (it is not promoted above it).
        cooldowns.delete(cooldownKey(member.provider))
        if (models.length > 1) cooldowns.delete(cooldownKey(member.provider, model))
        return { outcome: TOKEN_CEILING.has(outcome.finishReason ?? '') ? 'partial' : 'answered', ...base, ...extra }
      }

      const failure = outcome.failure!
      lastFailure = failure
      if (outcome.afterDelta) {
        // Nothing rotates once a delta is on screen.
        if (stepsAside(failure.class)) coolDown(cooldowns, cooldownKey(member.provider), failure, clock.now())
        return { outcome: 'partial', ...base, ...extra, stoppedBy: failure.class }
      }
      if (failure.class === 'client_rate_limited' || failure.siteCeiling) {
        // The proxy's own limit (this reader's pace, the site's day): every member is behind it, and none of them failed.
        return {
          outcome: 'rate-limited',
          ...base,
          text: '',
          ...(failure.class === 'client_rate_limited' ? { stoppedBy: failure.class } : {}),
          ...(failure.resetAt !== undefined ? { resetAt: failure.resetAt } : {}),
        }
      }
      if (!stepsAside(failure.class)) {
        // A refused body would be refused again by every model; an unknown error is not retried blind.
        return { outcome: 'unanswered', ...base, stoppedBy: failure.class }
      }
      if ((failure.class === 'rate_limited' || failure.class === 'empty_answer') && models.length > 1) {
        // This id is saturated (or answered nothing), not the account: cool the id, ask the next one inside the member.
        coolDown(cooldowns, cooldownKey(member.provider, model), failure, clock.now())
        memberFailure = failure
        continue
      }
      memberFailure = failure
      break
    }

    if (memberFailure) coolDown(cooldowns, cooldownKey(member.provider), memberFailure, clock.now())
  }

  // Only the last member's daily 429 escapes: the service answered with a schedule.
  if (lastFailure?.class === 'daily_quota') {
    return {
      outcome: 'rate-limited',
      text: '',
      attempts,
      ladder,
      ...(lastFailure.resetAt !== undefined ? { resetAt: lastFailure.resetAt } : {}),
    }
  }
  return { outcome: 'unanswered', text: '', attempts, ladder }
}
