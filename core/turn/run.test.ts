import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { startFakeProviders, type FakeProviders, type FaultRule } from '../../fixtures/providers/index.ts'
import { cooldownKey, ManualClock, MemoryCooldownStore, orderForTurn } from '../ladder/cooldown.ts'
import { FREE_ROUTER } from '../ladder/free-pool.ts'
import { routeTransport } from '../ladder/transport.ts'
import type { MemberId } from '../providers/table.ts'
import { HYBRID_NOTICE, ERROR_NOTICE, MEANWHILE_NOTICE } from './copy.ts'
import { runTurn } from './run.ts'
import { fakeChain, PASSAGE_TEXTS, searchResult, type FakeChain } from './test-helpers.ts'
import type { TurnEvent, TurnInput } from './types.ts'

let fake: FakeProviders
beforeAll(async () => {
  fake = await startFakeProviders()
})
afterAll(() => fake.close())
beforeEach(() => fake.reset())

const QUESTION = 'How do I share a value between middleware and a handler?'

function setup(members: Parameters<typeof fakeChain>[1], extra: Record<string, unknown> = {}) {
  const fc = fakeChain(fake.env(), members, extra)
  const cooldowns = new MemoryCooldownStore()
  const clock = new ManualClock()
  const events: TurnEvent[] = []
  const turn = (over: Partial<TurnInput> = {}) => {
    events.length = 0
    return runTurn({
      question: QUESTION,
      retrieve: async () => searchResult(),
      chain: fc.chain,
      transport: fc.transport,
      cooldowns,
      clock,
      onEvent: (e) => events.push(e),
      options: { timeouts: { firstByteMs: 2000, idleMs: 2000 } },
      ...over,
    })
  }
  const order = () => orderForTurn(fc.chain, (m) => cooldownKey(m.provider), cooldowns, clock.now()).map((m) => m.provider)
  return { ...fc, cooldowns, clock, events, turn, order }
}

const chatRequests = async () => (await fake.requests()).filter((r) => r.endpoint === 'chat')
const requested = async () => (await chatRequests()).map((r) => r.member)
const faults = (...rules: FaultRule[]) => fake.control(rules)

