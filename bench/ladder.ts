/**
 * Ladder bench (`npm run bench -- --only ladder`).
 *
 * 1. Overhead per attempt: the ladder's own work (request building, stream
 *    decoding, classification, cooldown ordering, receipts) measured against a
 *    baseline that does only what any client must (call the transport, read
 *    the body), side by side and alternated on the same in-process responses
 *    so no network noise enters. Target: under 1 ms per attempt.
 * 2. Cooling: a member that stepped aside receives 0 requests on the next
 *    turns until its cooldown ends (its own retry-after, or 60 s when it named
 *    none), counted on the fake providers' request log over real HTTP with a
 *    clock the bench moves.
 */
import { startFakeProviders, type FaultRule } from '../fixtures/providers/index.ts'
import type { PublicChainMember } from '../core/index/format.ts'
import type { Transport } from '../core/ladder/attempt.ts'
import { DEFAULT_COOLDOWN_MS, ManualClock, MemoryCooldownStore } from '../core/ladder/cooldown.ts'
import { walkLadder } from '../core/ladder/walk.ts'
import { buildPrompt } from '../core/prompt/build.ts'
import { runTurn } from '../core/turn/run.ts'
import { fakeChain, passage, searchResult } from '../core/turn/test-helpers.ts'
import { median } from './stats.ts'

export interface LadderBenchOptions {
  /** Scales the number of timed samples (100 per round, at least 200). */
  rounds: number
  log: (line: string) => void
  /** The cheapest run that proves the bench starts. */
  smoke?: boolean
}

const TARGET_MS_PER_ATTEMPT = 1

const ANSWER_CHUNKS = Array.from({ length: 40 }, (_, i) => `data: {"model":"m","choices":[{"delta":{"content":"word${i} "}}]}\n\n`)
const SSE_BODY = [...ANSWER_CHUNKS, 'data: {"choices":[{"delta":{},"finish_reason":"stop"}]}\n\n', 'data: [DONE]\n\n'].join('')
const RATE_BODY = '{"error":{"message":"Rate limit reached for requests per min","type":"requests","code":"rate_limit_exceeded"}}'

function okResponse(): Response {
  return new Response(SSE_BODY, { headers: { 'content-type': 'text/event-stream' } })
}
function limitedResponse(): Response {
  return new Response(RATE_BODY, { status: 429, headers: { 'content-type': 'application/json', 'retry-after': '20', 'x-ratelimit-reset-requests': '20s' } })
}

const MEMBERS = ['openai', 'mistral', 'together', 'groq', 'deepseek'] as const
const chain: PublicChainMember[] = MEMBERS.map((provider) => ({ provider, models: ['m'], tier: 'billed', route: `/ai/${provider}`, freePool: false }))
const prompt = buildPrompt('How do I share values?', [0, 1, 2, 3, 4, 5].map(passage))

/** Each of the first `failing` members answers 429, the next one streams the answer. */
function transportFor(failing: number): Transport {
  return async (m) => (MEMBERS.indexOf(m.provider as (typeof MEMBERS)[number]) < failing ? limitedResponse() : okResponse())
}

async function baseline(failing: number): Promise<number> {
  const t = transportFor(failing)
  const t0 = performance.now()
  for (let i = 0; i <= failing; i++) {
    const res = await t(chain[i]!, { path: '/chat/completions', method: 'POST', headers: {}, body: '{}', signal: new AbortController().signal })
    await res.text()
  }
  return performance.now() - t0
}

async function ladder(failing: number): Promise<number> {
  const t0 = performance.now()
  const r = await walkLadder({
    chain,
    request: { messages: prompt.messages, maxTokens: 512, temperature: 0.2 },
    transport: transportFor(failing),
    cooldowns: new MemoryCooldownStore(),
    clock: new ManualClock(),
    timeouts: { firstByteMs: 10_000, idleMs: 10_000 },
    onDelta: () => {},
    onRetract: () => {},
  })
  const dt = performance.now() - t0
  if (r.outcome !== 'answered' || r.attempts.length !== failing + 1) throw new Error(`bench walk went wrong: ${r.outcome}`)
  return dt
}

export interface OverheadFigures {
  attempts: number
  samples: number
  baselineMedianMs: number
  ladderMedianMs: number
  overheadPerAttemptMs: number
  underTarget: boolean
}

