/**
 * The docpilot proxy: one Hono app served by both entries (proxy/node.ts,
 * proxy/worker.ts). It is the one public surface with the owner's keys behind
 * it, so it forwards only what the panel needs and refuses everything else
 * with `{error: {code, message}}`: route logic throws a `Refusal`, whose codes
 * and statuses are listed in proxy/refusal.ts, and `onError` below answers it.
 * CORS for a listed origin is added to every response in one place, refusals
 * included (proxy/cors.ts).
 *
 * Only the body fields a protocol needs are forwarded (an allow-list per
 * protocol and route), answer multipliers (`n`, `candidateCount`) are forced
 * to 1, and every copy of every configured key, in every encoding
 * core/key-scan.ts knows, is replaced in error bodies, in streamed bodies
 * (a key split across chunks included) and in the log. A daily-ceiling unit
 * is kept only by a request an upstream answered with 2xx; every other
 * outcome gives it back.
 *
 * `GET /ai/health` lists each route and whether its key variable is set (never
 * the value); `?probe=1` also GETs each upstream's model list (OpenRouter's is public: its key record) with the key,
 * which checks reachability and auth without spending tokens or the ceiling. It answers 503 whenever a
 * reader would get no answer (no route, a route that cannot serve, the day's ceiling spent), so a
 * monitor reading only the status (or sending HEAD) is told the truth.
 *
 * An output-token ceiling over proxy.maxTokens is clamped, not refused (and
 * written when absent): an honest panel never sends more, a misconfigured one
 * still gets answers, and nobody gets more than the cap. The response says so
 * in `X-Docpilot-Max-Tokens-Clamped`.
 */
import { Hono, type Context, type Handler, type MiddlewareHandler } from 'hono'
import { Redactor } from '../core/key-scan.ts'
import { badBaseUrl } from '../core/chain/resolve.ts'
import { CLIENT_LIMIT } from '../core/ladder/client-limit.ts'
import { SITE_CEILING } from '../core/ladder/site-ceiling.ts'
import { CHAIN, isMemberId, providerSpec, type MemberId, type ProviderSpec } from '../core/providers/table.ts'
import { CLAMPED_HEADER, checkOrigin, originOf, preflight, withCors } from './cors.ts'
import { EventInputSchema, eventRow, retentionCutoff } from './events.ts'
import { FeedbackInputSchema, feedbackRow, type FeedbackStore } from './feedback.ts'
import { BODY_DEADLINE_MS, readInput, readJsonBody } from './json-body.ts'
import { clientBlock, clientKey, nextUtcMidnight, type LimitStore, type RateLimit } from './limits.ts'
import { attachCredential, filterQuery, matchPath, probePath, protocolPaths, requestModels, shapeBody, type MatchedPath, type RouteKind } from './protocol.ts'
import { ERROR_ID_HEADER, Refusal } from './refusal.ts'
import type { ProxyRoute, ProxySettings } from './settings.ts'

export type ProxyEnv = Record<string, string | undefined>

/** What one request needs from its runtime. */
export interface ProxyRuntime {
  settings: ProxySettings
  /** The proxy's own environment: keys and base-URL overrides. Never the client's. */
  env: ProxyEnv
  limits: LimitStore
  feedback: FeedbackStore
  /** Client identity for the per-client bucket (hashed before use). */
  clientIp: string
}

export interface ProxyAppOptions {
  /** The proxy's environment, read first on every request (it names the keys to redact, even from a failure). */
  env: (c: Context) => ProxyEnv
  runtime: (c: Context, env: ProxyEnv) => ProxyRuntime | Promise<ProxyRuntime>
  now?: () => number
  fetch?: typeof fetch
  newId?: () => string
  /** Where internal errors are written, keys redacted (default console.error). */
  log?: (line: string) => void
  /** How long a request body may take to arrive (json-body.ts BODY_DEADLINE_MS; tests shorten it). */
  bodyDeadlineMs?: number
  /**
   * The MCP route (/ai/mcp, proxy/mcp.ts) for an admitted request; `self`
   * sends a request through this same app (a hosted embedder's route), which
   * spends the client's MCP bucket. Unset, or mcp.enabled false: 404.
   */
  mcp?: (c: Context, rt: ProxyRuntime, self: (request: Request) => Promise<Response>) => Promise<Response>
}

/** The proxy cannot serve as configured; the message names what to set, never a value. */
export class ProxyConfigError extends Error {
  override name = 'ProxyConfigError'
}