describe('runTurn: settling', () => {
  it('answers through the head member and streams its deltas', async () => {
    const t = setup(['openai', 'groq'])
    await faults({ member: 'openai', text: 'Use c.set() [1].', deltas: 3 })
    const r = await t.turn()
    expect(r.state).toBe('answered')
    expect(r.text).toBe('Use c.set() [1].')
    expect(t.events.filter((e) => e.type === 'delta').map((e) => (e as { text: string }).text).join('')).toBe(r.text)
    expect(r.citations[0]).toMatchObject({ n: 1, href: '/docs/api/p0#h0' })
    expect(r.ladder).toEqual({ provider: 'openai', index: 0, freePool: null })
    expect(await requested()).toEqual(['openai'])
  })

  it('a gate refusal settles before any model is called', async () => {
    const t = setup(['openai'])
    const r = await t.turn({ retrieve: async () => searchResult({ gate: { pass: false, score: 0.1, signals: { vocabulary: 1, cooccurrence: 0.1, meaning: 0.1 }, refusedFor: 'evidence' } }) })
    expect(r.state).toBe('refused')
    expect(r.passages).toHaveLength(3)
    expect(r.receipt.attempts).toEqual([])
    expect(await fake.requests()).toEqual([])
  })

  it('says with the passages, before the first delta, how many of them the model is given (the budget may stop short)', async () => {
    const t = setup(['openai'])
    await faults({ member: 'openai', text: 'Use c.set() [1].' })
    const r = await t.turn({ options: { prompt: { passageTokens: 40 } } })
    expect(r.citations).toHaveLength(1)
    expect(t.events[0]).toMatchObject({ type: 'retrieval', given: 1 })
    expect((t.events[0] as { passages: unknown[] }).passages).toHaveLength(3)
  })

  it('a failure before retrieval is the transport error, with nothing to show and no model called', async () => {
    const t = setup(['openai'])
    const r = await t.turn({ retrieve: async () => Promise.reject(new Error('index unreachable')) })
    expect(r.state).toBe('error')
    expect(r.passages).toEqual([])
    expect(await fake.requests()).toEqual([])
    expect(ERROR_NOTICE).toBe("The AI service didn't respond.")
  })

  it('when every member fails, settles hybrid with the passages this turn retrieved, each member asked once', async () => {
    const t = setup(['openai', 'anthropic', 'gemini', 'ollama'])
    await faults(
      { member: 'openai', fault: 'server-error' },
      { member: 'anthropic', fault: 'overloaded' },
      { member: 'gemini', fault: 'unauthorized' },
      { member: 'ollama', fault: 'reset' },
    )
    const r = await t.turn()
    expect(r.state).toBe('hybrid')
    expect(r.text).toBe('')
    expect(r.passages.map((p) => p.text)).toEqual(PASSAGE_TEXTS)
    expect(r.receipt.attempts.map((a) => [a.member, a.class])).toEqual([
      ['openai', 'server_error'],
      ['anthropic', 'overloaded'],
      ['gemini', 'auth'],
      ['ollama', 'network'],
    ])
    expect(await requested()).toEqual(['openai', 'anthropic', 'gemini', 'ollama'])
    expect(HYBRID_NOTICE).toBe("The AI models aren't reachable right now — this is a search answer. The closest passages:")
    expect(MEANWHILE_NOTICE).toBe('Meanwhile, the closest passages:')
  })

  it("a reasoning model's <think> block reaches neither the reader nor the answer; one that only thinks answered nothing", async () => {
    const t = setup(['groq', 'openai'])
    await faults({ member: 'groq', text: '<think>\nThe reader asks about c.set; [1] covers it.\n</think>\n\nUse c.set() [1].', deltas: 7 })
    const r = await t.turn()
    expect(r.state).toBe('answered')
    expect(r.text).toBe('Use c.set() [1].')
    expect(t.events.filter((e) => e.type === 'delta').map((e) => (e as { text: string }).text).join('')).toBe(r.text)
    await fake.reset()
    await faults({ member: 'groq', text: '<think>\nThe reader asks about c.set; [1] covers', deltas: 5 }, { member: 'openai', text: 'Use c.set() [1].' })
    const thoughtOnly = await t.turn()
    expect(thoughtOnly.text).toBe('Use c.set() [1].')
    expect(thoughtOnly.receipt.attempts.map((a) => [a.member, a.class])).toEqual([['groq', 'empty_answer'], ['openai', 'ok']])
  })

  it('a model sending only the closing </think> (its template wrote the opening one): its thinking is taken back off the screen', async () => {
    const t = setup(['groq', 'openai'])
    const screen = () => t.events.reduce((shown, e) => (e.type === 'retract' ? '' : e.type === 'delta' ? shown + e.text : shown), '')
    await faults({ member: 'groq', text: 'Okay, the reader asks about c.set; [1] covers it.\n</think>\n\nUse c.set() [1].', deltas: 9 })
    const r = await t.turn()
    expect([r.state, r.text]).toEqual(['answered', 'Use c.set() [1].'])
    expect(t.events.filter((e) => e.type === 'retract')).toHaveLength(1)
    expect(screen()).toBe(r.text)
    // A thought that stops at its closing tag answered nothing: the next member is asked, as for a <think> block.
    await fake.reset()
    await faults({ member: 'groq', text: 'Okay, the reader asks about c.set; [1] covers it.\n</think>\n', deltas: 5 }, { member: 'openai', text: 'Use c.set() [1].' })
    const thoughtOnly = await t.turn()
    expect([thoughtOnly.state, thoughtOnly.text, screen()]).toEqual(['answered', 'Use c.set() [1].', 'Use c.set() [1].'])
    expect(thoughtOnly.receipt.attempts.map((a) => [a.member, a.class])).toEqual([['groq', 'empty_answer'], ['openai', 'ok']])
  })

  it('a model that spends every token thinking in reasoning fields never ends the turn empty-handed', async () => {
    const sse = (frames: object[]) => new Response([...frames.map((f) => JSON.stringify(f)), '[DONE]'].map((f) => `data: ${f}\n\n`).join(''), { headers: { 'content-type': 'text/event-stream' } })
    const thinksForever = async () =>
      sse([
        { choices: [{ delta: { role: 'assistant', content: null, reasoning_content: 'The reader asks about c.set' }, finish_reason: null }] },
        { choices: [{ delta: { content: '', reasoning: ' and [1] covers' }, finish_reason: null }] },
        { choices: [{ delta: {}, finish_reason: 'length' }] },
      ])
    const r = await setup(['openai']).turn({ transport: thinksForever })
    // Its thoughts are not the answer, and a cut-off nothing is no answer either: the reader gets the search answer.
    expect([r.state, r.text, r.passages.length]).toEqual(['hybrid', '', 3])
    expect(r.receipt.attempts.map((a) => a.class)).toEqual(['empty_answer'])
  })

  it('an answer that ran into the output-token ceiling is marked cut off, in each protocol\'s spelling; one that finished is not', async () => {
    const t = setup(['openai'])
    const sse = (frames: string[]) => new Response(frames.map((f) => `data: ${f}\n\n`).join(''), { headers: { 'content-type': 'text/event-stream' } })
    const stoppedBy = (finish: string) => async () => sse([JSON.stringify({ choices: [{ delta: { content: 'First, install the' }, finish_reason: finish }] }), '[DONE]'])
    const cut = await t.turn({ transport: stoppedBy('length') })
    expect([cut.state, cut.cutOff, cut.text]).toEqual(['partial', true, 'First, install the'])
    expect(cut.receipt.attempts.map((a) => a.class)).toEqual(['ok'])
    expect((await t.turn({ transport: stoppedBy('stop') })).state).toBe('answered')
    const anthropic = setup(['anthropic'])
    const maxTokens = async () =>
      sse([
        JSON.stringify({ type: 'content_block_delta', delta: { type: 'text_delta', text: 'First, install the' } }),
        JSON.stringify({ type: 'message_delta', delta: { stop_reason: 'max_tokens' } }),
        JSON.stringify({ type: 'message_stop' }),
      ])
    expect((await anthropic.turn({ transport: maxTokens })).state).toBe('partial')
    const gemini = setup(['gemini'])
    const geminiMax = async () => sse([JSON.stringify({ candidates: [{ content: { parts: [{ text: 'First, install the' }] }, finishReason: 'MAX_TOKENS' }] })])
    expect((await gemini.turn({ transport: geminiMax })).state).toBe('partial')
  })

  it('a model that finishes without a word of answer costs its member the turn: the next answers, and the last ends in the search answer', async () => {
    const t = setup(['openai', 'groq'])
    await faults({ member: 'openai', text: '' }, { member: 'groq', text: 'Use c.set() [1].' })
    const r = await t.turn()
    expect(r.state).toBe('answered')
    expect(r.text).toBe('Use c.set() [1].')
    expect(r.receipt.attempts.map((a) => [a.member, a.class])).toEqual([['openai', 'empty_answer'], ['groq', 'ok']])
    await fake.reset()
    await faults({ member: 'openai', text: '  \n ' }, { member: 'groq', text: '\n' })
    const none = await t.turn()
    expect(none.state).toBe('hybrid')
    expect(none.passages.map((p) => p.text)).toEqual(PASSAGE_TEXTS)
    // A stream that broke after whitespace alone showed nothing: it rotates rather than settling as an empty cut-off answer.
    await fake.reset()
    t.clock.advance(60_001)
    await faults({ member: 'openai', fault: 'stream-break', afterDeltas: 1, text: '   one', deltas: 2 })
    const broken = await t.turn()
    expect(broken.state).toBe('answered')
    expect(broken.ladder?.provider).toBe('groq')
  })

  it('an abort ends the turn aborted and cancels the upstream request', async () => {
    const t = setup(['groq', 'openai'])
    await faults({ member: 'groq', fault: 'hang', afterDeltas: 1 })
    const ac = new AbortController()
    const signals: AbortSignal[] = []
    const transport: typeof t.transport = (m, req) => {
      signals.push(req.signal)
      return t.transport(m, req)
    }
    const r = await t.turn({
      transport,
      signal: ac.signal,
      // No time limit can end this turn (the fake hangs after one delta): only the abort can.
      options: { timeouts: { firstByteMs: 3_600_000, idleMs: 3_600_000 } },
      onEvent: (e) => {
        if (e.type === 'delta') setTimeout(() => ac.abort(), 20)
      },
    })
    expect(r.state).toBe('aborted')
    expect(signals).toHaveLength(1)
    expect(signals[0]!.aborted).toBe(true)
    expect(r.receipt.attempts.map((a) => a.class)).toEqual(['aborted'])
    // Nothing rotated to openai, and nothing cooled: the reader stopped it.
    expect(await requested()).toEqual(['groq'])
    expect(t.order()).toEqual(['groq', 'openai'])
  })
})

