/**
 * Every refusal the proxy sends, through the app in-process: its status, its
 * body (`{error: {code, message}}` and nothing else), and every header it
 * carries, CORS for a listed origin included. The wire values are written out
 * here as the panel and docs/proxy.md expect them, not read from the code.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { findKeys } from '../core/key-scan.ts'
import { chatRequest } from '../core/ladder/adapters/request.ts'
import { PROTOCOLS } from '../core/protocols/index.ts'
import { createProxyApp, type ProxyEnv } from './app.ts'
import { MemoryState } from './node.ts'
import { REFUSAL_STATUS, type RefusalCode } from './refusal.ts'
import { parseProxySettings, type ProxySettings } from './settings.ts'

const SITE = 'https://docs.example.com'
const PARTNER = 'https://partner.example.org'
const KEY = 'sk-refusals-test-key-4b1d9c0e7a'
const NOW = Date.UTC(2026, 0, 10, 12)
const ERROR_ID = 'error-id-0001'

/** What every answer carries: data the browser must neither sniff nor render as a page of the site. */
const API_HEADERS = { 'x-content-type-options': 'nosniff', 'content-security-policy': "default-src 'none'; frame-ancestors 'none'; sandbox" }
const JSON_HEADERS = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...API_HEADERS }
/** What a listed origin's responses carry. */
const CORS = {
  'access-control-allow-origin': PARTNER,
  vary: 'Origin',
  'access-control-expose-headers':
    'Retry-After, Retry-After-Ms, X-RateLimit-Reset, X-RateLimit-Reset-Requests, X-RateLimit-Reset-Tokens, Anthropic-RateLimit-Requests-Reset, Anthropic-RateLimit-Tokens-Reset, X-Docpilot-Quota, X-Docpilot-Max-Tokens-Clamped, X-Docpilot-Error-Id',
}

const ROUTES = [
  { member: 'openai' as const, chatModels: ['gpt-4o-mini'], embedModels: ['text-embedding-3-small'] },
  { member: 'custom' as const, chatModels: ['default'] },
]

function settingsWith(over: { proxy?: object; budget?: object; timeouts?: { firstByteMs: number; idleMs: number } } = {}): ProxySettings {
  return parseProxySettings({
    routes: ROUTES,
    proxy: { siteOrigins: [SITE], allowedOrigins: [PARTNER], maxBodyBytes: 1024, rateLimit: { perMinute: 1000, burst: 1000 }, ...over.proxy },
    feedback: { maxBytes: 256 },
    ...(over.budget ? { budget: over.budget } : {}),
    ...(over.timeouts ? { timeouts: over.timeouts } : {}),
  })
}

const answered = async () => new Response('{"choices":[]}', { headers: { 'content-type': 'application/json' } })

interface Setup {
  settings?: ProxySettings
  env?: ProxyEnv
  fetch?: typeof fetch
  state?: MemoryState
  bodyDeadlineMs?: number
}

function proxy(setup: Setup = {}) {
  const env = setup.env ?? { OPENAI_API_KEY: KEY }
  const state = setup.state ?? new MemoryState()
  const logged: string[] = []
  const app = createProxyApp({
    env: () => env,
    runtime: (_c, env) => ({ settings: setup.settings ?? settingsWith(), env, limits: state, feedback: state, clientIp: '192.0.2.1' }),
    fetch: setup.fetch ?? answered,
    now: () => NOW,
    newId: () => ERROR_ID,
    log: (line) => void logged.push(line),
    ...(setup.bodyDeadlineMs ? { bodyDeadlineMs: setup.bodyDeadlineMs } : {}),
  })
  return { app, state, logged }
}

const chat = (model = 'gpt-4o-mini') => JSON.stringify({ model, messages: [{ role: 'user', content: 'hi' }] })
const post = (body: string, origin = PARTNER): RequestInit => ({ method: 'POST', headers: { 'content-type': 'application/json', origin }, body })

interface Case {
  name: string
  code: RefusalCode
  /** Responses before the one checked (a spent bucket or ceiling). */
  before?: number
  setup?: () => Setup
  path: string
  init: RequestInit
  status: number
  message: RegExp
  headers: Record<string, string>
}