async function overhead(failing: number, samples: number): Promise<OverheadFigures> {
  // Warm both paths, then alternate them so drift (GC, a neighbour's load) hits both alike.
  for (let i = 0; i < Math.min(50, samples); i++) {
    await baseline(failing)
    await ladder(failing)
  }
  const base: number[] = []
  const lad: number[] = []
  for (let i = 0; i < samples; i++) {
    base.push(await baseline(failing))
    lad.push(await ladder(failing))
  }
  const attempts = failing + 1
  const perAttempt = (median(lad) - median(base)) / attempts
  return {
    attempts,
    samples,
    baselineMedianMs: median(base),
    ladderMedianMs: median(lad),
    overheadPerAttemptMs: perAttempt,
    underTarget: perAttempt < TARGET_MS_PER_ATTEMPT,
  }
}

export interface CoolingRow {
  atSeconds: number
  /** Chat requests the cooling member (openai) received during this turn. */
  coolingMemberRequests: number
  answeredBy: string | undefined
}

export interface CoolingFigures {
  fault: string
  cooldownSeconds: number
  rows: CoolingRow[]
  /** Requests the cooling member received on turns before its cooldown ended: must be 0. */
  requestsWhileCooling: number
  /** Whether it was back in its configured place (answering first) once the cooldown ended. */
  backAfterCooldown: boolean
}

/** openai steps aside at t=0 with `rule`; a turn every `stepS` seconds until past the cooldown. */
async function cooling(rule: FaultRule, cooldownSeconds: number, stepS: number, label: string): Promise<CoolingFigures> {
  const fake = await startFakeProviders()
  try {
    const { chain: c, transport } = fakeChain(fake.env(), ['openai', 'groq'])
    const cooldowns = new MemoryCooldownStore()
    const clock = new ManualClock()
    await fake.control({ ...rule, member: 'openai', times: 1 })
    const rows: CoolingRow[] = []
    for (let t = 0; t <= cooldownSeconds + stepS; t += stepS) {
      const r = await runTurn({ question: 'q', retrieve: async () => searchResult(), chain: c, transport, cooldowns, clock })
      const reqs = (await fake.requests()).filter((q) => q.member === 'openai' && q.endpoint === 'chat').length
      rows.push({ atSeconds: t, coolingMemberRequests: reqs, answeredBy: r.ladder?.provider })
      await fake.reset() // the fault rule was used once; this clears the request log
      clock.advance(stepS * 1000)
    }
    const cooling = rows.filter((r) => r.atSeconds > 0 && r.atSeconds < cooldownSeconds)
    const after = rows.filter((r) => r.atSeconds >= cooldownSeconds)
    return {
      fault: label,
      cooldownSeconds,
      rows,
      requestsWhileCooling: cooling.reduce((n, r) => n + r.coolingMemberRequests, 0),
      backAfterCooldown: after.length > 0 && after.every((r) => r.answeredBy === 'openai' && r.coolingMemberRequests === 1),
    }
  } finally {
    await fake.close()
  }
}

export async function run(opts: LadderBenchOptions): Promise<unknown> {
  const { log } = opts
  const samples = opts.smoke ? 20 : Math.max(200, opts.rounds * 100)
  const f = (n: number) => `${n.toFixed(3)} ms`

  const single = await overhead(0, samples)
  const rotating = await overhead(4, samples)
  log(`ladder overhead per attempt (median of ${samples}, ladder minus baseline on identical in-process responses; target < ${TARGET_MS_PER_ATTEMPT} ms)`)
  for (const [name, r] of [['1 attempt (answered)', single], ['5 attempts (4x 429, then answered)', rotating]] as const) {
    log(`  ${name.padEnd(36)} baseline ${f(r.baselineMedianMs)}  ladder ${f(r.ladderMedianMs)}  overhead/attempt ${f(r.overheadPerAttemptMs)} (${r.underTarget ? 'under' : 'OVER'} target)`)
  }

  const defaultS = DEFAULT_COOLDOWN_MS / 1000
  const cool = [
    await cooling({ fault: 'rate-limit', retryAfter: 30 }, 30, 5, '429 with retry-after: 30'),
    await cooling({ fault: 'server-error' }, defaultS, 10, '500, no wait named (default cooldown)'),
  ]
  for (const c of cool) {
    log(`cooling member: openai steps aside at t=0 (${c.fault}; cooldown ${c.cooldownSeconds} s), chain [openai, groq]`)
    for (const row of c.rows) log(`  t=${String(row.atSeconds).padStart(2)} s  requests to openai: ${row.coolingMemberRequests}  answered by: ${row.answeredBy}`)
    log(`  requests to openai while cooling: ${c.requestsWhileCooling}; back in first place after the cooldown: ${c.backAfterCooldown ? 'yes' : 'NO'}`)
  }
  return { targetPerAttemptMs: TARGET_MS_PER_ATTEMPT, single, rotating, cooling: cool }
}