describe('runTurn: the walk', () => {
  it('429 · 5xx · 401/403 · network · timeout each cost a member its turn; the next member answers', async () => {
    // Anthropic's 529 overloaded_error is the same rule in its own wire shape (the fault matrix drives it at every position).
    const cases: [FaultRule, string][] = [
      [{ fault: 'rate-limit' }, 'rate_limited'],
      [{ fault: 'server-error', status: 502 }, 'server_error'],
      [{ fault: 'overloaded' }, 'overloaded'], // a 503 "overloaded" is a 5xx too
      [{ fault: 'unauthorized' }, 'auth'],
      [{ fault: 'forbidden' }, 'auth'],
      [{ fault: 'reset' }, 'network'],
      [{ fault: 'hang' }, 'timeout'],
    ]
    for (const [rule, cls] of cases) {
      await fake.reset()
      const t = setup(['mistral', 'together'])
      await faults({ member: 'mistral', ...rule })
      const limit = rule.fault === 'hang' ? 200 : 5000
      const r = await t.turn({ options: { timeouts: { firstByteMs: limit, idleMs: limit } } })
      expect(r.state, cls).toBe('answered')
      expect(r.receipt.attempts.map((a) => [a.member, a.class]), cls).toEqual([
        ['mistral', cls],
        ['together', 'ok'],
      ])
    }
  })

  it('a refused request body ends the walk (no member is asked to refuse it again)', async () => {
    const t = setup(['openai', 'groq', 'gemini'])
    await faults({ member: 'openai', fault: 'bad-request' })
    const r = await t.turn()
    expect(r.state).toBe('hybrid')
    expect(r.receipt.stoppedBy).toBe('request_rejected')
    expect(await requested()).toEqual(['openai'])
  })

  it('an unknown error is never retried blind', async () => {
    const t = setup(['gemini', 'groq'])
    await faults({ member: 'gemini', fault: 'server-error', status: 418 })
    const r = await t.turn()
    expect(r.state).toBe('hybrid')
    expect(r.receipt.attempts.map((a) => a.class)).toEqual(['unknown'])
    expect(await requested()).toEqual(['gemini'])
  })

  it("only the last member's daily 429 escapes, as rate-limited with the reset the service named", async () => {
    const resetAt = Date.now() + 5 * 3600_000
    const t = setup(['groq', 'anthropic'])
    await faults({ member: 'groq', fault: 'server-error' }, { member: 'anthropic', fault: 'daily-quota', resetAt })
    const r = await t.turn()
    expect(r.state).toBe('rate-limited')
    expect(Math.abs(r.resetAt! - resetAt)).toBeLessThan(1000)
    expect(r.receipt.resetAt).toBe(new Date(r.resetAt!).toISOString())
    expect(r.passages).toHaveLength(3)

    // An earlier member's daily 429 does not escape: the next member answers.
    await fake.reset()
    const u = setup(['anthropic', 'groq'])
    await faults({ member: 'anthropic', fault: 'daily-quota', resetAt })
    expect((await u.turn()).state).toBe('answered')

    // Nor does it escape when the last member failed otherwise.
    await fake.reset()
    const v = setup(['anthropic', 'groq'])
    await faults({ member: 'anthropic', fault: 'daily-quota', resetAt }, { member: 'groq', fault: 'server-error' })
    expect((await v.turn()).state).toBe('hybrid')
  })

  it('nothing rotates once a delta is on screen: a broken stream settles partial, marked cut off', async () => {
    const t = setup(['anthropic', 'openai'])
    await faults({ member: 'anthropic', fault: 'stream-break', afterDeltas: 2, text: 'one two three four five', deltas: 5 })
    const r = await t.turn()
    expect(r.state).toBe('partial')
    expect(r.cutOff).toBe(true)
    expect(r.text).toBe('one two')
    expect(await requested()).toEqual(['anthropic'])
    expect(r.receipt.attempts.map((a) => a.class)).toEqual(['stream_broken'])
  })

  it('rotation is silent: a turn answered by the second member emits only retrieval, deltas and settled', async () => {
    const t = setup(['openai', 'groq'])
    await faults({ member: 'openai', fault: 'server-error' })
    const r = await t.turn()
    expect(r.state).toBe('answered')
    expect(new Set(t.events.map((e) => e.type))).toEqual(new Set(['retrieval', 'delta', 'settled']))
    expect(r.ladder).toEqual({ provider: 'groq', index: 1, freePool: null })
    // The embed half never rotates: the ladder only ever calls chat endpoints.
    expect((await fake.requests()).every((q) => q.endpoint === 'chat')).toBe(true)
  })

  it('a model name reaches the head member only', async () => {
    const t = setup(['openai', 'groq'], { model: 'gpt-4o' })
    await faults({ member: 'openai', fault: 'server-error' })
    await t.turn()
    expect((await chatRequests()).map((q) => [q.member, q.model])).toEqual([
      ['openai', 'gpt-4o'],
      ['groq', 'llama-3.3-70b-versatile'],
    ])
  })
})