/** A header value fetch accepts: visible ASCII, spaces and tabs inside, nothing else. */
const HEADER_VALUE = /^[\x21-\x7e](?:[\x20-\x7e\t]*[\x21-\x7e])?$/

/** Every key variable in the environment that holds a value: what redaction removes. */
export function keyValues(env: ProxyEnv): string[] {
  return CHAIN.flatMap((spec) => (spec.keyEnv && env[spec.keyEnv] ? [env[spec.keyEnv]!] : []))
}

/**
 * What makes a proxy unservable, checked before it serves (Node: at start;
 * Workers: before each request, which has no start): no site origin, or a
 * key that cannot be sent as a header value (a trailing newline from a file,
 * a NUL). The message names the field or variable, never a key.
 */
export function checkProxyConfig(settings: ProxySettings, env: ProxyEnv): void {
  checkOrigins(settings)
  checkKeys(settings, env)
  checkUpstreamUrls(settings, env)
}

export function checkOrigins(settings: ProxySettings): void {
  if (settings.proxy.siteOrigins.length === 0) {
    throw new ProxyConfigError(
      'proxy.siteOrigins is not set: the proxy serves only pages from your own site, so it must know its origin. ' +
        "Set proxy.siteOrigins in docpilot.config, e.g. ['https://docs.example.com'] (scheme and host, the address readers open).",
    )
  }
  for (const origin of [...settings.proxy.siteOrigins, ...settings.proxy.allowedOrigins]) {
    if (!originOf(origin)) throw new ProxyConfigError(`proxy origin ${JSON.stringify(origin)} is not an http(s) origin; write it as scheme and host, e.g. https://docs.example.com.`)
  }
}

export function checkKeys(settings: ProxySettings, env: ProxyEnv): void {
  for (const route of settings.routes) {
    const keyEnv = providerSpec(route.member).keyEnv
    const value = keyEnv ? env[keyEnv] : undefined
    if (keyEnv && value && !HEADER_VALUE.test(value)) {
      throw new ProxyConfigError(
        `${keyEnv} cannot be sent as a header value: it holds a line break, a NUL, another control character, a non-ASCII character or surrounding spaces. Set it to the key alone (the value is not shown here).`,
      )
    }
  }
}

/** A base URL variable that is not an http(s) URL would fail every request as an unreachable upstream: say which to fix (core/chain/resolve.ts). */
export function checkUpstreamUrls(settings: ProxySettings, env: ProxyEnv): void {
  for (const route of settings.routes) {
    const bad = badBaseUrl(providerSpec(route.member), env)
    if (bad) throw new ProxyConfigError(bad)
  }
}

/** Upstream response headers a client may see; nothing else passes (no cookies, no encodings we undid). */
const PASS_HEADERS = ['content-type', 'cache-control', 'retry-after', 'retry-after-ms', 'request-id', 'x-request-id']
const PASS_PREFIXES = ['x-ratelimit-', 'anthropic-ratelimit-']
/**
 * On every answer: the proxy is an API on the docs site's own origin, never a
 * page, and an upstream's error body passes with the upstream's content type
 * (a gateway's text/html included). The browser must not sniff one into a
 * script or stylesheet, nor render it as a page of the site, framed or not.
 * The CSP governs documents only, so fetch, SSE and CORS are untouched.
 */
const API_HEADERS = {
  'x-content-type-options': 'nosniff',
  'content-security-policy': "default-src 'none'; frame-ancestors 'none'; sandbox",
}
/** Error bodies are read whole (to redact) up to this size; larger ones are cut. */
const ERROR_BODY_CAP = 64 * 1024
const PROBE_TIMEOUT_MS = 5000

export function upstreamBase(spec: ProviderSpec, route: Pick<ProxyRoute, 'baseUrl'>, env: ProxyEnv): string | undefined {
  const base = env[spec.baseUrlEnv] || route.baseUrl || spec.defaultBaseUrl
  return base?.replace(/\/+$/, '')
}

/** Own servers may run without a key; hosted services never do. */
export function keyRequired(spec: ProviderSpec): boolean {
  return spec.keyEnv !== undefined && !spec.ownServer
}

/** The key the proxy attaches for `spec`, as it reads it from the environment (undefined: key_not_set). */
export function keyOf(spec: ProviderSpec, env: ProxyEnv): string | undefined {
  return spec.keyEnv ? env[spec.keyEnv] || undefined : undefined
}

