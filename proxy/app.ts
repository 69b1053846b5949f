/**
 * The docpilot proxy: one Hono app served by both entries (proxy/node.ts,
 * proxy/worker.ts). It is the one public surface with the owner's keys behind
 * it, so it forwards only what the panel needs and refuses everything else
 * with `{error: {code, message}}`:
 *
 *   405 method_not_allowed   anything but POST (and OPTIONS preflight); GET on /ai/health
 *   403 origin_not_allowed   a browser Origin that is neither this site nor in proxy.allowedOrigins
 *   429 rate_limited         this client's token bucket is empty (Retry-After)
 *   404 unknown_member       /ai/<member>/ names no member of the resolved chain
 *   404 path_not_allowed     a path the member's wire protocol does not need (chat, embeddings only)
 *   413 body_too_large       body over proxy.maxBodyBytes (feedback: feedback.maxBytes)
 *   400 invalid_body         not a JSON object
 *   403 model_not_allowed    a model the config never declared for that route
 *   429 daily_quota          budget.dailyLimit reached (Retry-After, X-RateLimit-Reset, X-Docpilot-Quota: daily)
 *   503 key_not_set          the member's key variable is missing on the proxy
 *   502 upstream_unreachable the upstream could not be reached
 *
 * `GET /ai/health` lists each route and whether its key variable is set (never
 * the value); `?probe=1` also GETs each upstream's model list with the key,
 * which checks reachability and auth without spending tokens or the ceiling.
 *
 * An output-token ceiling over proxy.maxTokens is clamped, not refused (and
 * written when absent): an honest panel never sends more, a misconfigured one
 * still gets answers, and nobody gets more than the cap. The response says so
 * in `X-Docpilot-Max-Tokens-Clamped`.
 */
import { Hono, type Context } from 'hono'
import { isMemberId, providerSpec, type ProviderSpec } from '../core/providers/table.ts'
import { FeedbackInputSchema, feedbackRow, type FeedbackStore } from './feedback.ts'
import type { LimitStore } from './limits.ts'
import { attachCredential, clampMaxTokens, filterQuery, listPath, matchPath, protocolPaths, requestModels } from './protocol.ts'
import type { ProxyRoute, ProxySettings } from './settings.ts'

export type ProxyEnv = Record<string, string | undefined>

/** What one request needs from its runtime. */
export interface ProxyRuntime {
  settings: ProxySettings
  /** The proxy's own environment: keys and base-URL overrides. Never the client's. */
  env: ProxyEnv
  limits: LimitStore
  feedback: FeedbackStore
  /** Client identity for the per-client bucket. */
  clientIp: string
}

export interface ProxyAppOptions {
  runtime: (c: Context) => ProxyRuntime | Promise<ProxyRuntime>
  now?: () => number
  fetch?: typeof fetch
  newId?: () => string
}

/** Upstream response headers a client may see; nothing else passes (no cookies, no encodings we undid). */
const PASS_HEADERS = ['content-type', 'cache-control', 'retry-after', 'request-id', 'x-request-id']
const PASS_PREFIXES = ['x-ratelimit-', 'anthropic-ratelimit-']
const EXPOSE = 'Retry-After, X-RateLimit-Reset, X-Docpilot-Quota, X-Docpilot-Max-Tokens-Clamped'
/** Error bodies are read whole (to redact) up to this size; larger ones are cut. */
const ERROR_BODY_CAP = 64 * 1024
const PROBE_TIMEOUT_MS = 5000

function refuse(status: number, code: string, message: string, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify({ error: { code, message } }), {
    status,
    headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...headers },
  })
}

/** The request's own origin host, as the browser addressed it. */
function ownHost(c: Context): string {
  return c.req.header('host') ?? new URL(c.req.url).host
}

type OriginVerdict = { allowed: false } | { allowed: true; cors?: string }

/**
 * Same-origin by default. A request without Origin is not from a page (curl,
 * `doctor`); the origin check exists to stop other sites' pages from spending
 * the owner's keys through readers' browsers, and the rate and daily limits
 * bound everything else.
 */
function checkOrigin(c: Context, allowed: string[]): OriginVerdict {
  const origin = c.req.header('origin')
  if (origin === undefined) return { allowed: true }
  if (origin === 'null') return { allowed: false }
  let host: string
  try {
    host = new URL(origin).host
  } catch {
    return { allowed: false }
  }
  if (host === ownHost(c)) return { allowed: true }
  const normalized = origin.replace(/\/+$/, '')
  if (allowed.some((a) => a.replace(/\/+$/, '') === normalized)) return { allowed: true, cors: origin }
  return { allowed: false }
}

