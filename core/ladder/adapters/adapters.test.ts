import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { startFakeProviders, type FakeProviders } from '../../../fixtures/providers/index.ts'
import { CHAIN, providerSpec, type MemberId } from '../../providers/table.ts'
import { fakeChain } from '../../turn/test-helpers.ts'
import { runAttempt } from '../attempt.ts'
import { ManualClock } from '../cooldown.ts'
import { adapterFor } from './index.ts'
import type { ChatRequest } from './types.ts'

let fake: FakeProviders
beforeAll(async () => {
  fake = await startFakeProviders()
})
afterAll(() => fake.close())
beforeEach(() => fake.reset())

const request: ChatRequest = {
  messages: [
    { role: 'system', content: 'Answer from the passages.' },
    { role: 'user', content: 'Passages:\n\n[1] Context (/docs/context#set)\nUse c.set()\n\nQuestion: how do I share values?' },
  ],
  maxTokens: 256,
  temperature: 0.2,
}

async function ask(member: MemberId, opts: { timeouts?: { firstByteMs: number; idleMs: number } } = {}) {
  const { chain, transport } = fakeChain(fake.env(), [member])
  const deltas: string[] = []
  const m = chain[0]!
  const outcome = await runAttempt({
    member: m,
    index: 0,
    model: m.models[0]!,
    adapter: adapterFor(providerSpec(member).protocol),
    request,
    transport,
    timeouts: opts.timeouts ?? { firstByteMs: 5000, idleMs: 5000 },
    clock: new ManualClock(),
    onDelta: (t) => deltas.push(t),
    onRetract: () => deltas.splice(0),
  })
  return { outcome, deltas }
}