function passHeaders(from: Headers, redactor: Redactor): Headers {
  const out = new Headers()
  from.forEach((value, name) => {
    const n = name.toLowerCase()
    if (!PASS_HEADERS.includes(n) && !PASS_PREFIXES.some((p) => n.startsWith(p))) return
    if (redactor.contains(value)) return
    out.set(n, value)
  })
  out.set('cache-control', 'no-store')
  // nginx buffers a proxied answer unless told otherwise, and a reader then gets the whole stream at its end:
  // this header turns that off for the stream alone, for an owner whose location block lacks proxy_buffering off.
  if (out.get('content-type')?.includes('text/event-stream')) out.set('x-accel-buffering', 'no')
  return out
}

/**
 * The body's text up to about `cap`; what arrived so far when the upstream cuts it or it is cut (a stall, a reader
 * who left), with `whole` false.
 */
async function readTextCapped(res: Response, cap: number): Promise<{ text: string; whole: boolean }> {
  if (!res.body) return { text: '', whole: true }
  const reader = res.body.getReader()
  const decoder = new TextDecoder()
  let text = ''
  for (;;) {
    const read = await reader.read().catch(() => undefined)
    if (!read) return { text: text + decoder.decode(), whole: false }
    if (read.done) return { text: text + decoder.decode(), whole: true }
    text += decoder.decode(read.value, { stream: true })
    if (text.length > cap) {
      await reader.cancel().catch(() => {})
      return { text: text + decoder.decode(), whole: false }
    }
  }
}

/**
 * Work that must finish even when the client has gone (a refund): on Workers,
 * an invocation whose client left ends unless the work is handed to waitUntil.
 */
async function outliveClient(c: Context, work: Promise<void>): Promise<void> {
  let ctx: { waitUntil(p: Promise<unknown>): void } | undefined
  try {
    ctx = c.executionCtx
  } catch {
    // Node: no execution context, and the process outlives the request anyway.
  }
  ctx?.waitUntil(work.catch(() => {}))
  await work
}

/** How often a silent SSE stream gets a comment line, which is how a Worker notices a reader that left. */
const HEARTBEAT_MS = 1000
const HEARTBEAT = new TextEncoder().encode(': keep-alive\n\n')

/**
 * SSE comments (which every SSE parser skips) while the upstream is silent,
 * sent only between events. workerd notices a client that left only when it
 * writes to it; Node notices at once, and the comments cost it nothing.
 */
function sseHeartbeat(signal: AbortSignal): TransformStream<Uint8Array, Uint8Array> {
  let betweenEvents = true
  let timer: ReturnType<typeof setTimeout> | undefined
  let out: TransformStreamDefaultController<Uint8Array> | undefined
  const schedule = () => {
    clearTimeout(timer)
    if (signal.aborted) return
    timer = setTimeout(() => {
      try {
        if (betweenEvents) out?.enqueue(HEARTBEAT)
      } catch {
        // The stream has ended (the reader left, or the upstream broke it): nothing more to keep alive.
        return
      }
      schedule()
    }, HEARTBEAT_MS)
  }
  signal.addEventListener('abort', () => clearTimeout(timer), { once: true })
  return new TransformStream({
    start(controller) {
      out = controller
      schedule()
    },
    transform(chunk, controller) {
      const n = chunk.length
      betweenEvents = n >= 2 && chunk[n - 1] === 0x0a && (chunk[n - 2] === 0x0a || (n >= 4 && chunk[n - 2] === 0x0d && chunk[n - 3] === 0x0a))
      controller.enqueue(chunk)
      schedule()
    },
    flush: () => clearTimeout(timer),
  })
}

/** Why a route of /ai/health cannot serve, naming the variable to set (never its value). */
function routeProblem(r: { member: string; keyEnv: string | null; keyRequired: boolean; keySet: boolean | null; upstreamConfigured: boolean; probe?: { status: number | null; result: string } }): string {
  if (r.keyRequired && !r.keySet) return `${r.member}: ${r.keyEnv} is not set.`
  if (!r.upstreamConfigured) return `${r.member}: no upstream URL is set.`
  if (r.probe?.result === 'auth') return `${r.member}: the upstream refused the key (${r.probe.status}).`
  if (r.probe?.result === 'unreachable') return `${r.member}: the upstream could not be reached.`
  return `${r.member}: the upstream's model list answered ${r.probe?.status ?? 'nothing'}.`
}

/** A request that ended before the upstream answered, and why: the client left, or a time limit passed. */
class Cut extends Error {
  constructor(readonly why: 'client_left' | 'first_byte' | 'idle') {
    super(why)
  }
}

/** A member request that passed every check, as it goes upstream. */
interface Accepted {
  member: MemberId
  spec: ProviderSpec
  kind: RouteKind
  /** The upstream URL, query filtered. */
  url: string
  /** The body, allow-listed and clamped. */
  body: Record<string, unknown>
  clamped: boolean
  key: string | undefined
}

