import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { serveProxy } from '../../proxy/node.ts'
import { REFUSAL_STATUS } from '../../proxy/refusal.ts'
import { parseProxySettings } from '../../proxy/settings.ts'
import { adapterFor } from './adapters/index.ts'
import { classifyResponse } from './classify.ts'
import { FIX_HINTS } from './failure.ts'
import { PROXY_REFUSAL_CLASS } from './proxy-refusals.ts'

/** An upstream that takes the request and never answers it. */
let silent: Server
let proxy: { url: string; close(): void | Promise<void>; server: { close(): void } }

beforeAll(async () => {
  silent = createServer(() => {})
  await new Promise<void>((r) => silent.listen(0, '127.0.0.1', r))
  const silentUrl = `http://127.0.0.1:${(silent.address() as AddressInfo).port}/v1`
  const settings = parseProxySettings({
    routes: [
      { member: 'openai', chatModels: ['gpt-4o-mini'] },
      { member: 'groq', chatModels: ['llama-3.3-70b-versatile'] },
      { member: 'mistral', chatModels: ['mistral-small-latest'] },
      { member: 'custom', chatModels: ['default'] },
    ],
    proxy: { siteOrigins: ['http://docs.test'] },
    timeouts: { firstByteMs: 300, idleMs: 300 },
  })
  // No OPENAI_API_KEY (a secret never put on the Worker), a dead port for groq, a silent mistral, and no custom URL.
  const env = { GROQ_API_KEY: 'gsk-x', GROQ_BASE_URL: 'http://127.0.0.1:9/v1', MISTRAL_API_KEY: 'mk-x', MISTRAL_BASE_URL: silentUrl }
  proxy = await serveProxy({ settings, env, dbPath: ':memory:' })
})
afterAll(async () => {
  await proxy.close()
  silent.closeAllConnections()
  silent.close()
})

/** One chat request as the panel sends it, through the proxy, classified as the panel classifies it. */
async function classified(member: 'openai' | 'groq' | 'mistral' | 'custom', model: string) {
  const wire = adapterFor('openai').request(model, { messages: [{ role: 'user', content: 'hi' }], maxTokens: 64, temperature: 0 })
  const res = await fetch(`${proxy.url}/ai/${member}${wire.path}`, { method: wire.method, headers: wire.headers, body: wire.body })
  return classifyResponse(res.status, res.headers, await res.text(), Date.now())
}

describe("the proxy's own refusals are classified by their cause, not by their status", () => {
  it('a key missing on the proxy is auth (its hint says where to set it), not an overloaded service', async () => {
    expect(await classified('openai', 'gpt-4o-mini')).toMatchObject({ class: 'auth', status: 503, code: 'key_not_set' })
    expect(FIX_HINTS.auth).toMatch(/key variable where the proxy runs/)
  })

  it('an upstream the proxy could not reach, or has no URL for, is network; one that sent nothing in time is timeout', async () => {
    expect(await classified('groq', 'llama-3.3-70b-versatile')).toMatchObject({ class: 'network', status: 502, code: 'upstream_unreachable' })
    expect(await classified('custom', 'default')).toMatchObject({ class: 'network', status: 502, code: 'upstream_not_configured' })
    expect(await classified('mistral', 'mistral-small-latest')).toMatchObject({ class: 'timeout', status: 504, code: 'upstream_timeout' })
  })

  it('matches the statuses the proxy sends, and a provider body with another status keeps its own class', () => {
    for (const [code, { status }] of Object.entries(PROXY_REFUSAL_CLASS)) expect(REFUSAL_STATUS[code as keyof typeof REFUSAL_STATUS], code).toBe(status)
    expect(classifyResponse(500, new Headers(), JSON.stringify({ error: { code: 'upstream_timeout', message: 'x' } }), 0).class).toBe('server_error')
  })
})