describe('adapters against the fake providers, over HTTP', () => {
  it.each(CHAIN.map((s) => s.id))('%s: streams the answer in deltas, with the served model, usage and finish', async (member) => {
    await fake.control({ member, text: 'Share values with c.set() and read them with c.get() [1].', deltas: 5 })
    const { outcome, deltas } = await ask(member)
    expect(outcome.kind).toBe('ok')
    expect(deltas.length).toBeGreaterThanOrEqual(2)
    expect(deltas.join('')).toBe('Share values with c.set() and read them with c.get() [1].')
    expect(outcome.text).toBe(deltas.join(''))
    expect(outcome.record.status).toBe(200)
    expect(outcome.record.servedModel).toBeTruthy()
    expect(outcome.finishReason).toBeTruthy()
    const [req] = await fake.requests()
    expect(req!.member).toBe(member)
    expect(req!.endpoint).toBe('chat')
  })

  it('sends each protocol its own request shape, with the key in the header its service reads', async () => {
    for (const member of ['openai', 'gemini', 'anthropic', 'ollama'] as const) {
      await fake.reset()
      await ask(member)
      const [req] = await fake.requests()
      const body = req!.body as Record<string, unknown>
      if (member === 'openai') {
        expect(req!.path).toBe('/openai/v1/chat/completions')
        expect(req!.headers.authorization).toBe('Bearer test-key-openai')
        expect(body).toMatchObject({ model: 'gpt-4o-mini', stream: true, max_tokens: 256 })
      } else if (member === 'gemini') {
        expect(req!.path).toBe('/gemini/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse')
        expect(req!.headers['x-goog-api-key']).toBe('test-key-gemini')
        expect(body).toMatchObject({ systemInstruction: { parts: [{ text: 'Answer from the passages.' }] }, generationConfig: { maxOutputTokens: 256 } })
      } else if (member === 'anthropic') {
        expect(req!.path).toBe('/anthropic/v1/messages')
        expect(req!.headers['x-api-key']).toBe('test-key-anthropic')
        expect(req!.headers['anthropic-version']).toBe('2023-06-01')
        expect(body).toMatchObject({ system: 'Answer from the passages.', stream: true, max_tokens: 256 })
      } else {
        expect(req!.path).toBe('/ollama/api/chat')
        expect(body).toMatchObject({ model: 'llama3.2', stream: true })
      }
    }
  })

  const statusFaults: [string, string][] = [
    ['rate-limit', 'rate_limited'],
    ['daily-quota', 'daily_quota'],
    ['server-error', 'server_error'],
    ['unauthorized', 'auth'],
    ['forbidden', 'auth'],
    ['payment-required', 'payment'],
    ['bad-request', 'request_rejected'],
  ]
  const members: MemberId[] = ['openai', 'gemini', 'anthropic', 'openrouter', 'groq', 'deepseek', 'mistral', 'ollama']
  for (const member of members) {
    it(`${member}: classifies the service's own error replies`, async () => {
      const resetAt = Date.now() + 6 * 3600_000
      for (const [fault, cls] of statusFaults) {
        await fake.reset()
        await fake.control({ member, fault: fault as never, resetAt, retryAfter: fault === 'rate-limit' ? 7 : undefined })
        const { outcome } = await ask(member)
        expect(outcome.kind, fault).toBe('failed')
        expect(outcome.failure!.class, `${member} ${fault}`).toBe(cls)
        if (fault === 'rate-limit') expect(outcome.failure!.retryAfterMs, `${member} retry-after`).toBe(7000)
        if (fault === 'daily-quota' && member !== 'ollama') {
          // The reset the service named, to the second.
          expect(Math.abs(outcome.failure!.resetAt! - resetAt), `${member} reset`).toBeLessThan(2000)
        }
      }
    })
  }

  it('classifies Anthropic 529 overloaded_error and the 503 overload of the others', async () => {
    for (const member of ['anthropic', 'openai', 'gemini', 'openrouter'] as const) {
      await fake.reset()
      await fake.control({ member, fault: 'overloaded' })
      const { outcome } = await ask(member)
      expect(outcome.failure!.class, member).toBe('overloaded')
    }
    await fake.reset()
    await fake.control({ member: 'anthropic', fault: 'overloaded' })
    expect((await ask('anthropic')).outcome.failure).toMatchObject({ status: 529, code: 'overloaded_error' })
  })

  it('reads retry-after-ms and Gemini retryDelay', async () => {
    await fake.control({ member: 'openai', fault: 'rate-limit', retryAfterMs: 1500 })
    expect((await ask('openai')).outcome.failure!.retryAfterMs).toBe(1500)
    await fake.reset()
    await fake.control({ member: 'gemini', fault: 'rate-limit', retryAfter: 33 })
    expect((await ask('gemini')).outcome.failure).toMatchObject({ class: 'rate_limited', retryAfterMs: 33_000 })
  })

  it('detects errors sent inside a 200 stream, after the first delta', async () => {
    const expected: Record<string, string> = { openrouter: 'server_error', openai: 'server_error', gemini: 'server_error', anthropic: 'overloaded' }
    for (const [member, cls] of Object.entries(expected)) {
      await fake.reset()
      await fake.control({ member: member as MemberId, fault: 'stream-error', afterDeltas: 1 })
      const { outcome, deltas } = await ask(member as MemberId)
      expect(outcome.kind, member).toBe('failed')
      expect(outcome.afterDelta, member).toBe(true)
      expect(deltas.length, member).toBe(1)
      expect(outcome.failure!.class, member).toBe(cls)
    }
  })

  it('a connection reset is network, a stall is timeout, a socket cut after a delta is stream_broken', async () => {
    await fake.control({ member: 'groq', fault: 'reset' })
    expect((await ask('groq')).outcome.failure!.class).toBe('network')
    await fake.reset()
    await fake.control({ member: 'groq', fault: 'hang' })
    const hung = await ask('groq', { timeouts: { firstByteMs: 150, idleMs: 150 } })
    expect(hung.outcome.failure!.class).toBe('timeout')
    expect(hung.outcome.afterDelta).toBe(false)
    await fake.reset()
    await fake.control({ member: 'gemini', fault: 'hang', afterDeltas: 2 })
    // The idle limit only has to outlast the gap between the two deltas the fake sends, on a loaded machine too: the stall after them never ends.
    const stalled = await ask('gemini', { timeouts: { firstByteMs: 2000, idleMs: 1000 } })
    expect(stalled.outcome.failure!.class).toBe('timeout')
    expect(stalled.deltas).toHaveLength(2)
    await fake.reset()
    await fake.control({ member: 'anthropic', fault: 'stream-break', afterDeltas: 1 })
    const broken = await ask('anthropic')
    expect(broken.outcome.failure!.class).toBe('stream_broken')
    expect(broken.outcome.afterDelta).toBe(true)
  })
})

