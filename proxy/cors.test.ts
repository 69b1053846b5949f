/**
 * What a page on one of proxy.allowedOrigins can read of an upstream's
 * refusal: a cross-origin fetch shows only the CORS-safelisted headers and
 * the exposed ones, so every wait the panel's classifier reads must be among
 * them, or the panel there cools a member for the default minute (or mistakes
 * a day's quota for a blip) while the same answer read on the site's own
 * origin says otherwise.
 */
import { describe, expect, it } from 'vitest'
import { classifyResponse } from '../core/ladder/classify.ts'
import { createProxyApp } from './app.ts'
import { MemoryState } from './node.ts'
import { parseProxySettings } from './settings.ts'

const SITE = 'https://docs.example.com'
const PARTNER = 'https://partner.example.org'
const NOW = Date.UTC(2026, 0, 10, 12)

/** Response headers any cross-origin page may read without their being exposed. */
const SAFELISTED = ['cache-control', 'content-language', 'content-length', 'content-type', 'expires', 'last-modified', 'pragma']

/** The headers as fetch() shows them to a page on `origin`: all of them on the site, the safelisted and exposed ones elsewhere. */
function seenBy(origin: string, res: Response): Headers {
  if (origin === SITE) return res.headers
  const exposed = (res.headers.get('access-control-expose-headers') ?? '').split(',').map((h) => h.trim().toLowerCase())
  const visible = new Headers()
  res.headers.forEach((value, name) => {
    if (SAFELISTED.includes(name) || exposed.includes(name)) visible.set(name, value)
  })
  return visible
}

/** A proxy whose upstream answers every chat request with this 429. */
function refusedBy(status: number, headers: Record<string, string>, body: unknown) {
  const state = new MemoryState()
  return createProxyApp({
    env: () => ({ OPENAI_API_KEY: 'sk-cors-test', ANTHROPIC_API_KEY: 'sk-ant-cors-test' }),
    runtime: (_c, env) => ({
      settings: parseProxySettings({
        routes: [
          { member: 'openai', chatModels: ['gpt-4o-mini'] },
          { member: 'anthropic', chatModels: ['claude-3-5-haiku-latest'] },
        ],
        proxy: { siteOrigins: [SITE], allowedOrigins: [PARTNER] },
      }),
      env,
      limits: state,
      feedback: state,
      clientIp: '192.0.2.1',
    }),
    fetch: async () => new Response(JSON.stringify(body), { status, headers: { 'content-type': 'application/json', ...headers } }),
    now: () => NOW,
  })
}

/** The panel's verdict on the upstream's refusal, read from a page on `origin`. */
async function verdict(app: ReturnType<typeof refusedBy>, origin: string, path: string, model: string) {
  const res = await app.request(path, { method: 'POST', headers: { 'content-type': 'application/json', origin }, body: JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] }) })
  return classifyResponse(res.status, seenBy(origin, res), await res.text(), NOW)
}

describe("an upstream's 429 read from a listed origin", () => {
  it("keeps Anthropic's reset time: a day's quota stays a day's quota, with its reset", async () => {
    const reset = new Date(NOW + 5 * 3600_000).toISOString()
    const app = refusedBy(429, { 'anthropic-ratelimit-requests-reset': reset, 'anthropic-ratelimit-tokens-reset': reset }, { type: 'error', error: { type: 'rate_limit_error', message: 'Number of requests has exceeded your rate limit.' } })
    const onSite = await verdict(app, SITE, '/ai/anthropic/messages', 'claude-3-5-haiku-latest')
    expect(onSite).toMatchObject({ class: 'daily_quota', resetAt: NOW + 5 * 3600_000 })
    expect(await verdict(app, PARTNER, '/ai/anthropic/messages', 'claude-3-5-haiku-latest')).toEqual(onSite)
  })

  it("keeps OpenAI's per-minute reset and a retry-after-ms, on the site and off it", async () => {
    const resetOnly = refusedBy(429, { 'x-ratelimit-reset-requests': '20s' }, { error: { message: 'Rate limit reached for requests', type: 'requests', code: 'rate_limit_exceeded' } })
    const onSite = await verdict(resetOnly, SITE, '/ai/openai/chat/completions', 'gpt-4o-mini')
    expect(onSite).toMatchObject({ class: 'rate_limited', retryAfterMs: 20_000 })
    expect(await verdict(resetOnly, PARTNER, '/ai/openai/chat/completions', 'gpt-4o-mini')).toEqual(onSite)

    const ms = refusedBy(429, { 'retry-after-ms': '2500' }, { error: { message: 'Rate limit reached for requests', type: 'requests', code: 'rate_limit_exceeded' } })
    for (const origin of [SITE, PARTNER]) {
      expect(await verdict(ms, origin, '/ai/openai/chat/completions', 'gpt-4o-mini')).toMatchObject({ class: 'rate_limited', retryAfterMs: 2500 })
    }
  })
})