const cases: Case[] = [
  { name: 'a method the route does not serve', path: '/ai/openai/chat/completions', init: { method: 'GET', headers: { origin: PARTNER } }, status: 405, code: 'method_not_allowed', message: /^Method GET is not allowed here; use POST\.$/, headers: { ...CORS, allow: 'POST, OPTIONS' } },
  { name: 'POST on the health route', path: '/ai/health', init: post('{}'), status: 405, code: 'method_not_allowed', message: /use GET or HEAD\.$/, headers: { ...CORS, allow: 'GET, HEAD, OPTIONS' } },
  { name: 'a foreign origin', path: '/ai/openai/chat/completions', init: post(chat(), 'https://evil.example'), status: 403, code: 'origin_not_allowed', message: /^Requests from origin https:\/\/evil\.example are not allowed: this proxy serves https:\/\/docs\.example\.com\. Add another site to proxy\.allowedOrigins/, headers: {} },
  {
    name: 'a client over its bucket',
    before: 1,
    setup: () => ({ settings: settingsWith({ proxy: { rateLimit: { perMinute: 1, burst: 1 } } }) }),
    path: '/ai/openai/chat/completions',
    init: post(chat()),
    status: 429,
    code: 'rate_limited',
    message: /^Too many requests from this client; try again in 60 s\.$/,
    headers: { ...CORS, 'retry-after': '60', 'x-docpilot-quota': 'client' },
  },
  { name: 'an unknown member', path: '/ai/nobody/chat/completions', init: post(chat()), status: 404, code: 'unknown_member', message: /^No provider route "nobody" on this proxy; the configured members are: openai, custom\.$/, headers: CORS },
  { name: 'a member route with the wrong method and no member', path: '/ai/nobody/chat/completions', init: { method: 'GET', headers: { origin: PARTNER } }, status: 404, code: 'unknown_member', message: /^No provider route "nobody"/, headers: CORS },
  {
    name: 'a GET of no route at all',
    path: '/ai/chat',
    init: { method: 'GET', headers: { origin: PARTNER } },
    status: 404,
    code: 'unknown_route',
    message: /^No route \/ai\/chat on this proxy; it serves GET \/ai\/health, POST \/ai\/feedback, POST \/ai\/events, POST \/ai\/mcp and POST \/ai\/<member>\/<path> for the configured members: openai, custom\.$/,
    headers: CORS,
  },
  { name: 'no member at all', path: '/ai', init: post(chat()), status: 404, code: 'unknown_route', message: /^No route \/ai on this proxy; it serves GET \/ai\/health, / , headers: CORS },
  { name: 'a path below a fixed route', path: '/ai/health/x', init: { method: 'GET', headers: { origin: PARTNER } }, status: 404, code: 'unknown_route', message: /^No route \/ai\/health\/x on this proxy/, headers: CORS },
  { name: 'a path the protocol does not need', path: '/ai/openai/models', init: post('{}'), status: 404, code: 'path_not_allowed', message: /does not forward "models"; it serves only: chat\/completions, embeddings\.$/, headers: CORS },
  { name: 'events while insights are off', path: '/ai/events', init: post('{}'), status: 404, code: 'insights_off', message: /insights\.enabled/, headers: CORS },
  { name: 'a chat body over proxy.maxBodyBytes', path: '/ai/openai/chat/completions', init: post(chat().padEnd(1100)), status: 413, code: 'body_too_large', message: /^Request bodies are limited to 1024 bytes \(proxy\.maxBodyBytes\)\.$/, headers: CORS },
  { name: 'feedback over feedback.maxBytes', path: '/ai/feedback', init: post(JSON.stringify({ rating: 'up', comment: 'x'.repeat(300) })), status: 413, code: 'body_too_large', message: /^Feedback is limited to 256 bytes\.$/, headers: CORS },
  {
    name: 'a body still arriving after the deadline (a byte at a time)',
    setup: () => ({ bodyDeadlineMs: 50 }),
    path: '/ai/openai/chat/completions',
    // Its first bytes, then nothing: the stream never ends.
    init: { ...post(''), body: new ReadableStream({ start: (c) => c.enqueue(new TextEncoder().encode('{"model":')) }), duplex: 'half' } as RequestInit,
    status: 408,
    code: 'body_timeout',
    message: /^The request body took longer than 0\.05 s to arrive\.$/,
    headers: CORS,
  },
  { name: 'a body that is not JSON', path: '/ai/openai/chat/completions', init: post('{nope'), status: 400, code: 'invalid_body', message: /^The request body must be a JSON object \(UTF-8\)\.$/, headers: CORS },
  { name: 'feedback that is not a feedback record', path: '/ai/feedback', init: post(JSON.stringify({ rating: 'meh' })), status: 400, code: 'invalid_body', message: /^Invalid feedback at rating: /, headers: CORS },
  { name: 'an undeclared model', path: '/ai/openai/chat/completions', init: post(chat('gpt-4o')), status: 403, code: 'model_not_allowed', message: /^Model "gpt-4o" is not declared for the openai chat route; declared: gpt-4o-mini\.$/, headers: CORS },
  {
    name: "the site's daily ceiling",
    before: 1,
    setup: () => ({ settings: settingsWith({ budget: { dailyLimit: 1 } }) }),
    path: '/ai/openai/chat/completions',
    init: post(chat()),
    status: 429,
    code: 'daily_quota',
    message: /^This site's daily limit of 1 AI requests is used up; it resets at 2026-01-11T00:00:00\.000Z\.$/,
    headers: { ...CORS, 'retry-after': String(12 * 3600), 'x-ratelimit-reset': String(Date.UTC(2026, 0, 11) / 1000), 'x-docpilot-quota': 'daily' },
  },
  { name: 'a hosted member without its key', setup: () => ({ env: {} }), path: '/ai/openai/chat/completions', init: post(chat()), status: 503, code: 'key_not_set', message: /^OPENAI_API_KEY is not set on the proxy\.$/, headers: CORS },
  { name: 'an own server without its URL', path: '/ai/custom/chat/completions', init: post(chat('default')), status: 502, code: 'upstream_not_configured', message: /set DOCPILOT_CUSTOM_URL on the proxy\.$/, headers: CORS },
  { name: 'MCP on a proxy that serves none', path: '/ai/mcp', init: post('{}'), status: 404, code: 'mcp_not_enabled', message: /^This proxy serves no MCP route/, headers: CORS },
  {
    name: 'an unreachable upstream (its error redacted)',
    setup: () => ({
      fetch: async () => {
        throw new TypeError(`connect ECONNREFUSED while sending Bearer ${KEY}`)
      },
    }),
    path: '/ai/openai/chat/completions',
    init: post(chat()),
    status: 502,
    code: 'upstream_unreachable',
    message: /^Could not reach the openai upstream: connect ECONNREFUSED while sending Bearer \[redacted\]$/,
    headers: CORS,
  },
  {
    name: 'an upstream redirect',
    setup: () => ({ fetch: async () => new Response(null, { status: 302, headers: { location: 'https://elsewhere.example/' } }) }),
    path: '/ai/openai/chat/completions',
    init: post(chat()),
    status: 502,
    code: 'upstream_redirected',
    message: /answered with a redirect \(302\)/,
    headers: CORS,
  },
  {
    name: 'an upstream silent past firstByteMs',
    setup: () => ({
      settings: settingsWith({ timeouts: { firstByteMs: 100, idleMs: 1000 } }),
      fetch: (_url, init) => new Promise((_resolve, reject) => init?.signal?.addEventListener('abort', () => reject(init.signal!.reason))),
    }),
    path: '/ai/openai/chat/completions',
    init: post(chat()),
    status: 504,
    code: 'upstream_timeout',
    message: /^The openai upstream sent no response within 100 ms\.$/,
    headers: CORS,
  },
  { name: 'a proxy with no site origin', setup: () => ({ settings: { ...settingsWith(), proxy: { ...settingsWith().proxy, siteOrigins: [] } } }), path: '/ai/openai/chat/completions', init: post(chat()), status: 503, code: 'proxy_misconfigured', message: /^proxy\.siteOrigins is not set/, headers: {} },
  { name: 'a base URL variable without its scheme (never shown)', setup: () => ({ env: { OPENAI_API_KEY: KEY, DOCPILOT_CUSTOM_URL: 'llm.internal:8000/v1' } }), path: '/ai/openai/chat/completions', init: post(chat()), status: 503, code: 'proxy_misconfigured', message: /^DOCPILOT_CUSTOM_URL is not an http\(s\) URL; write it with its scheme, e\.g\. http:\/\/10\.0\.0\.5:8000\/v1 \(the value is not shown here\)\.$/, headers: {} },
  { name: 'a base URL variable holding a password (never shown)', setup: () => ({ env: { OPENAI_API_KEY: KEY, DOCPILOT_CUSTOM_URL: `http://admin:${KEY}@llm.internal:8000/v1` } }), path: '/ai/custom/chat/completions', init: post(chat('default')), status: 503, code: 'proxy_misconfigured', message: /^DOCPILOT_CUSTOM_URL holds a user name or password, which fetch will not send from a URL: remove it, and put the key in DOCPILOT_CUSTOM_KEY \(the value is not shown here\)\.$/, headers: {} },
  { name: 'a key that is not a header value (never shown)', setup: () => ({ env: { OPENAI_API_KEY: `${KEY}\n` } }), path: '/ai/openai/chat/completions', init: post(chat()), status: 503, code: 'proxy_misconfigured', message: /^OPENAI_API_KEY cannot be sent as a header value/, headers: {} },
]

