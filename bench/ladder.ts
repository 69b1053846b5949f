/**
 * Ladder bench.
 *
 * 1. Overhead per attempt: the ladder's own work (request building, stream
 *    decoding, classification, cooldown ordering, receipts) measured against a
 *    baseline that does only what any client must (call the transport, read
 *    the body), side by side on the same in-process responses so no network
 *    noise enters. Target: under 1 ms per attempt.
 * 2. Cooling: a member that stepped aside (retry-after 30 s) receives 0
 *    requests on the next turns until its cooldown ends, counted on the fake
 *    providers' request log over real HTTP.
 *
 * Run: `npx tsx bench/ladder.ts` (writes bench/results/ladder.json).
 */
import { mkdirSync, writeFileSync } from 'node:fs'
import { startFakeProviders } from '../fixtures/providers/index.ts'
import type { PublicChainMember } from '../core/index-format.ts'
import type { Transport } from '../core/ladder/attempt.ts'
import { ManualClock, MemoryCooldownStore } from '../core/ladder/cooldown.ts'
import { walkLadder } from '../core/ladder/walk.ts'
import { buildPrompt } from '../core/prompt/build.ts'
import { runTurn } from '../core/turn/run.ts'
import { fakeChain, passage, searchResult } from '../core/turn/test-helpers.ts'

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.floor((s.length - 1) / 2)]!
}

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
const request = { ...buildPrompt('How do I share values?', [0, 1, 2, 3, 4, 5].map(passage)), maxTokens: 512, temperature: 0.2 }

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
    request: { messages: request.messages, maxTokens: 512, temperature: 0.2 },
    transport: transportFor(failing),
    cooldowns: new MemoryCooldownStore(),
    clock: new ManualClock(),
    timeouts: { firstByteMs: 10_000, idleMs: 10_000 },
    onDelta: () => {},
  })
  const dt = performance.now() - t0
  if (r.outcome !== 'answered' || r.attempts.length !== failing + 1) throw new Error(`bench walk went wrong: ${r.outcome}`)
  return dt
}

async function overhead(failing: number, rounds = 400) {
  // Warm both paths, then alternate them so drift hits both alike.
  for (let i = 0; i < 50; i++) {
    await baseline(failing)
    await ladder(failing)
  }
  const base: number[] = []
  const lad: number[] = []
  for (let i = 0; i < rounds; i++) {
    base.push(await baseline(failing))
    lad.push(await ladder(failing))
  }
  const attempts = failing + 1
  const perAttemptMs = (median(lad) - median(base)) / attempts
  return { attempts, baselineMedianMs: median(base), ladderMedianMs: median(lad), overheadPerAttemptMs: perAttemptMs }
}

async function cooling() {
  const fake = await startFakeProviders()
  try {
    const { chain: c, transport } = fakeChain(fake.env(), ['openai', 'groq'])
    const cooldowns = new MemoryCooldownStore()
    const clock = new ManualClock()
    await fake.control({ member: 'openai', fault: 'rate-limit', retryAfter: 30, times: 1 })
    const rows: { atSeconds: number; openaiRequests: number; answeredBy: string | undefined }[] = []
    for (let t = 0; t <= 40; t += 5) {
      const r = await runTurn({ question: 'q', retrieve: async () => searchResult(), chain: c, transport, cooldowns, clock })
      const reqs = (await fake.requests()).filter((q) => q.member === 'openai').length
      rows.push({ atSeconds: t, openaiRequests: reqs, answeredBy: r.ladder?.provider })
      await fake.reset() // the 429 rule was used once; this clears the request log
      clock.advance(5000)
    }
    return rows
  } finally {
    await fake.close()
  }
}

export async function ladderBench() {
  const single = await overhead(0)
  const rotating = await overhead(4)
  const cool = await cooling()
  return { single, rotating, cooling: cool, targetPerAttemptMs: 1 }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const out = await ladderBench()
  const f = (n: number) => `${n.toFixed(3)} ms`
  console.log('ladder overhead per attempt (median, ladder minus baseline on identical in-process responses)')
  for (const [name, r] of [['1 attempt (answered)', out.single], ['5 attempts (4x 429, then answered)', out.rotating]] as const) {
    const verdict = r.overheadPerAttemptMs < out.targetPerAttemptMs ? 'under' : 'OVER'
    console.log(`  ${name.padEnd(36)} baseline ${f(r.baselineMedianMs)}  ladder ${f(r.ladderMedianMs)}  overhead/attempt ${f(r.overheadPerAttemptMs)} (${verdict} the 1 ms target)`)
  }
  console.log('cooling member (openai 429 retry-after 30 s at t=0; turns every 5 s)')
  for (const row of out.cooling) console.log(`  t=${String(row.atSeconds).padStart(2)} s  requests to openai: ${row.openaiRequests}  answered by: ${row.answeredBy}`)
  mkdirSync(new URL('./results/', import.meta.url), { recursive: true })
  writeFileSync(new URL('./results/ladder.json', import.meta.url), JSON.stringify(out, null, 2))
}