describe('runTurn: cooldowns', () => {
  it('a member that stepped aside goes to the back for 60 s, receives no request while cooling, then is back in its place', async () => {
    const t = setup(['openai', 'groq', 'gemini'])
    await faults({ member: 'openai', fault: 'server-error', times: 1 })
    expect((await t.turn()).ladder?.provider).toBe('groq')
    expect(t.order()).toEqual(['groq', 'gemini', 'openai'])
    await fake.reset()
    for (let i = 0; i < 3; i++) {
      t.clock.advance(19_000)
      const r = await t.turn()
      // No request to openai while it cools; turn.ladder.index stays the configured position, not the turn's.
      expect(r.ladder).toEqual({ provider: 'groq', index: 1, freePool: null })
    }
    expect(await requested()).toEqual(['groq', 'groq', 'groq'])
    t.clock.advance(3_001) // 60 s after it stepped aside
    expect(t.order()).toEqual(['openai', 'groq', 'gemini'])
    expect((await t.turn()).ladder?.provider).toBe('openai')
  })

  it("a member's own retry-after sets its cooldown instead of 60 s", async () => {
    const t = setup(['openai', 'groq'])
    await faults({ member: 'openai', fault: 'rate-limit', retryAfter: 120, times: 1 })
    await t.turn()
    t.clock.advance(61_000)
    expect(t.order()).toEqual(['groq', 'openai'])
    t.clock.advance(60_000)
    expect(t.order()).toEqual(['openai', 'groq'])
  })

  it('a cooling member is never out: when everyone else fails it is still asked, last', async () => {
    const t = setup(['openai', 'groq'])
    await faults({ member: 'openai', fault: 'server-error', times: 1 })
    await t.turn()
    await fake.reset()
    await faults({ member: 'groq', fault: 'server-error', times: 1 })
    const r = await t.turn()
    expect(r.state).toBe('answered')
    expect(r.receipt.attempts.map((a) => [a.member, a.class])).toEqual([
      ['groq', 'server_error'],
      ['openai', 'ok'],
    ])
  })

  it('there is no sticky member: the member that answered is not promoted above the configured head', async () => {
    const t = setup(['openai', 'openrouter'])
    await faults({ member: 'openai', fault: 'rate-limit', times: 1 })
    expect((await t.turn()).ladder?.provider).toBe('openrouter')
    t.clock.advance(60_001)
    await fake.reset()
    const r = await t.turn()
    expect(r.ladder?.provider).toBe('openai')
    expect(await requested()).toEqual(['openai'])
  })
})