async function refusalOf(c: Case): Promise<{ res: Response; text: string }> {
  const { app } = proxy(c.setup?.())
  for (let i = 0; i < (c.before ?? 0); i++) await (await app.request(c.path, c.init)).arrayBuffer()
  const res = await app.request(c.path, c.init)
  return { res, text: await res.text() }
}

describe('proxy refusals', () => {
  it.each(cases)('$name: $status $code, with exactly its headers', async (c) => {
    const { res, text } = await refusalOf(c)
    expect(res.status).toBe(c.status)
    const body = JSON.parse(text) as { error: { code: string; message: string } }
    expect(Object.keys(body)).toEqual(['error'])
    expect(Object.keys(body.error)).toEqual(['code', 'message'])
    expect(body.error.code).toBe(c.code)
    expect(body.error.message).toMatch(c.message)
    expect(text).not.toContain(KEY)
    expect(Object.fromEntries(res.headers)).toEqual({ ...JSON_HEADERS, ...c.headers })
  })

  it('an unexpected failure answers proxy_error with a fixed message (with CORS, like every refusal); the details, keys redacted, go only to the log', async () => {
    const state = new MemoryState()
    state.save = async () => {
      throw new Error(`disk full while holding ${KEY}`)
    }
    const { app, logged } = proxy({ state })
    const res = await app.request('/ai/feedback', post(JSON.stringify({ rating: 'up' })))
    expect(res.status).toBe(500)
    expect(await res.json()).toEqual({ error: { code: 'proxy_error', message: `The proxy could not handle this request; the site owner can find error ${ERROR_ID} in the proxy's log.` } })
    expect(Object.fromEntries(res.headers)).toEqual({ ...JSON_HEADERS, ...CORS, 'x-docpilot-error-id': ERROR_ID })
    expect(logged).toEqual([expect.stringMatching(new RegExp(`^docpilot proxy error ${ERROR_ID} on POST /ai/feedback: Error: disk full while holding \\[redacted\\]`))])
    expect(logged.join('\n')).not.toContain(KEY)
  })

  it('a preflight from a listed origin gets CORS and the methods of its route; from the site itself, none', async () => {
    const { app } = proxy()
    const listed = await app.request('/ai/health', { method: 'OPTIONS', headers: { origin: PARTNER, 'access-control-request-method': 'GET' } })
    expect(listed.status).toBe(204)
    expect(Object.fromEntries(listed.headers)).toEqual({
      ...API_HEADERS,
      ...CORS,
      'access-control-allow-methods': 'GET, HEAD',
      'access-control-allow-headers': 'content-type, accept, anthropic-version',
      'access-control-max-age': '600',
    })
    const own = await app.request('/ai/health', { method: 'OPTIONS', headers: { origin: SITE } })
    expect(own.status).toBe(204)
    expect(Object.fromEntries(own.headers)).toEqual(API_HEADERS)
  })

  it("a listed origin's preflight allows every header the panel's chat requests carry, on each wire protocol", async () => {
    const { app } = proxy()
    for (const protocol of Object.values(PROTOCOLS)) {
      // The names a browser lists in Access-Control-Request-Headers: any it is not allowed fails the request.
      const sent = Object.keys(chatRequest(protocol, 'm', 'text/event-stream', {}, 100).headers).map((h) => h.toLowerCase())
      const res = await app.request('/ai/openai/chat/completions', {
        method: 'OPTIONS',
        headers: { origin: PARTNER, 'access-control-request-method': 'POST', 'access-control-request-headers': sent.join(',') },
      })
      const allowed = (res.headers.get('access-control-allow-headers') ?? '').split(/,\s*/)
      expect({ protocol: protocol.id, missing: sent.filter((h) => !allowed.includes(h)) }).toEqual({ protocol: protocol.id, missing: [] })
    }
  })
})

