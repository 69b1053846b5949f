/**
 * The fault matrix: every failure class, at the first, a middle and the last
 * member of a three-member chain, before and after the first delta, against
 * the fake providers over HTTP. Each case checks the rung the turn settles on,
 * the attempts in the receipt, which members were asked, and the order the
 * next turn walks (cooling members at the back, in place again once cooled).
 */
import { afterAll, beforeAll, describe, expect, it, test } from 'vitest'
import { startFakeProviders, type FakeProviders, type FaultRule } from '../../fixtures/providers/index.ts'
import { cooldownKey, ManualClock, MemoryCooldownStore, orderForTurn } from '../ladder/cooldown.ts'
import { FAILURE_CLASSES, type FailureClass } from '../ladder/failure.ts'
import type { MemberId } from '../providers/table.ts'
import { runTurn } from './run.ts'
import { fakeChain, searchResult } from './test-helpers.ts'
import type { TurnState } from './types.ts'

let fake: FakeProviders
beforeAll(async () => {
  fake = await startFakeProviders()
})
afterAll(() => fake.close())

interface Case {
  cls: FailureClass
  /** The member that can produce this class in its own wire shape. */
  member: MemberId
  rule: Omit<FaultRule, 'member'>
  afterDelta: boolean
}

const DAY_AHEAD = () => Date.now() + 6 * 3600_000

/**
 * The oracle, written out here rather than imported so a change to the ladder's
 * own rule cannot change what this test expects: a refused body and an unknown
 * error end the walk; every other class costs the member its turn.
 */
const ENDS_WALK: ReadonlySet<FailureClass> = new Set(['request_rejected', 'unknown'])
const stepsAside = (c: FailureClass): boolean => !ENDS_WALK.has(c)

const CASES: Case[] = [
  // Before the first delta: the status faults and transport failures.
  { cls: 'rate_limited', member: 'openai', rule: { fault: 'rate-limit' }, afterDelta: false },
  { cls: 'daily_quota', member: 'anthropic', rule: { fault: 'daily-quota' }, afterDelta: false },
  { cls: 'overloaded', member: 'anthropic', rule: { fault: 'overloaded' }, afterDelta: false },
  { cls: 'server_error', member: 'gemini', rule: { fault: 'server-error' }, afterDelta: false },
  { cls: 'auth', member: 'openai', rule: { fault: 'unauthorized' }, afterDelta: false },
  { cls: 'payment', member: 'openrouter', rule: { fault: 'payment-required' }, afterDelta: false },
  { cls: 'not_found', member: 'anthropic', rule: { fault: 'model-not-found' }, afterDelta: false },
  { cls: 'network', member: 'openai', rule: { fault: 'reset' }, afterDelta: false },
  { cls: 'timeout', member: 'gemini', rule: { fault: 'hang' }, afterDelta: false },
  { cls: 'request_rejected', member: 'anthropic', rule: { fault: 'bad-request' }, afterDelta: false },
  { cls: 'unknown', member: 'gemini', rule: { fault: 'server-error', status: 418 }, afterDelta: false },
  // An error inside a 200 stream before any delta is classified like its status twin.
  { cls: 'overloaded', member: 'anthropic', rule: { fault: 'stream-error', afterDeltas: 0 }, afterDelta: false },
  // A 200 head whose socket dies before any delta is a network failure: nothing began, so it rotates.
  { cls: 'network', member: 'openai', rule: { fault: 'stream-break', afterDeltas: 0 }, afterDelta: false },
  // A 200 stream that ends properly with no answer in it (nothing, or whitespace only) is no answer: it rotates.
  { cls: 'empty_answer', member: 'openai', rule: { text: '' }, afterDelta: false },
  { cls: 'empty_answer', member: 'anthropic', rule: { text: ' \n\n ', deltas: 2 }, afterDelta: false },
  { cls: 'empty_answer', member: 'ollama', rule: { text: '   ' }, afterDelta: false },
  // After the first delta: everything the wire can still do once the 200 head is out.
  { cls: 'stream_broken', member: 'anthropic', rule: { fault: 'stream-break', afterDeltas: 1 }, afterDelta: true },
  { cls: 'timeout', member: 'openai', rule: { fault: 'hang', afterDeltas: 1 }, afterDelta: true },
  { cls: 'server_error', member: 'openrouter', rule: { fault: 'stream-error', afterDeltas: 1 }, afterDelta: true },
  { cls: 'overloaded', member: 'anthropic', rule: { fault: 'stream-error', afterDeltas: 1 }, afterDelta: true },
  { cls: 'unknown', member: 'ollama', rule: { fault: 'stream-error', afterDeltas: 1 }, afterDelta: true },
  // OpenRouter's in-stream error carries a numeric code: every status class can also arrive after the first delta.
  // (network has no after-delta form: a connection lost mid-answer is stream_broken by definition.)
  { cls: 'rate_limited', member: 'openrouter', rule: { fault: 'stream-error', status: 429, afterDeltas: 1 }, afterDelta: true },
  { cls: 'daily_quota', member: 'openrouter', rule: { fault: 'stream-error', status: 429, message: 'Rate limit exceeded: free-models-per-day', afterDeltas: 1 }, afterDelta: true },
  { cls: 'auth', member: 'openrouter', rule: { fault: 'stream-error', status: 401, afterDeltas: 1 }, afterDelta: true },
  { cls: 'payment', member: 'openrouter', rule: { fault: 'stream-error', status: 402, afterDeltas: 1 }, afterDelta: true },
  { cls: 'not_found', member: 'openrouter', rule: { fault: 'stream-error', status: 404, afterDeltas: 1 }, afterDelta: true },
  { cls: 'request_rejected', member: 'openrouter', rule: { fault: 'stream-error', status: 400, afterDeltas: 1 }, afterDelta: true },
]

