import { describe, expect, it } from 'vitest'
import { createProxyApp, type ProxyEnv } from './app.ts'
import { MemoryState } from './node.ts'
import { parseProxySettings, type ProxySettingsInput } from './settings.ts'

const NOW = Date.UTC(2026, 0, 1, 12)

/** The app as a runtime serves it, with its state in memory and the clock fixed. */
function appWith(settings: Omit<ProxySettingsInput, 'proxy'>, env: ProxyEnv, state = new MemoryState()) {
  const app = createProxyApp({
    env: () => env,
    runtime: (_c, e) => ({
      settings: parseProxySettings({ ...settings, proxy: { siteOrigins: ['https://docs.example.com'] } }),
      env: e,
      limits: state,
      feedback: state,
      clientIp: '192.0.2.1',
    }),
    now: () => NOW,
  })
  return { app, state }
}

const OPENAI = { member: 'openai' as const, chatModels: ['gpt-4o-mini'] }
const KEYS = { OPENAI_API_KEY: 'sk-health-secret-0001', GROQ_API_KEY: 'gsk-health-secret-0002' }

async function health(app: ReturnType<typeof appWith>['app']) {
  const res = await app.request('/ai/health')
  const text = await res.text()
  const head = await app.request('/ai/health', { method: 'HEAD' })
  return { status: res.status, head: head.status, json: JSON.parse(text), text, retryAfter: res.headers.get('retry-after') }
}

describe('/ai/health tells an uptime monitor whether readers can get answers', () => {
  it('answers 200 when every route can serve and the day is not spent, with the day’s count', async () => {
    const { app, state } = appWith({ routes: [OPENAI], budget: { dailyLimit: 3 } }, KEYS)
    await state.spendDaily(3, NOW)
    const h = await health(app)
    expect([h.status, h.head, h.json.ok, h.json.problems]).toEqual([200, 200, true, []])
    expect(h.json.daily).toEqual({ limit: 3, used: 1, resetAt: '2026-01-02T00:00:00.000Z' })
    expect(h.json.dailyLimit).toBe(3)
  })

  it('answers 503 with no provider route at all (the proxy was started with no key)', async () => {
    const h = await health(appWith({ routes: [] }, {}).app)
    expect([h.status, h.head, h.json.ok]).toEqual([503, 503, false])
    expect(h.json.problems).toEqual([expect.stringMatching(/^No provider route: no provider key/)])
  })

  it('answers 503 when a route has no key, naming the variable and never a value', async () => {
    const h = await health(appWith({ routes: [OPENAI, { member: 'groq', chatModels: ['llama-3.3-70b-versatile'] }] }, { GROQ_API_KEY: KEYS.GROQ_API_KEY }).app)
    expect([h.status, h.head, h.json.ok]).toEqual([503, 503, false])
    expect(h.json.problems).toEqual(['openai: OPENAI_API_KEY is not set.'])
    expect(h.text).not.toContain(KEYS.GROQ_API_KEY)
  })

  it("answers 503 with Retry-After once the site's daily limit is spent, and says until when", async () => {
    const { app, state } = appWith({ routes: [OPENAI], budget: { dailyLimit: 2 } }, KEYS)
    for (let i = 0; i < 3; i++) await state.spendDaily(2, NOW)
    const h = await health(app)
    expect([h.status, h.head, h.json.ok]).toEqual([503, 503, false])
    expect(h.json.daily).toEqual({ limit: 2, used: 2, resetAt: '2026-01-02T00:00:00.000Z' })
    expect(h.json.problems).toEqual(['The daily limit of 2 AI requests (budget.dailyLimit) is spent until 2026-01-02T00:00:00.000Z.'])
    expect(h.retryAfter).toBe(String(12 * 3600))
    // Reading the count spends nothing: the next day starts from zero as before.
    expect((await state.spendDaily(2, NOW + 12 * 3600_000)).used).toBe(1)
  })
})