describe("refusals and the site's daily ceiling", () => {
  it("checks the request before it reserves a unit: a refused model spends nothing, and stays model_not_allowed once the ceiling is spent", async () => {
    const { app } = proxy({ settings: settingsWith({ budget: { dailyLimit: 1 } }) })
    expect((await app.request('/ai/openai/chat/completions', post(chat('gpt-4o')))).status).toBe(403)
    expect((await app.request('/ai/openai/chat/completions', post(chat()))).status).toBe(200)
    expect((await app.request('/ai/openai/chat/completions', post(chat('gpt-4o')))).status).toBe(403)
    expect((await app.request('/ai/openai/chat/completions', post(chat()))).status).toBe(429)
  })

  it('gives the unit back after every refusal or upstream error that follows the reservation', async () => {
    const answers: (() => Promise<Response>)[] = [
      async () => {
        throw new TypeError('connect ECONNREFUSED')
      },
      async () => new Response(null, { status: 302, headers: { location: 'https://elsewhere.example/' } }),
      async () => new Response('{"error":{"message":"overloaded"}}', { status: 503 }),
      answered,
    ]
    const { app } = proxy({ settings: settingsWith({ budget: { dailyLimit: 1 } }), fetch: () => answers.shift()!() })
    const statuses: number[] = []
    for (let i = 0; i < 5; i++) statuses.push((await app.request('/ai/openai/chat/completions', post(chat()))).status)
    expect(statuses).toEqual([502, 502, 503, 200, 429])
  })
})