/** The proxy's refusal at a reader's own pace: no provider can send it, and core/ladder/client-limit.test.ts walks it through the real proxy. */
const PROVIDER_CLASSES = FAILURE_CLASSES.filter((c) => c !== 'client_rate_limited')

test('the matrix covers every provider failure class before the first delta, and every class after it but network and empty_answer', () => {
  const before = new Set(CASES.filter((c) => !c.afterDelta).map((c) => c.cls))
  const after = new Set(CASES.filter((c) => c.afterDelta).map((c) => c.cls))
  expect([...before].sort()).toEqual(PROVIDER_CLASSES.filter((c) => c !== 'stream_broken').sort())
  // (an empty answer has no after-delta form: an answer with a word in it is not empty.)
  expect([...after].sort()).toEqual(PROVIDER_CLASSES.filter((c) => c !== 'network' && c !== 'empty_answer').sort())
})

const FILLERS: MemberId[] = ['groq', 'mistral', 'deepseek', 'together']
const POSITIONS = ['first', 'middle', 'last'] as const

function chainFor(c: Case, position: (typeof POSITIONS)[number]): MemberId[] {
  const others = FILLERS.filter((m) => m !== c.member).slice(0, 2)
  const at = POSITIONS.indexOf(position)
  return [...others.slice(0, at), c.member, ...others.slice(at)]
}

function expectedState(c: Case, last: boolean): TurnState {
  if (c.afterDelta) return 'partial'
  if (!stepsAside(c.cls)) return 'hybrid'
  if (last) return c.cls === 'daily_quota' ? 'rate-limited' : 'hybrid'
  return 'answered'
}

describe('fault matrix', () => {
  for (const c of CASES) {
    for (const position of POSITIONS) {
      const label = `${c.cls} ${c.afterDelta ? 'after' : 'before'} the first delta at the ${position} member (${c.member})`
      it(label, async () => {
        await fake.reset()
        const members = chainFor(c, position)
        const at = members.indexOf(c.member)
        const last = at === members.length - 1
        const { chain, transport } = fakeChain(fake.env(), members)
        const cooldowns = new MemoryCooldownStore()
        const clock = new ManualClock()
        // Members ahead of the faulted one fail with a 5xx, so the walk reaches it.
        const rules: FaultRule[] = members.slice(0, at).map((m) => ({ member: m, fault: 'server-error', times: 1 }))
        const extra = c.rule.fault === 'daily-quota' ? { resetAt: DAY_AHEAD() } : {}
        rules.push({ member: c.member, ...c.rule, ...extra, times: 1 })
        await fake.control(rules)

        const r = await runTurn({
          question: 'How do I read a value?',
          retrieve: async () => searchResult(),
          chain,
          transport,
          cooldowns,
          clock,
          // Short limits only where a stall is the fault under test; generous ones elsewhere so load never fakes a timeout.
          options: { timeouts: c.rule.fault === 'hang' ? { firstByteMs: 250, idleMs: 250 } : { firstByteMs: 5000, idleMs: 5000 } },
        })

        // The rung the turn settles on.
        const state = expectedState(c, last)
        expect(r.state).toBe(state)
        expect(r.passages).toHaveLength(3)
        if (state === 'partial') {
          expect(r.cutOff).toBe(true)
          expect(r.text.length).toBeGreaterThan(0)
        }
        if (state === 'rate-limited') expect(r.resetAt).toBeGreaterThan(clock.now() + 3600_000)

        // The attempts, in order: 5xx for those ahead, the class under test, then the answer if the walk went on.
        const expectedAttempts: [MemberId, string][] = [
          ...members.slice(0, at).map((m) => [m, 'server_error'] as [MemberId, string]),
          [c.member, c.cls],
        ]
        if (state === 'answered') expectedAttempts.push([members[at + 1]!, 'ok'])
        expect(r.receipt.attempts.map((a) => [a.member, a.class])).toEqual(expectedAttempts)
        expect(r.receipt.outcome).toBe(state)

        // Each member asked at most once, nobody after the stop.
        const asked = (await fake.requests()).filter((q) => q.endpoint === 'chat').map((q) => q.member)
        expect(asked).toEqual(expectedAttempts.map(([m]) => m))

        // The next turn's order: members that stepped aside wait at the back.
        const cooled = new Set(members.slice(0, at))
        if (stepsAside(c.cls)) cooled.add(c.member)
        const nextOrder = [...members.filter((m) => !cooled.has(m)), ...members.filter((m) => cooled.has(m))]
        const order = () => orderForTurn(chain, (m) => cooldownKey(m.provider), cooldowns, clock.now()).map((m) => m.provider)
        expect(order()).toEqual(nextOrder)

        // ...and receive no request on the next turn while the others answer.
        await fake.reset()
        const next = await runTurn({
          question: 'And another?',
          retrieve: async () => searchResult(),
          chain,
          transport,
          cooldowns,
          clock,
        })
        expect(next.state).toBe('answered')
        expect(next.ladder?.provider).toBe(nextOrder[0])
        expect((await fake.requests()).filter((q) => q.endpoint === 'chat').map((q) => q.member)).toEqual([nextOrder[0]])

        // Once the cooldowns end (60 s; a daily quota waits for its reset), the configured order is back.
        clock.advance(60_001)
        if (c.rule.fault === 'daily-quota' && cooled.has(c.member)) {
          expect(order().at(-1)).toBe(c.member)
          clock.advance(7 * 3600_000)
        }
        expect(order()).toEqual(members)
      })
    }
  }
})