/** A member route a request names, and the path below it that the route forwards. */
interface MemberTarget {
  route: ProxyRoute
  spec: ProviderSpec
  rest: string
  matched: MatchedPath
  declared: string[]
}

/**
 * A route besides the members': its name under /ai, the methods a reader uses,
 * its rate-limit bucket (default: the chat one) and its handler. The one table
 * they are registered from, so an unknown route's 404, a wrong method's 405
 * `Allow` and the registration cannot disagree.
 */
interface FixedRoute {
  name: string
  methods: readonly string[]
  bucket?: Bucket
  handler: Handler<ProxyVars>
}

/** A client's rate-limit bucket: its name in the client's key ('' for the chat one), the limit it keeps, and what its 429 says ran out. */
interface Bucket {
  name: string
  limit: (settings: ProxySettings) => RateLimit
  requests: string
}

/** Chat requests and feedback (proxy.rateLimit). */
const CHAT_BUCKET: Bucket = { name: '', limit: (s) => s.proxy.rateLimit, requests: 'requests' }
/** Insights events: the same limits, apart, so a reader's own beacons never cost them an answer. */
const EVENTS_BUCKET: Bucket = { name: 'events', limit: (s) => s.proxy.rateLimit, requests: 'insights events' }
/** /ai/mcp and the hosted embeddings its searches make (mcp.rateLimit): an agent's pace, and never readers' answers. */
const MCP_BUCKET: Bucket = { name: 'mcp', limit: (s) => s.mcp.rateLimit, requests: 'MCP requests (searches and their embeddings)' }

/** A member route's methods (its path is checked before its method, so it is registered apart from the table). */
const MEMBER_METHODS = ['POST']

/** The methods a route answers: HEAD wherever GET is (the runtimes send the head without the body). */
function allowedMethods(methods: readonly string[]): string[] {
  return methods.includes('GET') && !methods.includes('HEAD') ? [...methods, 'HEAD'] : [...methods]
}

/** What the middleware below hands on: the request's runtime, its redactor, the CORS origin to answer, a member route's target, and an accepted member request. */
type ProxyVars = { Variables: { rt: ProxyRuntime; redactor: Redactor; cors: string | undefined; target: MemberTarget; accepted: Accepted; maybeBilled: boolean } }
export type ProxyApp = Hono<ProxyVars>