const DOCS = join(import.meta.dirname, '..', 'docs')
const isRefusalCode = (name: string): name is RefusalCode => name in REFUSAL_STATUS

describe('an upstream that echoes the request it got in its error body', () => {
  const CUSTOM_KEY = 'custom-echo-key-9d0e2b7c'
  /** Every header and the URL, as JSON, as raw lines and base64-encoded, in the body and in headers the proxy passes. */
  const echo: typeof fetch = async (input, init) => {
    const url = String(input)
    const headers = Object.fromEntries(new Headers(init?.headers))
    const lines = Object.entries(headers).map(([name, value]) => `${name}: ${value}`).join('\n')
    const body = JSON.stringify({ error: { message: `Unsupported request to ${url}`, request: { url, headers, lines, base64: btoa(lines) } } })
    return new Response(body, { status: 400, headers: { 'content-type': 'application/json', 'x-request-id': `for ${headers.authorization}`, 'x-ratelimit-url': url } })
  }

  it('passes the error on to the panel (it classifies it) with no key in any form, in the body or a header', async () => {
    for (const [member, model] of [['openai', 'gpt-4o-mini'], ['custom', 'default']] as const) {
      const { app } = proxy({ env: { OPENAI_API_KEY: KEY, DOCPILOT_CUSTOM_URL: 'http://llm.internal:8000/v1', DOCPILOT_CUSTOM_KEY: CUSTOM_KEY }, fetch: echo })
      const res = await app.request(`/ai/${member}/chat/completions?key=${KEY}&alt=sse`, post(chat(model)))
      const text = await res.text()
      expect(res.status, member).toBe(400)
      expect((JSON.parse(text) as { error: { message: string } }).error.message).toMatch(/^Unsupported request to http/)
      const seen = [{ where: `${member} body`, bytes: text }, { where: `${member} headers`, bytes: JSON.stringify([...res.headers]) }]
      expect(findKeys(seen, [KEY, CUSTOM_KEY])).toEqual([])
    }
  })

  it('an error body cut at the size cap in the middle of a quoted key passes no part of it', async () => {
    const cap = 64 * 1024
    const utf8 = new TextEncoder()
    const cutInKey: typeof fetch = async () =>
      new Response(
        new ReadableStream({
          start(controller) {
            controller.enqueue(utf8.encode(`{"error":{"message":"${'x'.repeat(cap)} Bearer ${KEY.slice(0, 20)}`))
            controller.enqueue(utf8.encode(`${KEY.slice(20)} was refused"}}`))
            controller.close()
          },
        }),
        { status: 401, headers: { 'content-type': 'application/json' } },
      )
    const { app } = proxy({ fetch: cutInKey })
    const res = await app.request('/ai/openai/chat/completions', post(chat()))
    const text = await res.text()
    expect(res.status).toBe(401)
    expect(text.length).toBeGreaterThan(cap)
    expect(text).not.toContain(KEY.slice(0, 12))
  })

  it('a credential written into a base URL is refused before any request, never echoed', async () => {
    let requested = false
    const echoing: typeof fetch = (input, init) => {
      requested = true
      return echo(input, init)
    }
    for (const url of [`http://llm.internal:8000/v1?api-key=${KEY}`, `http://llm.internal:8000/v1#${KEY}`]) {
      const { app } = proxy({ env: { OPENAI_API_KEY: 'sk-other-key-00000000', DOCPILOT_CUSTOM_URL: url }, fetch: echoing })
      const res = await app.request('/ai/custom/chat/completions', post(chat('default')))
      const text = await res.text()
      expect([res.status, (JSON.parse(text) as { error: { code: string } }).error.code], url).toEqual([503, 'proxy_misconfigured'])
      expect(findKeys([{ where: url, bytes: text }], [KEY])).toEqual([])
    }
    expect(requested).toBe(false)
  })
})