describe('runTurn: the free pool', () => {
  it('OpenRouter with no model named sends openrouter/free: one id, one request', async () => {
    const t = setup(['openrouter', 'groq'])
    await faults({ member: 'openrouter', fault: 'rate-limit' })
    const r = await t.turn()
    expect((await chatRequests()).map((q) => [q.member, q.model])).toEqual([
      ['openrouter', FREE_ROUTER],
      ['groq', 'llama-3.3-70b-versatile'],
    ])
    expect(r.ladder?.provider).toBe('groq')
  })

  it("model: 'free' walks the pool inside the member: one id's 429 moves to the next id", async () => {
    const t = setup([{ provider: 'openrouter', model: 'free' }, 'groq'])
    const pool = t.chain[0]!.models
    await faults({ member: 'openrouter', model: pool[0], fault: 'rate-limit' }, { member: 'openrouter', model: pool[1], fault: 'rate-limit' })
    const r = await t.turn()
    expect(r.state).toBe('answered')
    expect((await chatRequests()).map((q) => q.model)).toEqual(pool.slice(0, 3))
    expect(r.ladder).toEqual({ provider: 'openrouter', index: 0, freePool: { index: 2, model: pool[2] } })
    // Next turn the saturated ids wait at the back of the pool; the member itself did not step aside.
    await fake.reset()
    expect(t.order()).toEqual(['openrouter', 'groq'])
    await t.turn()
    expect((await chatRequests()).map((q) => q.model)).toEqual([pool[2]])
  })

  it('an id that finishes with an empty answer moves to the next id; a pool of empty answers ends in the search answer', async () => {
    const t = setup([{ provider: 'openrouter', model: 'free' }])
    const pool = t.chain[0]!.models
    await faults({ member: 'openrouter', model: pool[0], text: '' }, { member: 'openrouter', model: pool[1], text: 'Use c.set() [1].' })
    const r = await t.turn()
    expect(r.state).toBe('answered')
    expect(r.text).toBe('Use c.set() [1].')
    expect(r.receipt.attempts.map((a) => a.class)).toEqual(['empty_answer', 'ok'])
    await fake.reset()
    await faults({ member: 'openrouter', text: ' \n' })
    const none = await t.turn()
    expect(none.state).toBe('hybrid')
    expect(none.passages).toHaveLength(3)
  })

  it('a refusal about the request body ends the pool at once, rather than buying it ten times', async () => {
    const t = setup([{ provider: 'openrouter', model: 'free' }, 'groq'])
    await faults({ member: 'openrouter', fault: 'bad-request' })
    const r = await t.turn()
    expect(r.state).toBe('hybrid')
    expect(await requested()).toEqual(['openrouter'])
  })

  it('nothing rotates inside the pool once a delta is on screen: a broken stream settles partial', async () => {
    const t = setup([{ provider: 'openrouter', model: 'free' }, 'groq'])
    const pool = t.chain[0]!.models
    await faults({ member: 'openrouter', model: pool[0], fault: 'stream-break', afterDeltas: 1, text: 'one two three', deltas: 3 })
    const r = await t.turn()
    expect(r.state).toBe('partial')
    expect(r.text).toBe('one')
    expect((await chatRequests()).map((q) => [q.member, q.model])).toEqual([['openrouter', pool[0]]])
    expect(r.ladder).toEqual({ provider: 'openrouter', index: 0, freePool: { index: 0, model: pool[0] } })
  })

  it('a daily quota ends the pool and the member steps aside until the reset', async () => {
    const resetAt = Date.now() + 8 * 3600_000
    const t = setup([{ provider: 'openrouter', model: 'free' }, 'groq'])
    await faults({ member: 'openrouter', fault: 'daily-quota', resetAt })
    const r = await t.turn()
    expect(r.ladder?.provider).toBe('groq')
    expect(await requested()).toEqual(['openrouter', 'groq'])
    t.clock.advance(2 * 3600_000)
    expect(t.order()).toEqual(['groq', 'openrouter'])
    t.clock.set(resetAt + 1)
    expect(t.order()).toEqual(['openrouter', 'groq'])
  })

  it('as the only member, a spent free day escapes as rate-limited', async () => {
    const t = setup([{ provider: 'openrouter', model: 'free' }])
    await faults({ member: 'openrouter', fault: 'daily-quota' })
    const r = await t.turn()
    expect(r.state).toBe('rate-limited')
    expect(r.resetAt).toBeGreaterThan(Date.now())
    expect(await requested()).toEqual(['openrouter'])
  })
})

