/**
 * One suite, two runtimes: the Node entry in-process on a real port, and the
 * Workers entry under a real `wrangler dev`. Upstreams are the fake providers
 * (fixtures/providers), which speak each wire protocol and log every request.
 */
import { mkdtempSync } from 'node:fs'
import { createServer, request as httpRequest, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { applyControl, createFakeServer, type FakeState } from '../fixtures/providers/server.ts'
import { basePath, defaultKey } from '../fixtures/providers/members.ts'
import type { FaultRule, RecordedRequest } from '../fixtures/providers/types.ts'
import { CHAIN, type MemberId } from '../core/providers/table.ts'
import type { ProxySettingsInput } from './settings.ts'
import { startNodeProcess, startProxy, startWorkerProxy, wranglerCli, type RunningProxy, type RunningWorker, type Runtime } from './testing.ts'
import { findKeys } from '../core/key-scan.ts'
import { SqliteState } from './node.ts'

/** The site the proxy serves (proxy.siteOrigins), and another site it allows with CORS. */
const SITE_ORIGIN = 'https://docs.example.com'
const ORIGIN_ALLOWED = 'https://partner.example.org'
const CLIENT_SECRET = 'client-sent-secret-0000'
/** A key the fake rejects, so its error body (which quotes keys back, masked) passes through the proxy. */
const WRONG_DEEPSEEK_KEY = 'wrong-deepseek-key-5f2c9a7e41'
/** The key of the `custom` member, whose upstream is careless: it quotes the whole key back. */
const CUSTOM_KEY = 'custom-key-quoted-back-7e3a91'

/**
 * An OpenAI-compatible server of the owner's own that refuses every request
 * with 401 and quotes the credential it got in the body and in headers, as
 * some servers and debugging middlewares do.
 */
async function startCarelessUpstream(): Promise<{ url: string; close(): Promise<void> }> {
  const server = createServer((req, res) => {
    const presented = String(req.headers.authorization ?? '').replace(/^Bearer /, '')
    req.resume()
    req.on('end', () => {
      res.writeHead(401, {
        'content-type': 'application/json',
        'x-ratelimit-note': `key ${presented}`,
        'www-authenticate': `Bearer realm="${presented}"`,
      })
      res.end(JSON.stringify({ error: { message: `Incorrect API key provided: ${presented}`, type: 'invalid_request_error' } }))
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    close: () => new Promise<void>((r) => {
      server.close(() => r())
      server.closeAllConnections()
    }),
  }
}

interface Fake {
  url: string
  state: FakeState
  server: Server
  /** Responses the fake had to stop early because the other end went away, by request path. */
  cutShort: string[]
  env(): Record<string, string>
  control(rule: FaultRule | FaultRule[]): void
  requests(): RecordedRequest[]
  close(): Promise<void>
}

/** The fake providers, on a server whose responses we can watch end. */
async function startFake(): Promise<Fake> {
  const { server, state } = createFakeServer()
  const cutShort: string[] = []
  server.on('request', (req, res: ServerResponse) => {
    res.on('close', () => {
      if (!res.writableFinished) cutShort.push(req.url ?? '')
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  return {
    url,
    state,
    server,
    cutShort,
    env() {
      const env: Record<string, string> = {}
      for (const spec of CHAIN) {
        if (spec.keyEnv) env[spec.keyEnv] = state.keys[spec.id]
        env[spec.baseUrlEnv] = `${url}${basePath(spec.id)}`
      }
      env.DEEPSEEK_API_KEY = WRONG_DEEPSEEK_KEY
      return env
    },
    control: (rule) => void applyControl(state, rule),
    requests: () => structuredClone(state.requests),
    close: () =>
      new Promise<void>((r) => {
        server.close(() => r())
        server.closeAllConnections()
      }),
  }
}

const MAX_TOKENS = 512
const MAX_BODY = 4096

function mainSettings(): ProxySettingsInput {
  return {
    routes: [
      { member: 'openai', chatModels: ['gpt-4o-mini'], embedModels: ['text-embedding-3-small'] },
      { member: 'gemini', chatModels: ['gemini-2.0-flash'], embedModels: ['text-embedding-004'] },
      { member: 'anthropic', chatModels: ['claude-3-5-haiku-latest'] },
      { member: 'openrouter', chatModels: ['openrouter/free', 'meta-llama/llama-3.3-70b-instruct:free'] },
      { member: 'deepseek', chatModels: ['deepseek-chat'] },
      { member: 'ollama', chatModels: ['llama3.2'], embedModels: ['nomic-embed-text'] },
      { member: 'custom', chatModels: ['default'] },
    ],
    proxy: {
      siteOrigins: [SITE_ORIGIN],
      allowedOrigins: [ORIGIN_ALLOWED],
      maxBodyBytes: MAX_BODY,
      maxTokens: MAX_TOKENS,
      rateLimit: { perMinute: 60_000, burst: 10_000 },
    },
    feedback: { storeText: false, maxBytes: 1024 },
  }
}

/** How long one request to a proxy may go unanswered before a test names it (generous: the machine is shared). */
const ANSWER_DEADLINE_MS = 120_000

/** Every byte the browser could receive from the proxy in this suite: status, headers, body. */
const received: string[] = []

/** Status line and headers as the browser sees them. */
function record(res: Response, body: string): void {
  received.push(`${res.status} ${res.statusText}\n${[...res.headers].map(([k, v]) => `${k}: ${v}`).join('\n')}\n\n${body}`)
}

async function call(base: string, path: string, init: RequestInit = {}): Promise<{ res: Response; text: string; json: any }> {
  const res = await fetch(`${base}${path}`, init)
  const text = await res.text()
  record(res, text)
  let json: any
  try {
    json = JSON.parse(text)
  } catch {
    json = undefined
  }
  return { res, text, json }
}

const post = (body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'application/json', ...headers },
  body: typeof body === 'string' ? body : JSON.stringify(body),
})

const openaiChat = (extra: Record<string, unknown> = {}) => ({
  model: 'gpt-4o-mini',
  stream: true,
  messages: [{ role: 'user', content: 'What does c.set do?' }],
  ...extra,
})

const hostileHeaders = {
  authorization: `Bearer ${CLIENT_SECRET}`,
  'x-api-key': CLIENT_SECRET,
  'x-goog-api-key': CLIENT_SECRET,
  cookie: `session=${CLIENT_SECRET}`,
}

function lastFor(fake: Fake, member: MemberId): RecordedRequest {
  const r = fake.requests().filter((q) => q.member === member).at(-1)
  if (!r) throw new Error(`the fake saw no request for ${member}`)
  return r
}

const tmp = (prefix: string) => mkdtempSync(join(tmpdir(), prefix))

const RUNTIMES: Runtime[] = ['node', 'workers']

describe.each(RUNTIMES)('proxy on %s', (runtime) => {
  let fake: Fake
  let proxy: RunningProxy
  let base: string
  const statePath = () => (runtime === 'node' ? join(tmp('docpilot-proxy-'), 'state.sqlite') : tmp('docpilot-persist-'))
  let mainState: string

  let careless: Awaited<ReturnType<typeof startCarelessUpstream>>

  beforeAll(async () => {
    fake = await startFake()
    careless = await startCarelessUpstream()
    mainState = statePath()
    const env = { ...fake.env(), DOCPILOT_CUSTOM_URL: careless.url, DOCPILOT_CUSTOM_KEY: CUSTOM_KEY }
    proxy = await startProxy(runtime, { settings: mainSettings(), env, statePath: mainState })
    base = proxy.url
  }, 300_000)

  afterAll(async () => {
    await proxy?.stop()
    await fake?.close()
    await careless?.close()
  })

  describe('credentials', () => {
    it('attaches each member its own key in its own header, and drops every client credential', async () => {
      const cases: { member: MemberId; path: string; body: unknown; check: (r: RecordedRequest) => void }[] = [
        {
          member: 'openai',
          path: '/ai/openai/chat/completions',
          body: openaiChat(),
          check: (r) => expect(r.headers.authorization).toBe('Bearer test-key-openai'),
        },
        {
          member: 'openrouter',
          path: '/ai/openrouter/chat/completions',
          body: openaiChat({ model: 'openrouter/free' }),
          check: (r) => expect(r.headers.authorization).toBe('Bearer test-key-openrouter'),
        },
        {
          member: 'anthropic',
          path: '/ai/anthropic/messages',
          body: { model: 'claude-3-5-haiku-latest', max_tokens: 200, stream: true, messages: [{ role: 'user', content: 'hi' }] },
          check: (r) => {
            expect(r.headers['x-api-key']).toBe('test-key-anthropic')
            expect(r.headers['anthropic-version']).toBe('2023-06-01')
            expect(r.headers.authorization).toBeUndefined()
          },
        },
        {
          member: 'gemini',
          path: `/ai/gemini/models/gemini-2.0-flash:streamGenerateContent?alt=sse&key=${CLIENT_SECRET}`,
          body: { contents: [{ role: 'user', parts: [{ text: 'hi' }] }] },
          check: (r) => {
            expect(r.headers['x-goog-api-key']).toBe('test-key-gemini')
            expect(r.path).toBe('/gemini/v1beta/models/gemini-2.0-flash:streamGenerateContent?alt=sse')
          },
        },
        {
          member: 'ollama',
          path: '/ai/ollama/api/chat',
          body: { model: 'llama3.2', messages: [{ role: 'user', content: 'hi' }] },
          check: (r) => expect(r.headers.authorization).toBeUndefined(),
        },
        {
          member: 'openai',
          path: '/ai/openai/embeddings',
          body: { model: 'text-embedding-3-small', input: ['hello'] },
          check: (r) => {
            expect(r.endpoint).toBe('embed')
            expect(r.headers.authorization).toBe('Bearer test-key-openai')
          },
        },
        {
          member: 'gemini',
          path: '/ai/gemini/models/text-embedding-004:batchEmbedContents',
          body: { requests: [{ model: 'models/text-embedding-004', content: { parts: [{ text: 'hello' }] } }] },
          check: (r) => expect(r.headers['x-goog-api-key']).toBe('test-key-gemini'),
        },
      ]
      for (const c of cases) {
        const { res, text } = await call(base, c.path, post(c.body, hostileHeaders))
        expect(res.status, `${c.path}: ${text}`).toBe(200)
        const seen = lastFor(fake, c.member)
        c.check(seen)
        expect(JSON.stringify(seen), `${c.path} forwarded a client credential`).not.toContain(CLIENT_SECRET)
        expect(seen.headers.cookie).toBeUndefined()
      }
    })
  })

  describe('refusals', () => {
    const refusals: { name: string; path: string; init: RequestInit; status: number; code: string; message: RegExp }[] = [
      { name: 'unknown member', path: '/ai/nobody/chat/completions', init: post(openaiChat()), status: 404, code: 'unknown_member', message: /No provider route "nobody"/ },
      { name: 'member not in the chain', path: '/ai/mistral/chat/completions', init: post(openaiChat()), status: 404, code: 'unknown_member', message: /configured members are: openai, gemini/ },
      { name: 'path the protocol does not need', path: '/ai/openai/models', init: post({}), status: 404, code: 'path_not_allowed', message: /serves only: chat\/completions, embeddings/ },
      { name: 'embeddings on a chat-only member', path: '/ai/openrouter/embeddings', init: post({ model: 'openrouter/free', input: 'x' }), status: 404, code: 'path_not_allowed', message: /does not forward "embeddings"/ },
      { name: 'GET', path: '/ai/openai/chat/completions', init: { method: 'GET' }, status: 405, code: 'method_not_allowed', message: /use POST/ },
      { name: 'PUT', path: '/ai/openai/chat/completions', init: { ...post(openaiChat()), method: 'PUT' }, status: 405, code: 'method_not_allowed', message: /Method PUT/ },
      { name: 'body over the cap', path: '/ai/openai/chat/completions', init: post(openaiChat({ messages: [{ role: 'user', content: 'x'.repeat(MAX_BODY) }] })), status: 413, code: 'body_too_large', message: /limited to 4096 bytes/ },
      { name: 'not JSON', path: '/ai/openai/chat/completions', init: post('{nope'), status: 400, code: 'invalid_body', message: /JSON object/ },
      { name: 'undeclared chat model', path: '/ai/openai/chat/completions', init: post(openaiChat({ model: 'gpt-4o' })), status: 403, code: 'model_not_allowed', message: /Model "gpt-4o" is not declared/ },
      { name: 'chat model on the embeddings route', path: '/ai/openai/embeddings', init: post({ model: 'gpt-4o-mini', input: 'x' }), status: 403, code: 'model_not_allowed', message: /embeddings route/ },
      { name: 'undeclared model in a Gemini path', path: '/ai/gemini/models/gemini-1.5-pro:streamGenerateContent?alt=sse', init: post({ contents: [] }), status: 403, code: 'model_not_allowed', message: /gemini-1.5-pro/ },
      { name: 'a batch item naming another model', path: '/ai/gemini/models/text-embedding-004:batchEmbedContents', init: post({ requests: [{ model: 'models/other-embedder', content: { parts: [{ text: 'x' }] } }] }), status: 403, code: 'model_not_allowed', message: /other-embedder/ },
      { name: 'a foreign origin', path: '/ai/openai/chat/completions', init: post(openaiChat(), { origin: 'https://evil.example' }), status: 403, code: 'origin_not_allowed', message: /proxy\.allowedOrigins/ },
      { name: 'feedback from a foreign origin', path: '/ai/feedback', init: post({ rating: 'up' }, { origin: 'https://evil.example' }), status: 403, code: 'origin_not_allowed', message: /proxy\.allowedOrigins/ },
      { name: 'feedback by GET', path: '/ai/feedback', init: { method: 'GET' }, status: 405, code: 'method_not_allowed', message: /use POST/ },
      { name: 'a GET of no route at all', path: '/ai/unknown-route', init: { method: 'GET' }, status: 404, code: 'unknown_route', message: /^No route \/ai\/unknown-route on this proxy; it serves GET \/ai\/health, POST \/ai\/feedback, POST \/ai\/events, POST \/ai\/mcp and POST \/ai\/<member>\/<path> for the configured members: openai, gemini, / },
      { name: 'a GET below no member', path: '/ai/nobody/chat/completions', init: { method: 'GET' }, status: 404, code: 'unknown_member', message: /No provider route "nobody"/ },
      { name: 'a GET of a path no member forwards', path: '/ai/openai/models', init: { method: 'GET' }, status: 404, code: 'path_not_allowed', message: /serves only: chat\/completions, embeddings/ },
      { name: 'an opaque origin', path: '/ai/openai/chat/completions', init: post(openaiChat(), { origin: 'null' }), status: 403, code: 'origin_not_allowed', message: /origin null/ },
    ]

    it.each(refusals)('refuses $name with $status $code and forwards nothing', async ({ path, init, status, code, message }) => {
      const before = fake.requests().length
      const { res, json } = await call(base, path, init)
      expect(res.status).toBe(status)
      expect(res.headers.get('content-type')).toMatch(/application\/json/)
      expect(json.error.code).toBe(code)
      expect(json.error.message).toMatch(message)
      expect(fake.requests().length).toBe(before)
      expect(res.headers.get('allow')).toBe(status === 405 ? 'POST, OPTIONS' : null)
    })

    it('clamps max_tokens over the cap (and writes it when absent), saying so in a header', async () => {
      const over = await call(base, '/ai/openai/chat/completions', post(openaiChat({ max_tokens: 100_000 })))
      expect(over.res.status).toBe(200)
      expect(over.res.headers.get('x-docpilot-max-tokens-clamped')).toBe(String(MAX_TOKENS))
      expect((lastFor(fake, 'openai').body as any).max_tokens).toBe(MAX_TOKENS)

      await call(base, '/ai/anthropic/messages', post({ model: 'claude-3-5-haiku-latest', max_tokens: 9999, stream: true, messages: [{ role: 'user', content: 'hi' }] }))
      expect((lastFor(fake, 'anthropic').body as any).max_tokens).toBe(MAX_TOKENS)

      await call(base, '/ai/gemini/models/gemini-2.0-flash:streamGenerateContent?alt=sse', post({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }] }))
      expect((lastFor(fake, 'gemini').body as any).generationConfig.maxOutputTokens).toBe(MAX_TOKENS)

      const under = await call(base, '/ai/openai/chat/completions', post(openaiChat({ max_tokens: 100 })))
      expect(under.res.headers.get('x-docpilot-max-tokens-clamped')).toBeNull()
      expect((lastFor(fake, 'openai').body as any).max_tokens).toBe(100)
    })

    it('forwards only allow-listed body fields, forces answer multipliers to 1 and clamps every spelling of the token limit', async () => {
      await call(base, '/ai/openai/chat/completions', post(openaiChat({ n: 128, best_of: 20, tools: [{ type: 'function' }], max_tokens: 100 })))
      const openai = lastFor(fake, 'openai').body as Record<string, unknown>
      expect(openai.n).toBe(1)
      expect(openai).not.toHaveProperty('best_of')
      expect(openai).not.toHaveProperty('tools')
      await call(
        base,
        '/ai/gemini/models/gemini-2.0-flash:streamGenerateContent?alt=sse',
        post({ contents: [{ role: 'user', parts: [{ text: 'hi' }] }], generationConfig: { candidateCount: 8, maxOutputTokens: 100 }, generation_config: { max_output_tokens: 999_999, candidate_count: 8 } }),
      )
      const gemini = lastFor(fake, 'gemini').body as Record<string, any>
      expect(gemini.generationConfig).toEqual({ candidateCount: 1, maxOutputTokens: MAX_TOKENS })
      expect(gemini).not.toHaveProperty('generation_config')
    })

    it('serves same-origin and listed origins, with CORS only for the listed one', async () => {
      const same = await call(base, '/ai/openai/chat/completions', post(openaiChat(), { origin: SITE_ORIGIN }))
      expect(same.res.status).toBe(200)
      expect(same.res.headers.get('access-control-allow-origin')).toBeNull()
      const listed = await call(base, '/ai/openai/chat/completions', post(openaiChat(), { origin: ORIGIN_ALLOWED }))
      expect(listed.res.status).toBe(200)
      expect(listed.res.headers.get('access-control-allow-origin')).toBe(ORIGIN_ALLOWED)
      const preflight = await call(base, '/ai/openai/chat/completions', { method: 'OPTIONS', headers: { origin: ORIGIN_ALLOWED, 'access-control-request-method': 'POST' } })
      expect(preflight.res.status).toBe(204)
      expect(preflight.res.headers.get('access-control-allow-methods')).toBe('POST')
      const foreignPreflight = await call(base, '/ai/openai/chat/completions', { method: 'OPTIONS', headers: { origin: 'https://evil.example' } })
      expect(foreignPreflight.res.status).toBe(403)
    })

    it('marks every answer as data the browser must neither sniff nor render as a page of the site', async () => {
      fake.control({ member: 'openai', fault: 'server-error', times: 1 })
      const answers = [
        await call(base, '/ai/openai/chat/completions', post(openaiChat(), { origin: ORIGIN_ALLOWED })),
        await call(base, '/ai/openai/chat/completions', post(openaiChat())),
        await call(base, '/ai/openai/chat/completions', post(openaiChat({ model: 'gpt-4o' }))),
        await call(base, '/ai/health', { method: 'GET' }),
        await call(base, '/ai/openai/chat/completions', { method: 'OPTIONS', headers: { origin: ORIGIN_ALLOWED, 'access-control-request-method': 'POST' } }),
      ]
      expect(answers.map((a) => a.res.status)).toEqual([500, 200, 403, 200, 204])
      for (const { res } of answers) {
        expect(res.headers.get('x-content-type-options')).toBe('nosniff')
        expect(res.headers.get('content-security-policy')).toBe("default-src 'none'; frame-ancestors 'none'; sandbox")
      }
      // CORS for the listed origin is still there, on the upstream's error too.
      expect(answers[0]!.res.headers.get('access-control-allow-origin')).toBe(ORIGIN_ALLOWED)
    })
  })

  describe('streaming', () => {
    it('passes deltas through as they arrive, not when the upstream finishes', async () => {
      fake.control({ member: 'openai', deltas: 5, paceMs: 400, times: 1 })
      const started = Date.now()
      const res = await fetch(`${base}/ai/openai/chat/completions`, post(openaiChat()))
      expect(res.status).toBe(200)
      // nginx in front would buffer the stream without proxy_buffering off; the header asks it not to.
      expect(res.headers.get('content-type')).toContain('text/event-stream')
      expect(res.headers.get('x-accel-buffering')).toBe('no')
      const reader = res.body!.getReader()
      const decoder = new TextDecoder()
      let text = ''
      let firstDeltaAt: number | undefined
      for (;;) {
        const { done, value } = await reader.read()
        if (done) break
        text += decoder.decode(value, { stream: true })
        if (firstDeltaAt === undefined && text.includes('"content"')) firstDeltaAt = Date.now()
      }
      const endedAt = Date.now()
      record(res, text)
      expect(text).toContain('data: [DONE]')
      expect(firstDeltaAt).toBeDefined()
      // Five deltas 400 ms apart: a buffering proxy would hand over the first with the last.
      expect(endedAt - firstDeltaAt!).toBeGreaterThanOrEqual(1200)
      expect(firstDeltaAt! - started).toBeLessThan(endedAt - started)
    })

    it('cancels the upstream request when the client goes away', async () => {
      fake.control({ member: 'anthropic', deltas: 40, paceMs: 150, times: 1 })
      const controller = new AbortController()
      const res = await fetch(`${base}/ai/anthropic/messages`, {
        ...post({ model: 'claude-3-5-haiku-latest', max_tokens: 200, stream: true, messages: [{ role: 'user', content: 'hi' }] }),
        signal: controller.signal,
      })
      const reader = res.body!.getReader()
      const decoder = new TextDecoder()
      let text = ''
      while (!text.includes('content_block_delta')) {
        const { done, value } = await reader.read()
        if (done) break
        text += decoder.decode(value, { stream: true })
      }
      expect(text).toContain('content_block_delta')
      record(res, text)
      controller.abort()
      // 40 deltas at 150 ms is six seconds of stream; the upstream must be cut long before it ends.
      const deadline = Date.now() + 4000
      while (!fake.cutShort.some((p) => p.includes('/anthropic/v1/messages')) && Date.now() < deadline) {
        await new Promise((r) => setTimeout(r, 50))
      }
      expect(fake.cutShort.some((p) => p.includes('/anthropic/v1/messages'))).toBe(true)
    })
  })

  describe('health and feedback', () => {
    it('lists each member and whether its key is set, never the key', async () => {
      const { res, json, text } = await call(base, '/ai/health', { method: 'GET' })
      expect(res.status).toBe(200)
      const openai = json.routes.find((r: any) => r.member === 'openai')
      expect(openai).toMatchObject({ keyEnv: 'OPENAI_API_KEY', keySet: true, ok: true })
      expect(openai.paths).toEqual(['/ai/openai/chat/completions', '/ai/openai/embeddings'])
      expect(json.routes.find((r: any) => r.member === 'ollama')).toMatchObject({ keyEnv: null, keySet: null, ok: true })
      expect(text).not.toContain('test-key-')
      const before = fake.requests().filter((r) => r.endpoint === 'chat' || r.endpoint === 'embed').length
      const probed = await call(base, '/ai/health?probe=1', { method: 'GET' })
      const probeOf = (m: string) => probed.json.routes.find((r: any) => r.member === m).probe
      expect(probeOf('openai')).toEqual({ status: 200, result: 'ok' })
      expect(probeOf('gemini')).toEqual({ status: 200, result: 'ok' })
      expect(probeOf('ollama')).toEqual({ status: 200, result: 'ok' })
      expect(probeOf('deepseek')).toEqual({ status: 401, result: 'auth' })
      expect(probed.json.ok).toBe(false)
      // The probe lists models; it never spends a chat or embedding request.
      expect(fake.requests().filter((r) => r.endpoint === 'chat' || r.endpoint === 'embed').length).toBe(before)
      const wrong = await call(base, '/ai/health', { method: 'POST' })
      expect(wrong.res.status).toBe(405)
      // An uptime monitor's HEAD: the status and headers, no body.
      const head = await call(base, '/ai/health', { method: 'HEAD' })
      expect([head.res.status, head.res.headers.get('content-type'), head.text]).toEqual([200, 'application/json; charset=utf-8', ''])
    })

    it('stores a rating with its receipt and ladder but without text, and refuses oversize or malformed feedback', async () => {
      const feedback = {
        rating: 'down',
        receipt: { outcome: 'answered', attempts: [{ member: 'openai', model: 'gpt-4o-mini', class: 'ok', status: 200, latencyMs: 12 }], question: 'secret question text' },
        ladder: { provider: 'openai', index: 0, freePool: false },
        question: 'secret question text',
        answer: 'secret answer text',
      }
      const ok = await call(base, '/ai/feedback', post(feedback))
      expect(ok.res.status).toBe(201)
      const id = ok.json.id as string

      const big = await call(base, '/ai/feedback', post({ rating: 'up', comment: 'x'.repeat(2000) }))
      expect(big.res.status).toBe(413)
      expect(big.json.error.code).toBe('body_too_large')
      const bad = await call(base, '/ai/feedback', post({ rating: 'meh' }))
      expect(bad.res.status).toBe(400)
      expect(bad.json.error.message).toMatch(/rating/)
      // Text under other names, in the ladder, in the page's query: an allow-list stores none of it.
      const sneaky = await call(
        base,
        '/ai/feedback',
        post({
          rating: 'up',
          Question: 'secret 1',
          query: 'secret 2',
          userText: 'secret 3',
          msgs: [{ Content: 'secret 4' }],
          ladder: { provider: 'openai', index: 0, freePool: false, why: 'secret 5' },
          page: 'https://docs.example.com/guide?q=secret+6',
        }),
      )
      expect(sneaky.res.status).toBe(201)
      const surrogate = await call(base, '/ai/feedback', post(`{"rating":"up","comment":"half \\ud800 pair"}`))
      expect(surrogate.res.status).toBe(400)
      const deep = await call(base, '/ai/feedback', post(`{"rating":"up","receipt":${'{"a":'.repeat(2500)}1${'}'.repeat(2500)}}`))
      expect(deep.res.status).toBe(413)

      let rows: Record<string, unknown>[]
      if (runtime === 'node') {
        const state = new SqliteState(mainState)
        rows = state.feedbackRows() as unknown as Record<string, unknown>[]
        state.close()
      } else {
        const worker = proxy as RunningWorker
        const out = await wranglerCli(worker.configDir, ['d1', 'execute', 'docpilot-feedback', '--local', '--persist-to', mainState, '--json', '--command', 'SELECT * FROM feedback'])
        expect(out.code, out.stderr).toBe(0)
        rows = (JSON.parse(out.stdout) as { results: Record<string, unknown>[] }[])[0]!.results
      }
      const row = rows.find((r) => r.id === id)
      expect(row).toBeDefined()
      const sneakyRow = rows.find((r) => r.id === sneaky.json.id)
      expect(sneakyRow!.page).toBe('https://docs.example.com/guide')
      expect(JSON.stringify(rows)).not.toContain('secret')
      expect(row!.rating).toBe('down')
      expect(JSON.parse(row!.ladder as string)).toEqual({ provider: 'openai', index: 0, freePool: false })
      expect(JSON.parse(row!.receipt as string).attempts[0].member).toBe('openai')
      expect(JSON.stringify(row)).not.toContain('secret')
      // Workers: reading D1 back spawns the wrangler CLI, which takes tens of seconds on a shared machine.
    }, 180_000)
  })

  describe('no key reaches the browser', () => {
    it('an upstream error that quotes the credential comes back redacted', async () => {
      const { res, text } = await call(base, '/ai/deepseek/chat/completions', post({ model: 'deepseek-chat', stream: true, messages: [{ role: 'user', content: 'hi' }] }))
      expect(res.status).toBe(401)
      expect(text).not.toContain(WRONG_DEEPSEEK_KEY)
      expect(fake.requests().some((r) => r.member === 'deepseek' && r.status === 401)).toBe(true)
    })

    it('an upstream that quotes the whole key in its body and headers is redacted and filtered', async () => {
      const { res, text, json } = await call(base, '/ai/custom/chat/completions', post({ model: 'default', stream: true, messages: [{ role: 'user', content: 'hi' }] }))
      expect(res.status).toBe(401)
      // The upstream's own error passes through (the ladder classifies it), minus the key.
      expect(json.error.message).toBe('Incorrect API key provided: [redacted]')
      expect(text).not.toContain(CUSTOM_KEY)
      // A passed header carrying the key is dropped; one never passed stays out.
      expect(res.headers.get('x-ratelimit-note')).toBeNull()
      expect(res.headers.get('www-authenticate')).toBeNull()
    })
  })
})

/** The key the hostile upstream is given, and quotes back in every form it can. */
const HOSTILE_KEY = 'sk-hostile-upstream-key-83b2f1'

interface Hostile {
  url: string
  /** Requests that arrived, by model (and at the redirect target, by path). */
  seen: string[]
  /** Models whose response the proxy cut before it finished. */
  cut: Set<string>
  /** Headers of every request the redirect target received. */
  redirectTarget: Record<string, string | string[] | undefined>[]
  close(): Promise<void>
}

/**
 * An OpenAI-compatible upstream that misbehaves by the model asked for:
 * redirects to another origin, hangs, answers late, stalls mid-stream,
 * quotes the key inside a 200 stream (split across writes) and base64 in an
 * error body, fails with 500, or answers normally.
 */
async function startHostileUpstream(): Promise<Hostile> {
  const seen: string[] = []
  const cut = new Set<string>()
  const redirectTarget: Hostile['redirectTarget'] = []
  const target = createServer((req, res) => {
    redirectTarget.push(req.headers)
    req.resume()
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"redirected":true}')
  })
  await new Promise<void>((r) => target.listen(0, '127.0.0.1', r))
  const targetUrl = `http://127.0.0.1:${(target.address() as AddressInfo).port}`
  const sse = (res: ServerResponse) => res.writeHead(200, { 'content-type': 'text/event-stream' })
  const delta = (text: string) => `data: ${JSON.stringify({ choices: [{ delta: { content: text } }] })}\n\n`
  const server = createServer((req, res) => {
    let raw = ''
    req.on('data', (d: Buffer) => (raw += d.toString()))
    req.on('end', () => {
      const model = (JSON.parse(raw || '{}') as { model?: string }).model ?? ''
      seen.push(model)
      res.on('close', () => {
        if (!res.writableFinished) cut.add(model)
      })
      switch (model) {
        case 'redirect':
          res.writeHead(307, { location: `${targetUrl}/v1/chat/completions` }).end()
          return
        case 'hang':
          return
        case 'slow-headers':
          setTimeout(() => !res.destroyed && res.writeHead(200, { 'content-type': 'application/json' }).end('{}'), 6000)
          return
        case 'stall':
          sse(res)
          res.write(delta('first'))
          return
        case 'sse-key': {
          sse(res)
          res.write(delta('Hello'))
          const event = `data: ${JSON.stringify({ error: { message: `Invalid key ${HOSTILE_KEY} (base64 ${btoa(`user:${HOSTILE_KEY}`)})` } })}\n\n`
          const at = event.indexOf(HOSTILE_KEY) + 9
          res.write(event.slice(0, at))
          setTimeout(() => res.end(`${event.slice(at)}data: [DONE]\n\n`), 50)
          return
        }
        case 'error-b64':
          res.writeHead(401, { 'content-type': 'application/json' }).end(JSON.stringify({ error: { message: `Bad credentials ${btoa(`k=${HOSTILE_KEY}`)}` } }))
          return
        case 'fail500':
          res.writeHead(500, { 'content-type': 'application/json' }).end('{"error":{"message":"upstream broke"}}')
          return
        default:
          sse(res)
          res.end(`${delta('ok')}data: [DONE]\n\n`)
      }
    })
  })
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/v1`,
    seen,
    cut,
    redirectTarget,
    close: async () => {
      for (const s of [server, target]) {
        s.closeAllConnections()
        await new Promise<void>((r) => s.close(() => r()))
      }
    },
  }
}

async function until(check: () => boolean, ms: number): Promise<boolean> {
  const deadline = Date.now() + ms
  while (!check() && Date.now() < deadline) await new Promise((r) => setTimeout(r, 50))
  return check()
}

/** A raw HTTP request, for headers fetch will not send (Host). */
function rawPost(url: string, path: string, headers: Record<string, string>, body: string): Promise<{ status: number; text: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers } }, (res) => {
      let text = ''
      res.on('data', (d: Buffer) => (text += d.toString()))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, text }))
    })
    req.on('error', reject)
    req.end(body)
  })
}

const HOSTILE_MODELS = ['redirect', 'hang', 'slow-headers', 'stall', 'sse-key', 'error-b64', 'fail500', 'ok']
const FIRST_BYTE_MS = 1500
const IDLE_MS = 8000

/**
 * Upstreams that misbehave, and clients that leave, against each runtime: no
 * key leaves in any form, no redirect is followed, time limits cut what
 * stalls, a leaving client cuts the upstream at any point, and only answered
 * requests spend the daily ceiling.
 */
describe.each(RUNTIMES)('hostile upstreams and clients on %s', (runtime) => {
  let hostile: Hostile
  let proxy: RunningProxy
  const chat = (model: string, init: RequestInit = {}) => ({ ...post({ model, stream: true, messages: [{ role: 'user', content: 'hi' }] }), ...init })

  beforeAll(async () => {
    hostile = await startHostileUpstream()
    const settings: ProxySettingsInput = {
      routes: [{ member: 'custom', chatModels: HOSTILE_MODELS }],
      // Bodies large enough to carry the deep-JSON attacks, so the depth check (not the size cap) answers them.
      proxy: { siteOrigins: [SITE_ORIGIN], maxBodyBytes: 262_144, rateLimit: { perMinute: 60_000, burst: 10_000 } },
      feedback: { maxBytes: 65_536 },
      budget: { dailyLimit: 6 },
      timeouts: { firstByteMs: FIRST_BYTE_MS, idleMs: IDLE_MS },
    }
    const statePath = runtime === 'node' ? join(tmp('docpilot-proxy-'), 'state.sqlite') : tmp('docpilot-persist-')
    proxy = await startProxy(runtime, { settings, env: { DOCPILOT_CUSTOM_URL: hostile.url, DOCPILOT_CUSTOM_KEY: HOSTILE_KEY }, statePath })
  }, 300_000)

  afterAll(async () => {
    await proxy?.stop()
    await hostile?.close()
  })

  it('never follows a redirect: the other origin receives nothing, and the client gets 502 upstream_redirected', async () => {
    const { res, json } = await call(proxy.url, '/ai/custom/chat/completions', chat('redirect'))
    expect(res.status).toBe(502)
    expect(json.error.code).toBe('upstream_redirected')
    expect(hostile.redirectTarget).toEqual([])
  })

  it('cuts an upstream that sends no headers within the first-byte limit (504), and closes its socket', async () => {
    const started = Date.now()
    const { res, json } = await call(proxy.url, '/ai/custom/chat/completions', chat('hang'))
    expect(res.status).toBe(504)
    expect(json.error.code).toBe('upstream_timeout')
    expect(Date.now() - started).toBeLessThan(FIRST_BYTE_MS + 5000)
    expect(await until(() => hostile.cut.has('hang'), 3000)).toBe(true)
  })

  it('a client that leaves before the upstream sends headers cuts the upstream', async () => {
    const controller = new AbortController()
    const pending = fetch(`${proxy.url}/ai/custom/chat/completions`, chat('slow-headers', { signal: controller.signal })).catch(() => undefined)
    expect(await until(() => hostile.seen.includes('slow-headers'), 5000)).toBe(true)
    controller.abort()
    await pending
    // The upstream would answer after 6 s; it must be cut well before.
    expect(await until(() => hostile.cut.has('slow-headers'), 4000)).toBe(true)
  })

  it('a client that leaves while the upstream stalls mid-stream cuts the upstream', async () => {
    const controller = new AbortController()
    const res = await fetch(`${proxy.url}/ai/custom/chat/completions`, chat('stall', { signal: controller.signal }))
    expect(res.status).toBe(200)
    const reader = res.body!.getReader()
    const decoder = new TextDecoder()
    let text = ''
    // The first event may arrive in pieces on a loaded machine.
    while (!text.includes('first')) {
      const { done, value } = await reader.read()
      if (done) break
      text += decoder.decode(value, { stream: true })
    }
    expect(text).toContain('first')
    controller.abort()
    // Well before the idle limit: the leaving client cut it (a Worker notices at its next keep-alive write).
    expect(await until(() => hostile.cut.has('stall'), IDLE_MS / 2)).toBe(true)
  })

  it('redacts the key inside a 200 stream, split across chunks and base64-encoded, and in an error body', async () => {
    const stream = await call(proxy.url, '/ai/custom/chat/completions', chat('sse-key'))
    expect(stream.res.status).toBe(200)
    expect(stream.text).toContain('Invalid key [redacted]')
    expect(stream.text).toContain('data: [DONE]')
    expect(findKeys([{ where: 'stream', bytes: stream.text }], [HOSTILE_KEY])).toEqual([])
    const error = await call(proxy.url, '/ai/custom/chat/completions', chat('error-b64'))
    expect(error.res.status).toBe(401)
    expect(findKeys([{ where: 'error body', bytes: error.text }], [HOSTILE_KEY])).toEqual([])
  })

  it('refuses a 32,000-level body with 400 invalid_body, forwarding and counting nothing', async () => {
    const before = hostile.seen.length
    const deep = `{"model":"ok","messages":${'['.repeat(32_000)}${']'.repeat(32_000)}}`
    const { res, json } = await call(proxy.url, '/ai/custom/chat/completions', post(deep))
    expect(res.status).toBe(400)
    expect(json.error.code).toBe('invalid_body')
    const feedback = await call(proxy.url, '/ai/feedback', post(`{"rating":"up","receipt":${'{"a":'.repeat(4000)}1${'}'.repeat(4000)}}`))
    expect(feedback.res.status).toBe(400)
    expect(feedback.json.error.code).toBe('invalid_body')
    expect(hostile.seen.length).toBe(before)
  })

  it('spends the daily ceiling (6) on what the provider may bill: after everything above, exactly 2 more get through', async () => {
    // Above: a redirect, a 401 and a deep body kept no unit (refused, by the upstream or here). The stalled and
    // the key-quoting streams were answered (200) and kept one each; the first-byte timeout and the client gone
    // before headers kept one each too: the upstream had the request, and a caller who hangs up must not ask for free.
    const fail = await call(proxy.url, '/ai/custom/chat/completions', chat('fail500'))
    expect(fail.res.status).toBe(500)
    const statuses: number[] = []
    for (let i = 0; i < 2; i++) statuses.push((await call(proxy.url, '/ai/custom/chat/completions', chat('ok'))).res.status)
    expect(statuses).toEqual([200, 200])
    const over = await call(proxy.url, '/ai/custom/chat/completions', chat('ok'))
    expect(over.res.status).toBe(429)
    expect(over.json.error.code).toBe('daily_quota')
  })

  it('decides the origin from configuration, never from Host, and compares the scheme', async () => {
    const body = JSON.stringify({ model: 'ok', messages: [] })
    const rebinding = await rawPost(proxy.url, '/ai/custom/chat/completions', { origin: 'https://evil.example', host: 'evil.example' }, body)
    expect(rebinding.status).toBe(403)
    expect(JSON.parse(rebinding.text).error.code).toBe('origin_not_allowed')
    const wrongScheme = await rawPost(proxy.url, '/ai/custom/chat/completions', { origin: 'http://docs.example.com', host: 'docs.example.com' }, body)
    expect(wrongScheme.status).toBe(403)
    const selfHost = new URL(proxy.url).host
    const ownAddress = await rawPost(proxy.url, '/ai/custom/chat/completions', { origin: proxy.url, host: selfHost }, body)
    expect(ownAddress.status).toBe(403)
  })
})

/** A key that cannot be a header value: Node refuses to start; a Worker (which has no start) answers 503 naming the variable. */
describe.each(RUNTIMES)('a key that is not a header value on %s', (runtime) => {
  const BAD = 'sk-bad-header-key-40d7e2\n'
  let worker: RunningProxy | undefined
  afterAll(async () => worker?.stop())

  it('is reported by variable name, never by value, and nothing is forwarded', async () => {
    const settings: ProxySettingsInput = { routes: [{ member: 'openai', chatModels: ['gpt-4o-mini'] }], proxy: { siteOrigins: [SITE_ORIGIN] } }
    const env = { OPENAI_API_KEY: BAD, OPENAI_BASE_URL: 'http://127.0.0.1:9/v1' }
    if (runtime === 'node') {
      const error = await startProxy('node', { settings, env, statePath: ':memory:' }).then(
        () => undefined,
        (e: Error) => e,
      )
      expect(error?.message).toMatch(/^OPENAI_API_KEY cannot be sent as a header value/)
      expect(error?.message).not.toContain(BAD.trim())
      return
    }
    worker = await startProxy('workers', { settings, env, statePath: tmp('docpilot-persist-') })
    for (const path of ['/ai/health?probe=1', '/ai/openai/chat/completions']) {
      const { res, json, text } = await call(worker.url, path, path.includes('health') ? { method: 'GET' } : post(openaiChat()))
      expect(res.status).toBe(503)
      expect(json.error.code).toBe('proxy_misconfigured')
      expect(json.error.message).toMatch(/OPENAI_API_KEY cannot be sent as a header value/)
      expect(text).not.toContain(BAD.trim())
    }
  }, 300_000)
})

/**
 * Limits that must hold across instances, each instance its own process: on
 * Node, `docpilot proxy` processes on one SQLite file; on Workers, `wrangler
 * dev` sessions, the second bound (through a dev registry private to this run)
 * to the first one's Durable Object, as every isolate of a deployed Worker
 * shares one object.
 */
describe.each(RUNTIMES)('abuse limits on %s', (runtime) => {
  let fake: Fake
  const running: RunningProxy[] = []
  const registryPath = tmp('docpilot-registry-')
  const runId = Math.random().toString(36).slice(2, 10)
  /** Each Worker its own name: a wrangler killed on stop leaves its registry entry, which must never be read as a later one's. */
  let started = 0
  const newName = () => `docpilot-proxy-${runId}-${++started}`
  /**
   * `name`: the Worker's name; a restart passes the stopped one's (its
   * Durable Object's storage is kept under it).
   * `sharesWith`: the name of the instance whose state this one shares. Node:
   * the same SQLite file. Workers: a binding to that Worker's Durable Object,
   * and a persist folder of its own (two workerd processes must never open
   * one folder's SQLite files; the shared state lives in the owner's object).
   */
  const start = async (settings: ProxySettingsInput, statePath: string, { name = newName(), sharesWith }: { name?: string; sharesWith?: string } = {}) => {
    const opts = { settings, env: fake.env(), statePath }
    const p =
      runtime === 'node'
        ? await startNodeProcess(opts)
        : await startWorkerProxy({ ...opts, ...(sharesWith ? { statePath: newState(), limitsFrom: sharesWith } : {}), registryPath, name })
    running.push(p)
    return p
  }
  const stop = async (p: RunningProxy) => {
    await p.stop()
    running.splice(running.indexOf(p), 1)
  }
  const newState = () => (runtime === 'node' ? join(tmp('docpilot-proxy-'), 'state.sqlite') : tmp('docpilot-persist-'))
  /**
   * A request never answered fails here, naming itself, instead of holding
   * the test until its budget runs out; a slow answer under load is still
   * an answer, so the deadline is generous.
   */
  const answered = async <T,>(what: string, p: RunningProxy, request: Promise<T>): Promise<T> => {
    let timer: ReturnType<typeof setTimeout> | undefined
    const deadline = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${runtime} instance ${p.url} did not answer ${what} within ${ANSWER_DEADLINE_MS / 1000} s`)), ANSWER_DEADLINE_MS)
    })
    try {
      return await Promise.race([request, deadline])
    } finally {
      clearTimeout(timer)
    }
  }
  const chatOnce = (p: RunningProxy) => answered('a chat request', p, call(p.url, '/ai/openai/chat/completions', post(openaiChat({ stream: false }))))
  /**
   * Waits until `p` reaches the state it shares: on Workers, a second
   * instance finds the owner's Durable Object through the dev registry a
   * moment after both are up. `/ai/health` goes through the limits (its
   * rate-limit token) and spends no daily unit.
   */
  const reachesSharedState = async (p: RunningProxy) => {
    const until = Date.now() + ANSWER_DEADLINE_MS
    for (;;) {
      const { res } = await answered('GET /ai/health', p, call(p.url, '/ai/health'))
      if (res.status === 200) return
      if (Date.now() > until) throw new Error(`${runtime} instance ${p.url} never reached its shared state: /ai/health answers ${res.status}`)
      await new Promise((r) => setTimeout(r, 500))
    }
  }

  beforeAll(async () => {
    fake = await startFake()
  })
  afterAll(async () => {
    for (const p of [...running]) await p.stop()
    await fake?.close()
  })

  it('a client over its token bucket gets 429 rate_limited with Retry-After', async () => {
    const settings = { ...mainSettings(), proxy: { ...mainSettings().proxy, rateLimit: { perMinute: 1, burst: 3 } } }
    const p = await start(settings, newState())
    const statuses: number[] = []
    for (let i = 0; i < 3; i++) statuses.push((await chatOnce(p)).res.status)
    expect(statuses).toEqual([200, 200, 200])
    const before = fake.requests().length
    const over = await chatOnce(p)
    expect(over.res.status).toBe(429)
    expect(over.res.headers.get('content-type')).toMatch(/application\/json/)
    expect(over.json.error.code).toBe('rate_limited')
    expect(over.json.error.message).toMatch(/Too many requests from this client/)
    // The mark that tells the panel this 429 is the proxy's own, not a provider's (core/ladder/client-limit.ts).
    expect(over.res.headers.get('x-docpilot-quota')).toBe('client')
    // One token per minute: the next one is most of a minute away.
    expect(Number(over.res.headers.get('retry-after'))).toBeGreaterThanOrEqual(30)
    expect(Number(over.res.headers.get('retry-after'))).toBeLessThanOrEqual(60)
    expect(fake.requests().length).toBe(before)
    // Feedback draws on the same bucket: a client cannot flood the feedback table either.
    const feedback = await call(p.url, '/ai/feedback', post({ rating: 'up' }))
    expect(feedback.res.status).toBe(429)
    expect(feedback.json.error.code).toBe('rate_limited')
    await stop(p)
  }, 300_000)

  it('the daily ceiling holds across two instances sharing state and across a restart', async () => {
    const settings = { ...mainSettings(), budget: { dailyLimit: 50 } }
    const state = newState()
    // Workers start side by side (one wrangler dev start can take a minute on a loaded machine) and b finds a
    // by name; Node processes one after the other, so the first creates the SQLite tables the second opens.
    const name = newName()
    const first = start(settings, state, { name })
    const second = runtime === 'workers' ? start(settings, state, { sharesWith: name }) : first.then(() => start(settings, state, { sharesWith: name }))
    const [a, b] = await Promise.all([first, second])
    await reachesSharedState(b)
    // One each: both instances count against the one day.
    expect((await chatOnce(a)).res.status).toBe(200)
    expect((await chatOnce(b)).res.status).toBe(200)
    expect((await chatOnce(a)).res.status).toBe(200)
    // The rest of the day, raced for by 200 concurrent requests across both instances: exactly 47 may pass
    // (units are reserved atomically before the upstream is called, and given back only when it does not answer).
    const before = fake.requests().length
    const race = await Promise.all(Array.from({ length: 200 }, (_, i) => chatOnce(i % 2 ? b : a)))
    expect(race.filter((r) => r.res.status === 200)).toHaveLength(47)
    expect(race.filter((r) => r.res.status === 429 && r.json.error.code === 'daily_quota')).toHaveLength(153)
    expect(fake.requests().length).toBe(before + 47)
    for (const p of [a, b]) {
      const over = await chatOnce(p)
      expect(over.res.status).toBe(429)
      expect(over.res.headers.get('content-type')).toMatch(/application\/json/)
      expect(over.json.error.code).toBe('daily_quota')
      expect(over.json.error.message).toMatch(/daily limit of 50 AI requests is used up; it resets at \d{4}-\d\d-\d\dT00:00:00\.000Z/)
      expect(over.res.headers.get('x-docpilot-quota')).toBe('daily')
      const reset = Number(over.res.headers.get('x-ratelimit-reset')) * 1000
      expect(reset).toBeGreaterThan(Date.now())
      expect(reset).toBeLessThanOrEqual(Date.now() + 24 * 3600 * 1000)
      expect(new Date(reset).getUTCHours()).toBe(0)
      expect(over.json.error.message).toContain(new Date(reset).toISOString())
      const retryAfter = Number(over.res.headers.get('retry-after'))
      expect(retryAfter).toBeGreaterThan(0)
      expect(Math.abs(Date.now() + retryAfter * 1000 - reset)).toBeLessThan(120_000)
    }
    // An uptime monitor is told: health reads the shared count (without spending it) and answers 503 until the reset.
    for (const p of [a, b]) {
      const health = await answered('GET /ai/health', p, call(p.url, '/ai/health'))
      expect(health.res.status).toBe(503)
      expect(health.json).toMatchObject({ ok: false, daily: { limit: 50, used: 50 } })
      expect(Number(health.res.headers.get('retry-after'))).toBeGreaterThan(0)
      expect((await call(p.url, '/ai/health', { method: 'HEAD' })).res.status).toBe(503)
    }
    // Embeddings are not chat requests: the daily ceiling does not block them.
    const embed = await answered('an embeddings request', a, call(a.url, '/ai/openai/embeddings', post({ model: 'text-embedding-3-small', input: 'x' })))
    expect(embed.res.status).toBe(200)

    await stop(b)
    await stop(a)
    const restarted = await start(settings, state, { name })
    const afterRestart = await chatOnce(restarted)
    expect(afterRestart.res.status).toBe(429)
    expect(afterRestart.json.error.code).toBe('daily_quota')
    await stop(restarted)
  }, 600_000)
})

// Runs last (vitest runs a file's suites in order): every response of both runtimes' suites above.
describe('no key in any byte the proxy sent', () => {
  it('finds no configured key, in any form, in any status line, header or body of any response above', () => {
    const keys = [...CHAIN.flatMap((s) => (s.keyEnv ? [defaultKey(s.id)] : [])), WRONG_DEEPSEEK_KEY, CUSTOM_KEY]
    expect(keys.length).toBeGreaterThan(9)
    // At least one runtime's whole suite (run alone with -t, the Node suite sends 38): credentials, refusals,
    // clamping, origins, both streams, health with probes, feedback, a quoted key.
    expect(received.length).toBeGreaterThan(30)
    const blobs = received.map((bytes, i) => ({ where: `response ${i}: ${bytes.slice(0, bytes.indexOf('\n'))}`, bytes }))
    expect(findKeys(blobs, keys)).toEqual([])
  })
})
