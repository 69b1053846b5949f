import { mkdtempSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { IN_MEMORY, MemoryState, SqliteState, createNodeProxy, resolveDbPath } from './node.ts'
import { parseProxySettings } from './settings.ts'

const tmp = () => mkdtempSync(join(tmpdir(), 'docpilot-node-state-'))

describe('proxy state path', () => {
  it("keeps ':memory:' a name, and resolves every other path against the working directory", () => {
    expect(resolveDbPath('/srv/site', IN_MEMORY)).toBe(':memory:')
    expect(resolveDbPath('/srv/site', '.docpilot/proxy.sqlite')).toBe('/srv/site/.docpilot/proxy.sqlite')
    expect(resolveDbPath('/srv/site', '/var/lib/docpilot.sqlite')).toBe('/var/lib/docpilot.sqlite')
  })

  it("refuses ':memory:' joined to a folder instead of creating a file of that name", () => {
    const dir = tmp()
    expect(() => new SqliteState(join(dir, IN_MEMORY))).toThrow(/':memory:' joined to a folder/)
    expect(readdirSync(dir)).toEqual([])
  })

  it("a file path creates its folder and keeps the day's count when reopened", async () => {
    const file = join(tmp(), 'nested', 'state.sqlite')
    const now = Date.UTC(2026, 0, 1, 12)
    const first = new SqliteState(file)
    expect(await first.spendDaily(1, now)).toEqual({ ok: true, used: 1, resetAt: Date.UTC(2026, 0, 2) })
    first.close()
    const reopened = new SqliteState(file)
    expect(await reopened.spendDaily(1, now)).toEqual({ ok: false, used: 1, resetAt: Date.UTC(2026, 0, 2) })
    // A new UTC day starts over.
    expect((await reopened.spendDaily(1, Date.UTC(2026, 0, 2, 0, 0, 1))).ok).toBe(true)
    reopened.close()
  })
})

describe('state in memory (no SQLite installed)', () => {
  it('keeps the same daily ceiling as the SQLite state, and starts over on a new UTC day', async () => {
    const now = Date.UTC(2026, 0, 1, 12)
    for (const state of [new MemoryState(), new SqliteState(IN_MEMORY)]) {
      expect(await state.spendDaily(2, now)).toEqual({ ok: true, used: 1, resetAt: Date.UTC(2026, 0, 2) })
      expect(await state.spendDaily(2, now)).toEqual({ ok: true, used: 2, resetAt: Date.UTC(2026, 0, 2) })
      expect(await state.spendDaily(2, now)).toEqual({ ok: false, used: 2, resetAt: Date.UTC(2026, 0, 2) })
      expect(await state.spendDaily(2, Date.UTC(2026, 0, 2, 0, 0, 1))).toMatchObject({ ok: true, used: 1 })
      state.close()
    }
  })
})

describe('feedback on the Node entry', () => {
  const send = (proxy: ReturnType<typeof createNodeProxy>, body: unknown) =>
    proxy.app.request('/ai/feedback', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  const feedback = { rating: 'up', question: 'What does c.set do?', answer: 'It stores a value.', receipt: { outcome: 'answered', prompt: 'the prompt' } }
  const settings = (storeText: boolean) => parseProxySettings({ routes: [], proxy: { siteOrigins: ['https://docs.example.com'] }, feedback: { storeText, maxBytes: 4096 } })

  it('stores the question, answer and receipt text in SQLite only when the owner opted in', async () => {
    const optedIn = createNodeProxy({ settings: settings(true), env: {}, dbPath: IN_MEMORY })
    expect((await send(optedIn, feedback)).status).toBe(201)
    expect(optedIn.state.feedbackRows()[0]).toMatchObject({ rating: 'up', question: 'What does c.set do?', answer: 'It stores a value.' })
    expect(JSON.parse(optedIn.state.feedbackRows()[0]!.receipt!)).toEqual({ outcome: 'answered' })
    optedIn.close()

    const byDefault = createNodeProxy({ settings: settings(false), env: {}, dbPath: IN_MEMORY })
    expect((await send(byDefault, feedback)).status).toBe(201)
    expect(byDefault.state.feedbackRows()[0]).toMatchObject({ rating: 'up', question: null, answer: null })
    expect(JSON.stringify(byDefault.state.feedbackRows())).not.toMatch(/c\.set|stores a value|the prompt/)
    byDefault.close()
  })
})

describe('start-up and internal failures on the Node entry', () => {
  const KEY = 'sk-node-start-key-6a1f0c'
  const routes = [{ member: 'openai' as const, chatModels: ['gpt-4o-mini'] }]
  const withOrigins = parseProxySettings({ routes, proxy: { siteOrigins: ['https://docs.example.com'] } })

  it('refuses to start on a key that cannot be a header value, naming the variable and never the value', () => {
    for (const bad of [`${KEY}\n`, `${KEY}\u0000x`, ` ${KEY}`]) {
      let message = ''
      try {
        createNodeProxy({ settings: withOrigins, env: { OPENAI_API_KEY: bad }, dbPath: IN_MEMORY })
      } catch (err) {
        message = (err as Error).message
      }
      expect(message).toMatch(/^OPENAI_API_KEY cannot be sent as a header value/)
      expect(message).not.toContain(KEY)
    }
  })

  it('refuses to start on a base URL variable without its scheme, naming the variable and an example, never the value', () => {
    const ollama = parseProxySettings({ routes: [{ member: 'ollama', chatModels: ['llama3.2'] }], proxy: { siteOrigins: ['https://docs.example.com'] } })
    expect(() => createNodeProxy({ settings: ollama, env: { OLLAMA_URL: 'localhost:11434' }, dbPath: IN_MEMORY })).toThrow(
      /^OLLAMA_URL is not an http\(s\) URL; write it with its scheme, e\.g\. http:\/\/127\.0\.0\.1:11434 \(the value is not shown here\)\.$/,
    )
    expect(() => createNodeProxy({ settings: withOrigins, env: { OPENAI_API_KEY: KEY, OPENAI_BASE_URL: 'api.openai.com/v1' }, dbPath: IN_MEMORY })).toThrow(
      /^OPENAI_BASE_URL is not an http\(s\) URL; write it with its scheme, e\.g\. https:\/\/api\.openai\.com\/v1 /,
    )
    createNodeProxy({ settings: ollama, env: { OLLAMA_URL: 'http://127.0.0.1:11434' }, dbPath: IN_MEMORY }).close()
  })

  it('refuses to start without proxy.siteOrigins, naming the field and how to set it', () => {
    expect(() => createNodeProxy({ settings: parseProxySettings({ routes }), env: { OPENAI_API_KEY: KEY }, dbPath: IN_MEMORY })).toThrow(
      /proxy\.siteOrigins is not set.*Set proxy\.siteOrigins in docpilot\.config, e\.g\. \['https:\/\/docs\.example\.com'\]/,
    )
  })

  it('answers an internal error with a fixed message and an id; the log has the details with every key redacted', async () => {
    const logged: string[] = []
    const proxy = createNodeProxy({
      settings: withOrigins,
      env: { OPENAI_API_KEY: KEY, GEMINI_API_KEY: 'gm-other-key-1234567' },
      dbPath: IN_MEMORY,
      fetch: async () => {
        throw Object.assign(new TypeError(`Headers.set: "Bearer ${KEY}" is an invalid header value; also gm-other-key-1234567 and ${btoa(KEY)}`), { cause: undefined })
      },
    })
    // An unreachable upstream is an expected failure: a 502 whose message is redacted.
    const unreachable = await proxy.app.request('/ai/openai/chat/completions', { method: 'POST', body: JSON.stringify({ model: 'gpt-4o-mini', messages: [] }) })
    expect(unreachable.status).toBe(502)
    expect(await unreachable.text()).not.toMatch(new RegExp(`${KEY}|gm-other|${btoa(KEY).slice(0, 12)}`))
    proxy.close()

    const broken = createNodeProxy({ settings: withOrigins, env: { OPENAI_API_KEY: KEY }, dbPath: IN_MEMORY })
    const take = broken.state.take.bind(broken.state)
    broken.state.take = async () => {
      throw new Error(`state failed while holding ${KEY}`)
    }
    const original = console.error
    console.error = (line: string) => void logged.push(line)
    try {
      const res = await broken.app.request('/ai/openai/chat/completions', { method: 'POST', body: '{}' })
      const body = (await res.json()) as { error: { code: string; message: string } }
      expect(res.status).toBe(500)
      expect(body.error.code).toBe('proxy_error')
      const id = res.headers.get('x-docpilot-error-id')!
      expect(body.error.message).toBe(`The proxy could not handle this request; the site owner can find error ${id} in the proxy's log.`)
      expect(logged.join('\n')).toContain(`docpilot proxy error ${id}`)
      expect(logged.join('\n')).toContain('state failed while holding [redacted]')
      expect(logged.join('\n')).not.toContain(KEY)
    } finally {
      console.error = original
      broken.state.take = take
      broken.close()
    }
  })

  it('with trusted hops, the client is the address the nearest proxy appended, so a client cannot pick its own bucket', async () => {
    const settings = parseProxySettings({ routes, proxy: { siteOrigins: ['https://docs.example.com'], rateLimit: { perMinute: 1, burst: 3 } } })
    const proxy = createNodeProxy({ settings, env: {}, dbPath: IN_MEMORY, trustedHops: 1 })
    const statuses: number[] = []
    for (let i = 0; i < 5; i++) {
      const res = await proxy.app.request('/ai/feedback', { method: 'POST', headers: { 'x-forwarded-for': `10.9.${i}.1, 203.0.113.7` }, body: JSON.stringify({ rating: 'up' }) })
      statuses.push(res.status)
    }
    expect(statuses).toEqual([201, 201, 201, 429, 429])
    proxy.close()
  })

  it('without trusted hops, says once that forwarded requests share one bucket, and how to start it', async () => {
    const settings = parseProxySettings({ routes, proxy: { siteOrigins: ['https://docs.example.com'] } })
    const logged: string[] = []
    const behindCaddy = createNodeProxy({ settings, env: {}, dbPath: IN_MEMORY, log: (line) => void logged.push(line) })
    for (const address of ['203.0.113.7', '198.51.100.9']) {
      await behindCaddy.app.request('/ai/feedback', { method: 'POST', headers: { 'x-forwarded-for': address }, body: JSON.stringify({ rating: 'up' }) })
    }
    expect(logged).toEqual([expect.stringMatching(/^docpilot proxy: requests arrive with X-Forwarded-For, .*every reader shares one rate-limit bucket.*--trust-proxy/)])
    behindCaddy.close()

    const trusting = createNodeProxy({ settings, env: {}, dbPath: IN_MEMORY, trustedHops: 1, log: (line) => void logged.push(line) })
    await trusting.app.request('/ai/feedback', { method: 'POST', headers: { 'x-forwarded-for': '203.0.113.7' }, body: JSON.stringify({ rating: 'up' }) })
    expect(logged).toHaveLength(1)
    trusting.close()
  })

  it('an IPv6 client that changes address inside its /64 keeps its bucket', async () => {
    const settings = parseProxySettings({ routes, proxy: { siteOrigins: ['https://docs.example.com'], rateLimit: { perMinute: 1, burst: 3 } } })
    const proxy = createNodeProxy({ settings, env: {}, dbPath: IN_MEMORY, trustedHops: 1 })
    const statuses: number[] = []
    for (let i = 0; i < 5; i++) {
      const res = await proxy.app.request('/ai/feedback', { method: 'POST', headers: { 'x-forwarded-for': `2001:db8:1:2:${i.toString(16)}:ab:cd:ef` }, body: JSON.stringify({ rating: 'up' }) })
      statuses.push(res.status)
    }
    expect(statuses).toEqual([201, 201, 201, 429, 429])
    const other = await proxy.app.request('/ai/feedback', { method: 'POST', headers: { 'x-forwarded-for': '2001:db8:1:3::1' }, body: JSON.stringify({ rating: 'up' }) })
    expect(other.status).toBe(201)
    proxy.close()
  })
})

describe('upstream time limits', () => {
  it('cuts an upstream that goes quiet mid-stream after chat.timeouts.idleMs, and says so by ending the stream', async () => {
    let upstreamSignal: AbortSignal | undefined
    const settings = parseProxySettings({
      routes: [{ member: 'openai', chatModels: ['gpt-4o-mini'] }],
      proxy: { siteOrigins: ['https://docs.example.com'] },
      timeouts: { firstByteMs: 5000, idleMs: 300 },
    })
    const proxy = createNodeProxy({
      settings,
      env: { OPENAI_API_KEY: 'sk-idle-test-key-0000' },
      dbPath: IN_MEMORY,
      fetch: async (_url, init) => {
        upstreamSignal = init?.signal ?? undefined
        const body = new ReadableStream<Uint8Array>({
          start(controller) {
            controller.enqueue(new TextEncoder().encode('data: {"choices":[{"delta":{"content":"first"}}]}\n\n'))
            init?.signal?.addEventListener('abort', () => controller.error(init.signal!.reason))
          },
        })
        return new Response(body, { headers: { 'content-type': 'text/event-stream' } })
      },
    })
    const res = await proxy.app.request('/ai/openai/chat/completions', { method: 'POST', body: JSON.stringify({ model: 'gpt-4o-mini', messages: [] }) })
    expect(res.status).toBe(200)
    const reader = res.body!.getReader()
    expect(new TextDecoder().decode((await reader.read()).value)).toContain('first')
    const ended = await reader.read().then(
      (r) => (r.done ? 'done' : 'more'),
      () => 'errored',
    )
    expect(['errored', 'done']).toContain(ended)
    expect(upstreamSignal?.aborted).toBe(true)
    proxy.close()
  })
})