function withCors(res: Response, cors: string | undefined): Response {
  if (!cors) return res
  res.headers.set('access-control-allow-origin', cors)
  res.headers.append('vary', 'Origin')
  res.headers.set('access-control-expose-headers', EXPOSE)
  return res
}

/** Read a body, refusing beyond `cap` bytes without reading further. */
async function readCapped(req: Request, cap: number): Promise<Uint8Array<ArrayBuffer> | 'too_large'> {
  const declared = Number(req.headers.get('content-length') ?? NaN)
  if (Number.isFinite(declared) && declared > cap) return 'too_large'
  if (!req.body) return new Uint8Array()
  const reader = req.body.getReader()
  const parts: Uint8Array[] = []
  let size = 0
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    size += value.byteLength
    if (size > cap) {
      await reader.cancel().catch(() => {})
      return 'too_large'
    }
    parts.push(value)
  }
  const out = new Uint8Array(size)
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.byteLength
  }
  return out
}

function parseObject(bytes: Uint8Array): Record<string, unknown> | undefined {
  try {
    const v: unknown = JSON.parse(new TextDecoder().decode(bytes))
    return typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined
  } catch {
    return undefined
  }
}

export function upstreamBase(spec: ProviderSpec, route: Pick<ProxyRoute, 'baseUrl'>, env: ProxyEnv): string | undefined {
  const base = env[spec.baseUrlEnv] || route.baseUrl || spec.defaultBaseUrl
  return base?.replace(/\/+$/, '')
}

/** Own servers may run without a key; hosted services never do. */
export function keyRequired(spec: ProviderSpec): boolean {
  return spec.keyEnv !== undefined && spec.auth !== 'none' && !spec.ownServer
}

function keyOf(spec: ProviderSpec, env: ProxyEnv): string | undefined {
  return spec.keyEnv ? env[spec.keyEnv] || undefined : undefined
}

function redact(text: string, secret: string | undefined): string {
  return secret ? text.split(secret).join('[redacted]') : text
}

function passHeaders(from: Headers, secret: string | undefined): Headers {
  const out = new Headers()
  from.forEach((value, name) => {
    const n = name.toLowerCase()
    if (!PASS_HEADERS.includes(n) && !PASS_PREFIXES.some((p) => n.startsWith(p))) return
    if (secret && value.includes(secret)) return
    out.set(n, value)
  })
  out.set('cache-control', 'no-store')
  return out
}

async function readTextCapped(res: Response, cap: number): Promise<string> {
  if (!res.body) return ''
  const reader = res.body.getReader()
  const decoder = new TextDecoder()
  let text = ''
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    text += decoder.decode(value, { stream: true })
    if (text.length > cap) {
      await reader.cancel().catch(() => {})
      break
    }
  }
  return text + decoder.decode()
}