describe('an upstream error whose body stalls', () => {
  /** An upstream that sends a 503 head and the start of its error body, then nothing; records when its request is cut. */
  function stallingUpstream() {
    const seen: { cut: boolean } = { cut: false }
    const fetch: typeof globalThis.fetch = async (_input, init) => {
      const body = new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode('{"error":{"message":"overloaded",'))
          init?.signal?.addEventListener('abort', () => {
            seen.cut = true
            controller.error(init.signal!.reason)
          })
        },
      })
      return new Response(body, { status: 503, headers: { 'content-type': 'application/json' } })
    }
    return { fetch, seen }
  }

  function appOn(fetch: typeof globalThis.fetch) {
    const state = new MemoryState()
    return createProxyApp({
      env: () => KEYS,
      runtime: (_c, e) => ({
        settings: parseProxySettings({ routes: [OPENAI], proxy: { siteOrigins: ['https://docs.example.com'] }, timeouts: { firstByteMs: 5000, idleMs: 200 } }),
        env: e,
        limits: state,
        feedback: state,
        clientIp: '192.0.2.1',
      }),
      fetch,
    })
  }
  const chat = (signal?: AbortSignal) =>
    new Request('http://proxy.test/ai/openai/chat/completions', { method: 'POST', body: JSON.stringify({ model: 'gpt-4o-mini', messages: [] }), ...(signal ? { signal } : {}) })

  it("answers with the upstream's status and what arrived once the body has been idle for idleMs, and cuts the upstream", async () => {
    const upstream = stallingUpstream()
    const t0 = Date.now()
    const res = await appOn(upstream.fetch).request(chat())
    expect(res.status).toBe(503)
    expect(await res.text()).toBe('{"error":{"message":"overloaded",')
    expect(Date.now() - t0).toBeLessThan(2000)
    expect(upstream.seen.cut).toBe(true)
  })

  it('cuts the upstream as soon as the reader leaves', async () => {
    const upstream = stallingUpstream()
    const reader = new AbortController()
    const answered = appOn(upstream.fetch).request(chat(reader.signal))
    await new Promise((r) => setTimeout(r, 50))
    reader.abort()
    await Promise.resolve(answered).catch(() => undefined)
    expect(upstream.seen.cut).toBe(true)
  })
})

describe('feedback on a long turn, under the default limits', () => {
  it('stores a thumbs-down on an answer to a pasted question (the panel sends both texts whatever storeText says)', async () => {
    const { app, state } = appWith({ routes: [OPENAI] }, KEYS)
    const { MAX_QUESTION_CHARS } = await import('../core/prompt/build.ts')
    // A pasted stack trace as long as the panel lets a question be, and an answer of the default 1024 tokens with code.
    const question = 'Why does this fail?\n' + '    at handler (src/routes/users.ts:42:13)\n'.repeat(200)
    const answer = 'The handler reads `c.req.param("id")` before the route defines it [1].\n\n```ts\napp.get("/users/:id", (c) => c.json({ id: c.req.param("id") }))\n```\n'.repeat(30)
    const attempt = { member: 'openai', index: 0, model: 'gpt-4o-mini', class: 'ok', status: 200, ttfbMs: 420, firstDeltaMs: 610, durationMs: 5400 }
    const receipt = { version: 1, outcome: 'answered', retrieval: { mode: 'hybrid', degraded: false, gate: { pass: true, score: 0.71 }, passages: 8 }, stages: { retrieveMs: 80, answerMs: 5400, totalMs: 5500 }, attempts: [attempt], ladder: { provider: 'openai', index: 0, freePool: null } }
    const body = JSON.stringify({ rating: 'down', ladder: receipt.ladder, receipt, page: 'https://docs.example.com/guides/routing/?utm_source=x', question: question.slice(0, MAX_QUESTION_CHARS), answer })
    expect(body.length).toBeGreaterThan(8192)
    const res = await app.request('/ai/feedback', { method: 'POST', headers: { 'content-type': 'application/json' }, body })
    expect(res.status).toBe(201)
    expect(state.feedbackRows()).toHaveLength(1)
  })
})

describe('the routes the proxy registers are the routes it names', () => {
  const METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE']

  it('answers a wrong method on every fixed route with 405 and an Allow naming exactly its methods (HEAD wherever GET), and lists each in the 404 of an unknown route', async () => {
    const { app } = appWith({ routes: [OPENAI] }, KEYS)
    // What Hono actually routes: every path under /ai without a parameter or a wildcard.
    const registered = [...new Set(app.routes.map((r) => r.path).filter((p) => /^\/ai\/[a-z]+$/.test(p)))]
    expect(registered.length).toBeGreaterThanOrEqual(4)
    const unknown = await app.request('/ai/no-such-route')
    expect(unknown.status).toBe(404)
    const message = ((await unknown.json()) as { error: { message: string } }).error.message
    const listed = new Map([...message.matchAll(/([A-Z/]+) \/ai\/([a-z]+)\b/g)].map((m) => [`/ai/${m[2]}`, m[1]!]))
    expect([...listed.keys()].sort()).toEqual([...registered].sort())
    for (const path of registered) {
      const answers = await Promise.all(METHODS.map(async (method) => ({ method, res: await app.request(path, { method }) })))
      const served = answers.filter((a) => a.res.status !== 405).map((a) => a.method)
      const refused = answers.filter((a) => a.res.status === 405)
      expect(refused.length, `${path} refuses no method`).toBeGreaterThan(0)
      for (const { res } of refused) expect(res.headers.get('allow'), path).toBe([...served, 'OPTIONS'].join(', '))
      expect(served.includes('HEAD'), `${path}: HEAD wherever GET`).toBe(served.includes('GET'))
      expect(listed.get(path), path).toBe(served.filter((m) => m !== 'HEAD').join('/'))
    }
  })
})
