import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startFakeProviders, type FakeProviders } from '../../fixtures/providers/index.ts'
import { serveProxy } from '../../proxy/node.ts'
import { parseProxySettings } from '../../proxy/settings.ts'
import { runTurn } from '../turn/run.ts'
import { fakeChain, searchResult } from '../turn/test-helpers.ts'
import { classifyResponse } from './classify.ts'
import { cooldownKey, ManualClock, MemoryCooldownStore } from './cooldown.ts'
import { routeTransport } from './transport.ts'

let fakes: FakeProviders
let proxy: { url: string; close(): void | Promise<void> }

beforeAll(async () => {
  fakes = await startFakeProviders()
  const settings = parseProxySettings({
    routes: [
      { member: 'openai', chatModels: ['gpt-4o-mini'] },
      { member: 'groq', chatModels: ['llama-3.3-70b-versatile'] },
    ],
    proxy: { siteOrigins: ['http://docs.test'], rateLimit: { perMinute: 1, burst: 3 } },
  })
  proxy = await serveProxy({ settings, env: fakes.env(), dbPath: ':memory:' })
})
afterAll(async () => {
  await proxy.close()
  await fakes.close()
})

describe("the proxy's own per-reader limit, from its real 429 to the turn", () => {
  it('settles as rate-limited with the proxy’s wait, asks no other member and cools none; a provider’s relayed 429 still rotates', async () => {
    const { chain } = fakeChain(fakes.env(), [
      { provider: 'openai', model: 'gpt-4o-mini' },
      { provider: 'groq', model: 'llama-3.3-70b-versatile' },
    ])
    const transport = routeTransport({ origin: proxy.url })
    const cooldowns = new MemoryCooldownStore()
    const clock = new ManualClock()
    const turn = () => runTurn({ question: 'How do I read a value?', retrieve: async () => searchResult(), chain, transport, cooldowns, clock })

    // A provider's own 429, relayed by the proxy: that member steps aside and cools, the next answers (2 of 3 tokens).
    await fakes.control({ member: 'openai', fault: 'rate-limit', times: 1 })
    const relayed = await turn()
    expect(relayed.state).toBe('answered')
    expect(relayed.receipt.attempts.map((a) => [a.member, a.class])).toEqual([['openai', 'rate_limited'], ['groq', 'ok']])
    expect(cooldowns.get(cooldownKey('openai'))?.class).toBe('rate_limited')

    expect((await turn()).state).toBe('answered') // the last token
    await fakes.reset()
    const groqBefore = cooldowns.get(cooldownKey('groq'))

    // The reader asked too fast: one refusal from the proxy, which no provider saw.
    const limited = await turn()
    expect(limited.state).toBe('rate-limited')
    expect(limited.receipt.stoppedBy).toBe('client_rate_limited')
    expect(limited.receipt.attempts.map((a) => [a.member, a.class, a.status])).toEqual([['groq', 'client_rate_limited', 429]])
    expect(await fakes.requests()).toEqual([])
    expect(cooldowns.get(cooldownKey('groq'))).toEqual(groqBefore)
    // One token a minute: the wait is the proxy's Retry-After, under a minute, not a day.
    expect(limited.resetAt! - clock.now()).toBeGreaterThan(1000)
    expect(limited.resetAt! - clock.now()).toBeLessThanOrEqual(60_000)
    expect(limited.passages).toHaveLength(3)
  })

  it('is told by the proxy’s header alone, never by a code or words a provider could send', () => {
    const body = JSON.stringify({ error: { code: 'rate_limited', message: 'Too many requests from this client; try again in 3 s.' } })
    expect(classifyResponse(429, new Headers({ 'retry-after': '3', 'x-docpilot-quota': 'client' }), body, 0)).toMatchObject({ class: 'client_rate_limited', retryAfterMs: 3000, resetAt: 3000 })
    expect(classifyResponse(429, new Headers({ 'retry-after': '3' }), body, 0).class).toBe('rate_limited')
    // Mistral's 429 says "rate_limited" in its body.
    expect(classifyResponse(429, new Headers({ 'retry-after': '3' }), JSON.stringify({ object: 'error', type: 'rate_limited', message: 'Rate limit exceeded', code: '1300' }), 0).class).toBe('rate_limited')
  })
})