describe('the receipt', () => {
  it('records ordered attempts and stage timings, never prompt text, answer text or credentials', async () => {
    const t = setup(['openai', 'anthropic', 'gemini'])
    await faults({ member: 'openai', fault: 'rate-limit', retryAfter: 3 }, { member: 'anthropic', text: 'The secret answer is c.set() [1].' })
    const r = await t.turn()
    const rc = r.receipt
    expect(rc.outcome).toBe('answered')
    expect(rc.retrieval).toEqual({ mode: 'hybrid', degraded: false, gate: { pass: true, score: 0.7 }, passages: 3 })
    expect(rc.stages.retrieveMs).toBeGreaterThanOrEqual(0)
    expect(rc.stages.answerMs).toBeGreaterThan(0)
    expect(rc.attempts).toHaveLength(2)
    expect(rc.attempts[0]).toMatchObject({ member: 'openai', model: 'gpt-4o-mini', class: 'rate_limited', status: 429, firstDeltaMs: null })
    expect(rc.attempts[1]).toMatchObject({ member: 'anthropic', class: 'ok', status: 200 })
    expect(rc.attempts[1]!.ttfbMs).toBeGreaterThan(0)
    expect(rc.attempts[1]!.firstDeltaMs).toBeGreaterThanOrEqual(rc.attempts[1]!.ttfbMs!)
    expect(rc.attempts[1]!.durationMs).toBeGreaterThanOrEqual(rc.attempts[1]!.firstDeltaMs!)
    expect(rc.ladder).toEqual({ provider: 'anthropic', index: 1, freePool: null })

    const text = JSON.stringify(rc)
    expect(r.text).toBe('The secret answer is c.set() [1].')
    for (const forbidden of [QUESTION, r.text, 'secret answer', ...PASSAGE_TEXTS, 'Answer from', 'numbered passages', ...Object.values(fake.env()).filter((v) => v.startsWith('test-key'))]) {
      expect(text).not.toContain(forbidden)
    }
    expect(text).not.toMatch(/test-key|Bearer|api[-_]?key/i)
  })
})

describe('no key reaches the browser', () => {
  it('the panel transport posts to the same-origin route with no credential header', async () => {
    const t = setup(['openai', 'anthropic'])
    const seen: { url: string; headers: Record<string, string> }[] = []
    const transport = routeTransport({
      origin: 'https://docs.example',
      fetch: async (url, init) => {
        seen.push({ url, headers: init.headers as Record<string, string> })
        return new Response('', { status: 503 })
      },
    })
    await t.turn({ transport })
    expect(seen.map((s) => s.url)).toEqual(['https://docs.example/ai/openai/chat/completions', 'https://docs.example/ai/anthropic/messages'])
    for (const s of seen) expect(Object.keys(s.headers).map((h) => h.toLowerCase())).not.toEqual(expect.arrayContaining(['authorization']))
    for (const s of seen) expect(Object.keys(s.headers).join(' ')).not.toMatch(/authorization|x-api-key|x-goog-api-key/i)
  })
})

export type { FakeChain, MemberId }
