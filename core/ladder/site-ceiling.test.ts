import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startFakeProviders, type FakeProviders } from '../../fixtures/providers/index.ts'
import { serveProxy } from '../../proxy/node.ts'
import { parseProxySettings } from '../../proxy/settings.ts'
import { runTurn } from '../turn/run.ts'
import { fakeChain, searchResult } from '../turn/test-helpers.ts'
import { adapterFor } from './adapters/index.ts'
import { classifyResponse } from './classify.ts'
import { ManualClock, MemoryCooldownStore } from './cooldown.ts'
import { routeTransport } from './transport.ts'

const HOUR = 3600_000

let fakes: FakeProviders
let proxy: { url: string; close(): void | Promise<void> }

beforeAll(async () => {
  fakes = await startFakeProviders()
  const settings = parseProxySettings({
    routes: [{ member: 'openai', chatModels: ['gpt-4o-mini'], embedModels: [] }],
    proxy: { siteOrigins: ['http://docs.test'] },
    budget: { dailyLimit: 1 },
  })
  proxy = await serveProxy({ settings, env: fakes.env(), dbPath: ':memory:' })
})
afterAll(async () => {
  await proxy.close()
  await fakes.close()
})

/** One chat request as the panel sends it, through the proxy's same-origin route. */
function ask(): Promise<Response> {
  const wire = adapterFor('openai').request('gpt-4o-mini', { messages: [{ role: 'user', content: 'hi' }], maxTokens: 64, temperature: 0 })
  return fetch(`${proxy.url}/ai/openai${wire.path}`, { method: wire.method, headers: wire.headers, body: wire.body })
}

describe("the site's own daily ceiling, from the proxy's real 429 to the ladder's class", () => {
  it('is daily_quota with the reset the proxy named, read from its code and header, not its words or its wait', async () => {
    expect((await ask()).status).toBe(200)
    const refused = await ask()
    expect(refused.status).toBe(429)
    const body = await refused.text()
    const resetAt = Number(refused.headers.get('x-ratelimit-reset')) * 1000

    // Half an hour before the reset: a provider's 429 with that wait would be a passing rate limit.
    const now = resetAt - HOUR / 2
    expect(classifyResponse(429, refused.headers, body, now)).toMatchObject({ class: 'daily_quota', status: 429, resetAt })

    // The same refusal reworded (the message is for people): still the site's ceiling, by its code and by its header alone.
    const reworded = JSON.stringify({ error: { ...JSON.parse(body).error, message: 'Come back tomorrow.' } })
    expect(classifyResponse(429, refused.headers, reworded, now)).toMatchObject({ class: 'daily_quota', resetAt })
    expect(classifyResponse(429, new Headers({ 'x-docpilot-quota': 'daily', 'retry-after': '1800' }), '', now)).toMatchObject({ class: 'daily_quota' })
    expect(classifyResponse(429, new Headers({ 'retry-after': '1800' }), JSON.stringify({ error: { code: 'daily_quota', message: '' } }), now).class).toBe('daily_quota')
  })

  it("a provider's own short 429 stays a passing rate limit", () => {
    expect(classifyResponse(429, new Headers({ 'retry-after': '1800' }), JSON.stringify({ error: { code: 'rate_limit_exceeded', message: 'Slow down.' } }), 0).class).toBe('rate_limited')
  })
})

describe("the site's daily ceiling, in a chain of several members", () => {
  it('settles the turn as rate-limited at the first member it refuses: the others are behind the same ceiling, and none is cooled', async () => {
    const members = [
      { member: 'openai' as const, model: 'gpt-4o-mini' },
      { member: 'groq' as const, model: 'llama-3.3-70b-versatile' },
      { member: 'mistral' as const, model: 'mistral-small-latest' },
    ]
    const capped = await serveProxy({
      settings: parseProxySettings({
        routes: members.map((m) => ({ member: m.member, chatModels: [m.model] })),
        proxy: { siteOrigins: ['http://docs.test'] },
        budget: { dailyLimit: 1 },
      }),
      env: fakes.env(),
      dbPath: ':memory:',
    })
    try {
      const { chain } = fakeChain(fakes.env(), members.map((m) => ({ provider: m.member, model: m.model })))
      const cooldowns = new MemoryCooldownStore()
      const clock = new ManualClock()
      const turn = () => runTurn({ question: 'How do I read a value?', retrieve: async () => searchResult(), chain, transport: routeTransport({ origin: capped.url }), cooldowns, clock })
      expect((await turn()).state).toBe('answered')
      await fakes.reset()

      const spent = await turn()
      expect(spent.state).toBe('rate-limited')
      expect(spent.receipt.attempts.map((a) => [a.member, a.class])).toEqual([['openai', 'daily_quota']])
      expect(spent.receipt.stoppedBy).toBeUndefined()
      expect(new Date(spent.resetAt!).toISOString()).toMatch(/T00:00:00\.000Z$/)
      expect(await fakes.requests()).toEqual([])
      expect(cooldowns.entries()).toEqual([])
    } finally {
      await capped.close()
      capped.server.close()
    }
  })
})