export function createProxyApp(options: ProxyAppOptions): ProxyApp {
  const now = options.now ?? Date.now
  const doFetch = options.fetch ?? ((input, init) => fetch(input, init))
  const newId = options.newId ?? (() => crypto.randomUUID())
  const log = options.log ?? ((line: string) => console.error(line))
  const bodyDeadlineMs = options.bodyDeadlineMs ?? BODY_DEADLINE_MS
  const app = new Hono<ProxyVars>()

  /**
   * The runtime, after the checks that make a proxy unservable (the redactor
   * is made from the environment before anything else can fail).
   */
  const runtime: MiddlewareHandler<ProxyVars> = async (c, next) => {
    const env = options.env(c)
    c.set('redactor', new Redactor(keyValues(env)))
    const rt = await options.runtime(c, env)
    checkProxyConfig(rt.settings, rt.env)
    c.set('rt', rt)
    await next()
  }

  /** Only the site's pages and the listed others; a preflight for a route's `methods` is answered here. */
  const origin = (methods: readonly string[]): MiddlewareHandler<ProxyVars> => async (c, next) => {
    const { siteOrigins, allowedOrigins } = c.var.rt.settings.proxy
    const verdict = checkOrigin(c.req.header('origin'), siteOrigins, allowedOrigins)
    if (!verdict.allowed) {
      throw new Refusal(
        'origin_not_allowed',
        `Requests from origin ${c.req.header('origin')} are not allowed: this proxy serves ${siteOrigins.join(', ')}. Add another site to proxy.allowedOrigins in the docpilot config to allow it.`,
      )
    }
    c.set('cors', verdict.cors)
    if (c.req.method === 'OPTIONS' && methods.length) return preflight(methods, verdict.cors)
    await next()
  }

  /** Only the route's methods pass; checked once the route is known to exist (a route that does not is a 404 whatever the method). */
  const allow = (methods: readonly string[]): MiddlewareHandler<ProxyVars> => async (c, next) => {
    if (!methods.includes(c.req.method)) {
      throw new Refusal('method_not_allowed', `Method ${c.req.method} is not allowed here; use ${methods.join(' or ')}.`, { allow: [...methods, 'OPTIONS'].join(', ') })
    }
    await next()
  }

  /**
   * Requests the MCP route sends through this app on a client's behalf (a
   * hosted embedder's calls): they spend that client's MCP bucket, not the
   * chat one. Only this app can put a request here, so no client can claim it.
   */
  const viaMcp = new WeakSet<Request>()

  /** Requests per client and minute, from the client's bucket for this route. */
  const rateLimit = (bucket: Bucket = CHAT_BUCKET): MiddlewareHandler<ProxyVars> => async (c, next) => {
    const rt = c.var.rt
    const { name, limit, requests } = viaMcp.has(c.req.raw) ? MCP_BUCKET : bucket
    const client = clientBlock(rt.clientIp)
    const take = await rt.limits.take(await clientKey(name ? `${client}#${name}` : client), limit(rt.settings), now())
    if (!take.ok) {
      throw new Refusal(CLIENT_LIMIT.code, `Too many ${requests} from this client; try again in ${take.retryAfterSec} s.`, {
        'retry-after': String(take.retryAfterSec),
        // What tells the panel this 429 is the proxy's own, not a provider's relayed one (core/ladder/client-limit.ts).
        [CLIENT_LIMIT.header]: CLIENT_LIMIT.value,
      })
    }
    await next()
  }

  /** What every /ai route runs first, in this order. */
  const admit = (methods: readonly string[], bucket?: Bucket) => {
    const allowed = allowedMethods(methods)
    return [runtime, origin(allowed), allow(allowed), rateLimit(bucket)] as const
  }

  /** One GET of the upstream's model list (or key record) with the proxy's key: reachability and auth, no tokens spent. */
  async function probe(spec: ProviderSpec, base: string | undefined, key: string | undefined): Promise<{ status: number | null; result: 'ok' | 'auth' | 'unreachable' | 'error' }> {
    if (!base) return { status: null, result: 'unreachable' }
    const headers = new Headers({ 'accept-encoding': 'identity' })
    attachCredential(headers, spec.protocol, key)
    try {
      const res = await doFetch(`${base}/${probePath(spec)}`, { headers, redirect: 'manual', signal: AbortSignal.timeout(PROBE_TIMEOUT_MS) })
      await res.body?.cancel().catch(() => {})
      if (res.ok) return { status: res.status, result: 'ok' }
      return { status: res.status, result: res.status === 401 || res.status === 403 ? 'auth' : 'error' }
    } catch {
      return { status: null, result: 'unreachable' }
    }
  }

  // The one place CORS and API_HEADERS are written: every answer, refusals (rendered by onError below) included.
  app.use('/ai/*', async (c, next) => {
    await next()
    for (const [name, value] of Object.entries(API_HEADERS)) c.res.headers.set(name, value)
    withCors(c.res, c.var.cors)
  })

  // HEAD too (allowedMethods): uptime monitors check with it.
  const health: Handler<ProxyVars> = async (c) => {
    const rt = c.var.rt
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
    const limit = rt.settings.budget.dailyLimit
    const at = now()
    const daily = limit === undefined ? null : { limit, used: Math.min(limit, await rt.limits.usedDaily(at)), resetAt: nextUtcMidnight(at) }
    const dailySpent = daily !== null && daily.used >= daily.limit
    // What keeps a reader from an answer, in words (names of variables, never values).
    const problems = [
      // The proxy cannot tell a key that went missing from a search-only site (docs/proxy.md says which to monitor there).
      ...(routes.length === 0 ? ['No provider route: no provider key (or own-server URL) was set where the proxy was configured, so no question gets a model\'s answer.'] : []),
      ...routes.flatMap((r) => (r.ok ? [] : [routeProblem(r)])),
      ...(dailySpent ? [`The daily limit of ${daily.limit} AI requests (budget.dailyLimit) is spent until ${new Date(daily.resetAt).toISOString()}.`] : []),
    ]
    const body = {
      ok: problems.length === 0,
      problems,
      routes,
      dailyLimit: limit ?? null,
      daily: daily && { ...daily, resetAt: new Date(daily.resetAt).toISOString() },
      feedback: true,
    }
    // An uptime monitor reads the status (HEAD has nothing else): 503 whenever readers would not get answers.
    const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' }
    if (dailySpent) headers['retry-after'] = String(Math.max(1, Math.ceil((daily.resetAt - at) / 1000)))
    return new Response(JSON.stringify(body), { status: body.ok ? 200 : 503, headers })
  }

  const feedback: Handler<ProxyVars> = async (c) => {
    const rt = c.var.rt
    const cap = rt.settings.feedback.maxBytes
    const input = await readInput(c.req.raw, cap, FeedbackInputSchema, 'feedback', `Feedback is limited to ${cap} bytes.`, bodyDeadlineMs)
    const row = feedbackRow(input, rt.settings.feedback.storeText, new Date(now()), newId())
    // Kept as long as insights events are (insights.retentionDays): the privacy statement names one period for both.
    await rt.feedback.save(row, retentionCutoff(now(), rt.settings.insights.retentionDays))
    return new Response(JSON.stringify({ ok: true, id: row.id }), { status: 201, headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' } })
  }

  // Insights: one record per settled turn (or a rating of one), sent as a beacon; the reader never waits on it.
  const events: Handler<ProxyVars> = async (c) => {
    const rt = c.var.rt
    if (!rt.settings.insights.enabled) throw new Refusal('insights_off', 'Insights are off on this proxy (insights.enabled in the docpilot config); nothing was stored.')
    const cap = rt.settings.feedback.maxBytes
    const event = await readInput(c.req.raw, cap, EventInputSchema, 'event', `Events are limited to ${cap} bytes.`, bodyDeadlineMs)
    if (event.kind === 'rating') await rt.feedback.rateEvent({ id: event.turn, tab: event.tab, rating: event.rating })
    else await rt.feedback.saveEvent(eventRow(event, rt.settings.feedback.storeText, new Date(now())), retentionCutoff(now(), rt.settings.insights.retentionDays))
    return new Response(null, { status: 204, headers: { 'cache-control': 'no-store' } })
  }

  const mcp: Handler<ProxyVars> = async (c) => {
    if (!options.mcp || !c.var.rt.settings.mcp.enabled) {
      throw new Refusal('mcp_not_enabled', 'This proxy serves no MCP route: mcp.enabled is false, or (Node) it was started without an index folder.')
    }
    return options.mcp(c, c.var.rt, async (request) => {
      viaMcp.add(request)
      return app.fetch(request, c.env)
    })
  }

  const fixedRoutes: readonly FixedRoute[] = [
    { name: 'health', methods: ['GET'], handler: health },
    { name: 'feedback', methods: ['POST'], handler: feedback },
    { name: 'events', methods: ['POST'], bucket: EVENTS_BUCKET, handler: events },
    { name: 'mcp', methods: ['POST'], bucket: MCP_BUCKET, handler: mcp },
  ]
  for (const route of fixedRoutes) app.all(`/ai/${route.name}`, ...admit(route.methods, route.bucket), route.handler)

  /** The configured members, as the refusals of an unknown route name them. */
  const members = (rt: ProxyRuntime) => rt.settings.routes.map((r) => r.member).join(', ') || 'none'

  /** A path under /ai that is no route: 404, naming the routes there are. */
  const unknownRoute: Handler<ProxyVars> = (c) => {
    const fixed = fixedRoutes.map((r) => `${r.methods.join('/')} /ai/${r.name}`)
    throw new Refusal('unknown_route', `No route ${new URL(c.req.url).pathname} on this proxy; it serves ${fixed.join(', ')} and ${MEMBER_METHODS.join('/')} /ai/<member>/<path> for the configured members: ${members(c.var.rt)}.`)
  }

  /** The member route and path a request names, before its method is looked at: a route that does not exist is a 404. */
  const memberTarget: MiddlewareHandler<ProxyVars> = async (c, next) => {
    const rt = c.var.rt
    const memberName = c.req.param('member') ?? ''
    const route = isMemberId(memberName) ? rt.settings.routes.find((r) => r.member === memberName) : undefined
    const rest = new URL(c.req.url).pathname.slice(`/ai/${memberName}/`.length)
    // `/ai/<name>` alone, or below a fixed route (/ai/health/x), names no member: an unknown route.
    if (!route && (rest === '' || fixedRoutes.some((r) => r.name === memberName))) return unknownRoute(c, next)
    if (!route) throw new Refusal('unknown_member', `No provider route "${memberName}" on this proxy; the configured members are: ${members(rt)}.`)
    const spec = providerSpec(route.member)
    const matched = matchPath(spec.protocol, rest)
    const declared = matched ? (matched.kind === 'chat' ? route.chatModels : route.embedModels) : []
    if (!matched || declared.length === 0) {
      throw new Refusal('path_not_allowed', `The ${route.member} route does not forward "${rest}"; it serves only: ${protocolPaths(spec.protocol, [...(route.chatModels.length ? (['chat'] as const) : []), ...(route.embedModels.length ? (['embed'] as const) : [])]).join(', ')}.`)
    }
    c.set('target', { route, spec, rest, matched, declared })
    await next()
  }

  /** The member route's checks after its method and the client's bucket, in order; a request that passes is handed on as `accepted`. */
  const memberRequest: MiddlewareHandler<ProxyVars> = async (c, next) => {
    const rt = c.var.rt
    const { route, spec, rest, matched, declared } = c.var.target
    const url = new URL(c.req.url)

    const cap = rt.settings.proxy.maxBodyBytes
    const json = await readJsonBody(c.req.raw, cap, `Request bodies are limited to ${cap} bytes (proxy.maxBodyBytes).`, bodyDeadlineMs)
    const { body, clamped } = shapeBody(spec.protocol, matched.kind, json, rt.settings.proxy.maxTokens)

    const models = requestModels(matched, body)
    const undeclared = models.find((m) => !declared.includes(m))
    if (undeclared !== undefined) {
      throw new Refusal('model_not_allowed', `Model "${undeclared}" is not declared for the ${route.member} ${matched.kind === 'chat' ? 'chat' : 'embeddings'} route; declared: ${declared.join(', ')}.`)
    }

    const base = upstreamBase(spec, route, rt.env)
    if (!base) throw new Refusal('upstream_not_configured', `The ${route.member} upstream is not configured; set ${spec.baseUrlEnv} on the proxy.`)
    const key = keyOf(spec, rt.env)
    if (!key && keyRequired(spec)) throw new Refusal('key_not_set', `${spec.keyEnv} is not set on the proxy.`)

    c.set('accepted', { member: route.member, spec, kind: matched.kind, url: `${base}/${rest}${filterQuery(spec.protocol, url.searchParams)}`, body, clamped, key })
    await next()
  }

  /**
   * The site's daily ceiling (budget.dailyLimit), on chat requests only: a
   * unit is reserved before the upstream is called, so concurrent requests
   * never pass the ceiling. It is given back only when the provider cannot
   * have billed the request: refused here or by the upstream, or the upstream
   * never reached. A request the upstream was still working on when the
   * first-byte limit passed or the reader left is kept: else a caller who
   * hangs up (or asks slowly, without streaming) would be billed upstream
   * and never counted.
   */
  const dailyCeiling: MiddlewareHandler<ProxyVars> = async (c, next) => {
    const rt = c.var.rt
    const limit = rt.settings.budget.dailyLimit
    if (c.var.accepted.kind !== 'chat' || limit === undefined) return next()
    const reservedAt = now()
    const daily = await rt.limits.spendDaily(limit, reservedAt)
    if (!daily.ok) {
      const retryAfter = Math.max(1, Math.ceil((daily.resetAt - now()) / 1000))
      const resetIso = new Date(daily.resetAt).toISOString()
      throw new Refusal(SITE_CEILING.code, `This site's daily limit of ${limit} AI requests is used up; it resets at ${resetIso}.`, {
        'retry-after': String(retryAfter),
        'x-ratelimit-reset': String(Math.floor(daily.resetAt / 1000)),
        [SITE_CEILING.header]: SITE_CEILING.value,
      })
    }
    await next()
    if (!c.res.ok && !c.var.maybeBilled) await outliveClient(c, rt.limits.refundDaily(reservedAt))
  }

  /** The accepted request sent upstream, its answer streamed back with every key redacted. */
  const forward: Handler<ProxyVars> = async (c) => {
    const { rt, redactor, accepted } = c.var
    const headers = new Headers({ 'content-type': 'application/json', 'accept-encoding': 'identity' })
    const accept = c.req.header('accept')
    if (accept) headers.set('accept', accept)
    attachCredential(headers, accepted.spec.protocol, accepted.key)

    // One controller cuts the upstream for every reason: the client left, or a time limit passed.
    const upstreamCut = new AbortController()
    const cut = (why: Cut['why']) => upstreamCut.abort(new Cut(why))
    const client = c.req.raw.signal
    const onClientLeft = () => cut('client_left')
    const leftBeforeSending = client.aborted
    if (leftBeforeSending) onClientLeft()
    client.addEventListener('abort', onClientLeft, { once: true })
    const { firstByteMs, idleMs } = rt.settings.timeouts
    const firstByte = setTimeout(() => cut('first_byte'), firstByteMs)

    let upstream: Response
    try {
      upstream = await doFetch(accepted.url, {
        method: 'POST',
        headers,
        body: JSON.stringify(accepted.body),
        signal: upstreamCut.signal,
        // Never followed: a redirect to another origin would receive the key again.
        redirect: 'manual',
      })
    } catch (err) {
      client.removeEventListener('abort', onClientLeft)
      const why = upstreamCut.signal.reason instanceof Cut ? upstreamCut.signal.reason.why : undefined
      // Cut while the upstream had the request (not before it was sent): it may bill it, so the daily unit is kept.
      if ((why === 'client_left' && !leftBeforeSending) || why === 'first_byte') c.set('maybeBilled', true)
      if (why === 'client_left') return new Response(null, { status: 499 })
      if (why === 'first_byte') throw new Refusal('upstream_timeout', `The ${accepted.member} upstream sent no response within ${firstByteMs} ms.`)
      throw new Refusal('upstream_unreachable', `Could not reach the ${accepted.member} upstream: ${redactor.redact(err instanceof Error ? err.message : String(err))}`)
    } finally {
      clearTimeout(firstByte)
    }

    const outHeaders = passHeaders(upstream.headers, redactor)
    if (accepted.clamped) outHeaders.set(CLAMPED_HEADER, String(rt.settings.proxy.maxTokens))
    if (upstream.status >= 300 && upstream.status < 400) {
      client.removeEventListener('abort', onClientLeft)
      await upstream.body?.cancel().catch(() => {})
      throw new Refusal('upstream_redirected', `The ${accepted.member} upstream answered with a redirect (${upstream.status}), which the proxy does not follow with the key attached; check its base URL (${accepted.spec.baseUrlEnv}).`)
    }
    if (!upstream.ok) {
      // Error bodies are small and some services quote the credential back; read, redact, return. The read is
      // watched like a stream: a body that stalls is cut after idleMs (the status is the answer), a reader who left cuts it.
      const stalled = setTimeout(() => cut('idle'), idleMs)
      const body = await readTextCapped(upstream, ERROR_BODY_CAP)
      let text = redactor.redact(body.text)
      // Cut short, the body may end in the first part of a quoted key, which no redaction matches: left out.
      if (!body.whole) text = text.slice(0, text.length - redactor.heldBack(text))
      clearTimeout(stalled)
      client.removeEventListener('abort', onClientLeft)
      if (client.aborted) return new Response(null, { status: 499 })
      return new Response(text, { status: upstream.status, headers: outHeaders })
    }
    // Streamed through as it arrives, never buffered: an idle watch that cuts a stalled upstream,
    // then redaction holding back at most a possible partial key. A client that goes away cancels
    // this stream (and fires the signal above), which cuts the upstream request.
    let idle = setTimeout(() => cut('idle'), idleMs)
    const done = () => {
      clearTimeout(idle)
      client.removeEventListener('abort', onClientLeft)
    }
    upstreamCut.signal.addEventListener('abort', done, { once: true })
    const watch = new TransformStream<Uint8Array, Uint8Array>({
      transform(chunk, controller) {
        clearTimeout(idle)
        idle = setTimeout(() => cut('idle'), idleMs)
        controller.enqueue(chunk)
      },
      flush: done,
    })
    const redacted = upstream.body ? upstream.body.pipeThrough(watch).pipeThrough(redactor.stream()) : null
    const sse = /^text\/event-stream/i.test(outHeaders.get('content-type') ?? '')
    const stream = redacted && sse ? redacted.pipeThrough(sseHeartbeat(upstreamCut.signal)) : redacted
    if (!upstream.body) done()
    return new Response(stream, { status: upstream.status, headers: outHeaders })
  }

  app.all('/ai/:member/*', runtime, origin(MEMBER_METHODS), memberTarget, allow(MEMBER_METHODS), rateLimit(), memberRequest, dailyCeiling, forward)

  app.all('/ai', runtime, origin([]), unknownRoute)
  app.all('/ai/*', runtime, origin([]), unknownRoute)

  app.onError((err, c) => {
    if (err instanceof Refusal) return err.getResponse()
    if (err instanceof ProxyConfigError) return new Refusal('proxy_misconfigured', err.message).getResponse()
    // Never the internal message: it may quote a header value, a key, a path. The log gets it, redacted.
    const id = newId()
    const redactor = c.var.redactor ?? new Redactor([])
    log(`docpilot proxy error ${id} on ${c.req.method} ${new URL(c.req.url).pathname}: ${redactor.redact(err instanceof Error ? (err.stack ?? err.message) : String(err))}`)
    return new Refusal('proxy_error', `The proxy could not handle this request; the site owner can find error ${id} in the proxy's log.`, { [ERROR_ID_HEADER]: id }).getResponse()
  })

  return app
}