/** The table under "Refusals and their status codes" in docs/proxy.md, as code → status. */
function documentedRefusals(): Record<string, number> {
  const page = readFileSync(join(DOCS, 'proxy.md'), 'utf8')
  const section = page.slice(page.indexOf('## Refusals and their status codes'))
  const table = section.slice(0, section.indexOf('\n## '))
  return Object.fromEntries([...table.matchAll(/^\| (\d{3}) \| `(\w+)` \|/gm)].map((m) => [m[2]!, Number(m[1])]))
}

describe('the list of refusals', () => {
  it('is what the proxy sends: every code in REFUSAL_STATUS is sent by a case above', () => {
    const sent = new Set<string>([...cases.map((c) => c.code), 'proxy_error'])
    expect([...sent].sort()).toEqual(Object.keys(REFUSAL_STATUS).sort())
  })

  it("is docs/proxy.md's table, code for code and status for status", () => {
    expect(documentedRefusals()).toEqual({ ...REFUSAL_STATUS })
  })

  it('gives every "<status> <code>" the docs mention the status the proxy sends', () => {
    const pages = readdirSync(DOCS).filter((f) => f.endsWith('.md')).map((f) => join(DOCS, f))
    const mentions = pages.flatMap((file) =>
      [...readFileSync(file, 'utf8').matchAll(/\b(\d{3})`? `?([a-z]+(?:_[a-z]+)+)\b/g)].flatMap(([, status, code]) =>
        isRefusalCode(code!) ? [{ file, code, status: Number(status) }] : [],
      ),
    )
    expect(mentions.length).toBeGreaterThan(0)
    for (const m of mentions) expect(m.status, `${m.file} says ${m.status} ${m.code}`).toBe(REFUSAL_STATUS[m.code])
  })
})