describe('thinking sent beside the answer is not answer text', () => {
  const texts = (protocol: 'openai' | 'ollama', wire: string) =>
    adapterFor(protocol)
      .decoder(() => 0)
      .push(wire)
      .flatMap((e) => (e.type === 'delta' ? [e.text] : []))

  it('OpenAI-compatible reasoning_content (DeepSeek, llama-server) and reasoning (OpenRouter, Groq parsed)', () => {
    const chunk = (delta: object) => `data: ${JSON.stringify({ choices: [{ delta, finish_reason: null }] })}\n\n`
    const wire = chunk({ role: 'assistant', content: null, reasoning_content: 'The reader asks' }) + chunk({ content: '', reasoning: 'about c.set' }) + chunk({ content: 'Use c.set() [1].' })
    expect(texts('openai', wire)).toEqual(['Use c.set() [1].'])
  })

  it.each([
    ['reasoning_content', { content: null, reasoning_content: 'thought ' }],
    ['reasoning beside an empty reasoning_content', { content: '', reasoning_content: '', reasoning: 'thought ' }],
    ["OpenRouter's encrypted reasoning_details alone", { content: '', reasoning_details: [{ type: 'reasoning.encrypted', data: 'gAAAAB' }] }],
  ])('a model thinking in a field of its own (%s) keeps the stream alive past the time limits, as thinking in the content does', async (_name, thoughtDelta) => {
    const { chain } = fakeChain(fake.env(), ['deepseek'])
    const chunk = (delta: object, finish: string | null = null) => `data: ${JSON.stringify({ choices: [{ delta, finish_reason: finish }] })}\n\n`
    const utf8 = new TextEncoder()
    // Ten thoughts 80 ms apart: 800 ms of thinking against limits of 400 ms.
    const body = new ReadableStream<Uint8Array>({
      async start(controller) {
        for (let i = 0; i < 10; i++) {
          controller.enqueue(utf8.encode(chunk(thoughtDelta)))
          await new Promise((r) => setTimeout(r, 80))
        }
        controller.enqueue(utf8.encode(chunk({ content: 'Use c.set() [1].' }) + chunk({}, 'stop') + 'data: [DONE]\n\n'))
        controller.close()
      },
    })
    const outcome = await runAttempt({
      member: chain[0]!,
      index: 0,
      model: chain[0]!.models[0]!,
      adapter: adapterFor('openai'),
      request,
      transport: async () => new Response(body, { headers: { 'content-type': 'text/event-stream' } }),
      timeouts: { firstByteMs: 400, idleMs: 400 },
      clock: new ManualClock(),
      onDelta: () => {},
      onRetract: () => {},
    })
    expect(outcome.failure).toBeUndefined()
    expect(outcome.text).toBe('Use c.set() [1].')
  })

  it("Ollama's message.thinking", () => {
    const wire = `${JSON.stringify({ model: 'qwen3', message: { role: 'assistant', content: '', thinking: 'The reader asks' } })}\n${JSON.stringify({ model: 'qwen3', message: { role: 'assistant', content: 'Use c.set() [1].' } })}\n`
    expect(texts('ollama', wire)).toEqual(['Use c.set() [1].'])
  })
})