export function createProxyApp(options: ProxyAppOptions): Hono {
  const now = options.now ?? Date.now
  const doFetch = options.fetch ?? ((input, init) => fetch(input, init))
  const newId = options.newId ?? (() => crypto.randomUUID())
  const app = new Hono()

  /** Origin, method and rate limit: the checks every /ai route shares. */
  async function admit(c: Context, rt: ProxyRuntime, methods: string[]): Promise<{ res?: Response; cors?: string }> {
    const origin = checkOrigin(c, rt.settings.proxy.allowedOrigins)
    if (!origin.allowed) {
      return { res: refuse(403, 'origin_not_allowed', `Requests from origin ${c.req.header('origin')} are not allowed. Add it to proxy.allowedOrigins in the docpilot config to allow it.`) }
    }
    const cors = origin.cors
    if (c.req.method === 'OPTIONS') {
      const res = new Response(null, { status: 204 })
      if (cors) {
        res.headers.set('access-control-allow-methods', methods.join(', '))
        res.headers.set('access-control-allow-headers', 'content-type, accept')
        res.headers.set('access-control-max-age', '600')
      }
      return { res: withCors(res, cors) }
    }
    if (!methods.includes(c.req.method)) {
      return {
        res: withCors(
          refuse(405, 'method_not_allowed', `Method ${c.req.method} is not allowed here; use ${methods.join(' or ')}.`, { allow: [...methods, 'OPTIONS'].join(', ') }),
          cors,
        ),
      }
    }
    const { perMinute, burst } = rt.settings.proxy.rateLimit
    const take = await rt.limits.take(rt.clientIp, { perMinute, burst }, now())
    if (!take.ok) {
      return {
        res: withCors(
          refuse(429, 'rate_limited', `Too many requests from this client; try again in ${take.retryAfterSec} s.`, { 'retry-after': String(take.retryAfterSec) }),
          cors,
        ),
      }
    }
    return { cors }
  }

  /** One GET of the upstream's model list with the proxy's key: reachability and auth, no tokens spent. */
  async function probe(spec: ProviderSpec, base: string | undefined, key: string | undefined): Promise<{ status: number | null; result: 'ok' | 'auth' | 'unreachable' | 'error' }> {
    if (!base) return { status: null, result: 'unreachable' }
    const headers = new Headers({ 'accept-encoding': 'identity' })
    attachCredential(headers, spec.auth, spec.protocol, key)
    try {
      const res = await doFetch(`${base}/${listPath(spec.protocol)}`, { headers, signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) })
      await res.body?.cancel().catch(() => {})
      if (res.ok) return { status: res.status, result: 'ok' }
      return { status: res.status, result: res.status === 401 || res.status === 403 ? 'auth' : 'error' }
    } catch {
      return { status: null, result: 'unreachable' }
    }
  }

  app.all('/ai/health', async (c) => {
    const rt = await options.runtime(c)
    const gate = await admit(c, rt, ['GET'])
    if (gate.res) return gate.res
    const probing = c.req.query('probe') === '1'
    const routes = await Promise.all(rt.settings.routes.map(async (route) => {
      const spec = providerSpec(route.member)
      const kinds = [...(route.chatModels.length ? (['chat'] as const) : []), ...(route.embedModels.length ? (['embed'] as const) : [])]
      const keySet = spec.keyEnv ? Boolean(keyOf(spec, rt.env)) : null
      const base = upstreamBase(spec, route, rt.env)
      const upstreamConfigured = Boolean(base)
      const probed = probing ? { probe: await probe(spec, base, keyOf(spec, rt.env)) } : {}
      return {
        member: route.member,
        protocol: spec.protocol,
        keyEnv: spec.keyEnv ?? null,
        keyRequired: keyRequired(spec),
        keySet,
        upstreamConfigured,
        ok: upstreamConfigured && (!keyRequired(spec) || keySet === true) && (!probing || probed.probe?.result === 'ok'),
        paths: kinds.flatMap((k) => protocolPaths(spec.protocol, [k], k === 'chat' ? route.chatModels[0] : route.embedModels[0])).map((p) => `/ai/${route.member}/${p}`),
        ...probed,
      }
    }))
    const body = {
      ok: routes.every((r) => r.ok),
      routes,
      dailyLimit: rt.settings.budget.dailyLimit ?? null,
      feedback: true,
    }
    return withCors(new Response(JSON.stringify(body), { headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' } }), gate.cors)
  })

  app.all('/ai/feedback', async (c) => {
    const rt = await options.runtime(c)
    const gate = await admit(c, rt, ['POST'])
    if (gate.res) return gate.res
    const cap = rt.settings.feedback.maxBytes
    const bytes = await readCapped(c.req.raw, cap)
    if (bytes === 'too_large') return withCors(refuse(413, 'body_too_large', `Feedback is limited to ${cap} bytes.`), gate.cors)
    const parsed = FeedbackInputSchema.safeParse(parseObject(bytes))
    if (!parsed.success) {
      const issue = parsed.error.issues[0]
      return withCors(refuse(400, 'invalid_body', `Invalid feedback at ${issue?.path.join('.') || '(body)'}: ${issue?.message ?? 'expected a JSON object'}.`), gate.cors)
    }
    const row = feedbackRow(parsed.data, rt.settings.feedback.storeText, new Date(now()), newId())
    await rt.feedback.save(row)
    return withCors(new Response(JSON.stringify({ ok: true, id: row.id }), { status: 201, headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' } }), gate.cors)
  })

  app.all('/ai/:member/*', async (c) => {
    const rt = await options.runtime(c)
    const gate = await admit(c, rt, ['POST'])
    if (gate.res) return gate.res
    const cors = gate.cors
    const reply = (res: Response) => withCors(res, cors)

    const memberName = c.req.param('member')
    const route = isMemberId(memberName) ? rt.settings.routes.find((r) => r.member === memberName) : undefined
    if (!route) return reply(refuse(404, 'unknown_member', `No provider route "${memberName}" on this proxy; the configured members are: ${rt.settings.routes.map((r) => r.member).join(', ') || 'none'}.`))
    const spec = providerSpec(route.member)

    const url = new URL(c.req.url)
    const rest = url.pathname.slice(`/ai/${memberName}/`.length)
    const matched = matchPath(spec.protocol, rest)
    const declared = matched ? (matched.kind === 'chat' ? route.chatModels : route.embedModels) : []
    if (!matched || declared.length === 0) {
      return reply(refuse(404, 'path_not_allowed', `The ${route.member} route does not forward "${rest}"; it serves only: ${protocolPaths(spec.protocol, [...(route.chatModels.length ? (['chat'] as const) : []), ...(route.embedModels.length ? (['embed'] as const) : [])]).join(', ')}.`))
    }

    const cap = rt.settings.proxy.maxBodyBytes
    const bytes = await readCapped(c.req.raw, cap)
    if (bytes === 'too_large') return reply(refuse(413, 'body_too_large', `Request bodies are limited to ${cap} bytes (proxy.maxBodyBytes).`))
    const body = parseObject(bytes)
    if (!body) return reply(refuse(400, 'invalid_body', 'The request body must be a JSON object.'))

    const models = requestModels(spec.protocol, matched, body)
    const undeclared = models.find((m) => !declared.includes(m))
    if (undeclared !== undefined) {
      return reply(refuse(403, 'model_not_allowed', `Model "${undeclared}" is not declared for the ${route.member} ${matched.kind === 'chat' ? 'chat' : 'embeddings'} route; declared: ${declared.join(', ')}.`))
    }
    const clamped = matched.kind === 'chat' && clampMaxTokens(spec.protocol, body, rt.settings.proxy.maxTokens)

    const base = upstreamBase(spec, route, rt.env)
    if (!base) return reply(refuse(502, 'upstream_not_configured', `The ${route.member} upstream is not configured; set ${spec.baseUrlEnv} on the proxy.`))
    const key = keyOf(spec, rt.env)
    if (!key && keyRequired(spec)) return reply(refuse(503, 'key_not_set', `${spec.keyEnv} is not set on the proxy.`))

    const dailyLimit = rt.settings.budget.dailyLimit
    if (matched.kind === 'chat' && dailyLimit !== undefined) {
      const daily = await rt.limits.spendDaily(dailyLimit, now())
      if (!daily.ok) {
        const retryAfter = Math.max(1, Math.ceil((daily.resetAt - now()) / 1000))
        const resetIso = new Date(daily.resetAt).toISOString()
        return reply(
          refuse(429, 'daily_quota', `This site's daily limit of ${dailyLimit} AI requests is used up; it resets at ${resetIso}.`, {
            'retry-after': String(retryAfter),
            'x-ratelimit-reset': String(Math.floor(daily.resetAt / 1000)),
            'x-docpilot-quota': 'daily',
          }),
        )
      }
    }

    const headers = new Headers({ 'content-type': 'application/json', 'accept-encoding': 'identity' })
    const accept = c.req.header('accept')
    if (accept) headers.set('accept', accept)
    attachCredential(headers, spec.auth, spec.protocol, key)

    let upstream: Response
    try {
      upstream = await doFetch(`${base}/${rest}${filterQuery(spec.protocol, url.searchParams)}`, {
        method: 'POST',
        headers,
        body: clamped ? JSON.stringify(body) : bytes,
        signal: c.req.raw.signal,
      })
    } catch (err) {
      if (c.req.raw.signal.aborted) return new Response(null, { status: 499 })
      return reply(refuse(502, 'upstream_unreachable', `Could not reach the ${route.member} upstream: ${redact(err instanceof Error ? err.message : String(err), key)}`))
    }

    const outHeaders = passHeaders(upstream.headers, key)
    if (clamped) outHeaders.set('x-docpilot-max-tokens-clamped', String(rt.settings.proxy.maxTokens))
    if (!upstream.ok) {
      // Error bodies are small and some services quote the credential back; read, redact, return.
      const text = redact(await readTextCapped(upstream, ERROR_BODY_CAP), key)
      return reply(new Response(text, { status: upstream.status, headers: outHeaders }))
    }
    // Streamed through as it arrives: the body is never buffered. A client that goes
    // away cancels this stream, which cancels the upstream request.
    return reply(new Response(upstream.body, { status: upstream.status, headers: outHeaders }))
  })

  app.onError((err) => {
    // Configuration problems (e.g. a Worker without DOCPILOT_PROXY) surface here; never a key.
    return refuse(500, 'proxy_error', err instanceof Error ? err.message : String(err))
  })

  app.all('/ai', (c) => refuse(404, 'unknown_member', 'Name a provider route: /ai/<member>/<path>.'))
  app.all('/ai/:member', (c) => refuse(404, 'path_not_allowed', `Name a path under /ai/${c.req.param('member')}/.`))

  return app
}
