/**
 * Turning what a service said (status, headers, error body, an error inside a
 * 200 stream) into one Failure. Reads every wait a service can name:
 * retry-after (seconds or HTTP date), retry-after-ms, x-ratelimit-reset*
 * (epoch or duration), Gemini's RetryInfo.retryDelay, Anthropic's
 * *-ratelimit-*-reset dates and OpenRouter's quota headers echoed in the body.
 */
import { sanitizeCode, type Failure, type FailureClass } from './failure.ts'
import { isClientLimit } from './client-limit.ts'
import { proxyRefusalClass } from './proxy-refusals.ts'
import { isSiteCeiling } from './site-ceiling.ts'

/**
 * How a provider's own 429 says its allowance is for the day (the site's own
 * ceiling is told by the proxy's code and header instead, see site-ceiling.ts):
 * a wait this long is a schedule, not a blip, and these words name a daily quota
 * (OpenRouter's free-models-per-day, Gemini's ...PerDay quota ids, Groq's RPD).
 */
const DAILY_WAIT_MS = 60 * 60 * 1000

const DAILY_WORDS = /per[-_ ]?day|daily|perday|free-models-per-day|\bRPD\b|usage limits?\b/i

type HeaderBag = { get(name: string): string | null }

/** Parses '1.5s', '2m59.56s', '20ms', '1h2m' (OpenAI/Groq reset headers) or plain seconds. */
export function parseDuration(value: string): number | undefined {
  const v = value.trim()
  if (/^\d+(\.\d+)?$/.test(v)) return Math.round(Number(v) * 1000)
  const re = /(\d+(?:\.\d+)?)(ms|h|m|s)/g
  let total = 0
  let matched = ''
  for (const m of v.matchAll(re)) {
    const n = Number(m[1])
    total += m[2] === 'ms' ? n : m[2] === 's' ? n * 1000 : m[2] === 'm' ? n * 60_000 : n * 3_600_000
    matched += m[0]
  }
  return matched.length > 0 && matched === v ? Math.round(total) : undefined
}

/** Reads an x-ratelimit-reset style value: epoch ms, epoch s, a date, or a duration. Returns epoch ms. */
export function parseResetValue(value: string, now: number): number | undefined {
  const v = value.trim()
  if (/^\d+(\.\d+)?$/.test(v)) {
    const n = Number(v)
    if (n > 1e12) return Math.round(n)
    if (n > 1e9) return Math.round(n * 1000)
    return now + Math.round(n * 1000)
  }
  const d = parseDuration(v)
  if (d !== undefined) return now + d
  const t = Date.parse(v)
  return Number.isFinite(t) ? t : undefined
}

interface Timing {
  retryAfterMs?: number
  resetAt?: number
}

/** Every wait the headers name; the longest reset wins (a daily reset outlasts a per-minute one). */
export function readTimingHeaders(headers: HeaderBag, now: number): Timing {
  const out: Timing = {}
  const ms = headers.get('retry-after-ms')
  if (ms && /^\d+(\.\d+)?$/.test(ms.trim())) out.retryAfterMs = Math.round(Number(ms))
  const ra = headers.get('retry-after')
  if (out.retryAfterMs === undefined && ra) {
    const v = ra.trim()
    if (/^\d+(\.\d+)?$/.test(v)) out.retryAfterMs = Math.round(Number(v) * 1000)
    else {
      const t = Date.parse(v)
      if (Number.isFinite(t)) out.retryAfterMs = Math.max(0, t - now)
    }
  }
  const resetNames = [
    'x-ratelimit-reset',
    'x-ratelimit-reset-requests',
    'x-ratelimit-reset-tokens',
    'anthropic-ratelimit-requests-reset',
    'anthropic-ratelimit-tokens-reset',
  ]
  for (const name of resetNames) {
    const raw = headers.get(name)
    if (!raw) continue
    const at = parseResetValue(raw, now)
    if (at !== undefined && (out.resetAt === undefined || at > out.resetAt)) out.resetAt = at
  }
  return out
}

/** The parts of any provider's error payload that classification needs. */
interface ErrorSignals {
  code?: string
  type?: string
  status?: string
  numericCode?: number
  message: string
  retryDelayMs?: number
  quotaIds: string[]
  metaHeaders?: Record<string, string>
  /** The docpilot proxy refused at the site's own daily ceiling. */
  siteCeiling?: boolean
  /** The docpilot proxy refused at this reader's own rate limit (no member was asked). */
  clientLimit?: boolean
}

function asRecord(v: unknown): Record<string, unknown> | undefined {
  return v !== null && typeof v === 'object' && !Array.isArray(v) ? (v as Record<string, unknown>) : undefined
}

export function parseJsonLoose(text: string): unknown {
  try {
    return JSON.parse(text)
  } catch {
    return undefined
  }
}

/** Reads OpenAI, OpenRouter, Gemini (object or one-element array), Anthropic and Ollama error shapes. */
export function errorSignals(payload: unknown): ErrorSignals {
  const root = Array.isArray(payload) ? payload[0] : payload
  const rec = asRecord(root) ?? {}
  const errField = rec.error
  // Mistral puts the error fields at the top level: {"object":"error","message":...}.
  const err = asRecord(errField) ?? (errField === undefined ? rec : {})
  const out: ErrorSignals = { message: '', quotaIds: [] }
  if (typeof errField === 'string') out.message = errField // Ollama: {"error": "..."}
  if (typeof err.message === 'string') out.message = err.message
  if (typeof err.code === 'number') out.numericCode = err.code
  else if (typeof err.code === 'string') out.code = err.code
  if (typeof err.type === 'string') out.type = err.type
  if (typeof err.status === 'string') out.status = err.status
  const details = Array.isArray(err.details) ? err.details : []
  for (const d of details) {
    const dr = asRecord(d)
    if (!dr) continue
    if (typeof dr.retryDelay === 'string') out.retryDelayMs = parseDuration(dr.retryDelay)
    const violations = Array.isArray(dr.violations) ? dr.violations : []
    for (const v of violations) {
      const vr = asRecord(v)
      if (vr && typeof vr.quotaId === 'string') out.quotaIds.push(vr.quotaId)
    }
  }
  // OpenAI-style and Gemini messages name the wait in words: "Please try again in 6m0s", "Please retry in 33s".
  const said = /(?:try again|retry) in ((?:\d+(?:\.\d+)?(?:ms|h|m|s))+)/i.exec(out.message)
  if (said && out.retryDelayMs === undefined) out.retryDelayMs = parseDuration(said[1]!)
  const meta = asRecord(err.metadata)
  const mh = asRecord(meta?.headers)
  if (mh) {
    out.metaHeaders = {}
    for (const [k, v] of Object.entries(mh)) if (typeof v === 'string' || typeof v === 'number') out.metaHeaders[k.toLowerCase()] = String(v)
  }
  return out
}

function bagFrom(record: Record<string, string>): HeaderBag {
  return { get: (name) => record[name.toLowerCase()] ?? null }
}

function classOf(status: number | null, s: ErrorSignals, timing: Timing, now: number): FailureClass {
  if (s.clientLimit) return 'client_rate_limited'
  const proxied = proxyRefusalClass(status, s.code)
  if (proxied) return proxied
  const kind = `${s.type ?? ''} ${s.code ?? ''} ${s.status ?? ''}`.toLowerCase()
  if (kind.includes('overloaded') || status === 529) return 'overloaded'
  if (kind.includes('insufficient_quota') || kind.includes('billing') || status === 402) return 'payment'
  // Gemini refuses an unbilled project with 400 FAILED_PRECONDITION ("enable billing").
  if (kind.includes('failed_precondition') && /billing/i.test(s.message)) return 'payment'
  if (kind.includes('api_key_invalid') || /api key not valid/i.test(s.message)) return 'auth'
  if (kind.includes('authentication') || kind.includes('permission') || status === 401 || status === 403) return 'auth'
  if (s.siteCeiling) return 'daily_quota'
  if (status === 429 || kind.includes('rate_limit') || kind.includes('resource_exhausted')) {
    const wait = Math.max(timing.retryAfterMs ?? 0, timing.resetAt !== undefined ? timing.resetAt - now : 0)
    const daily = DAILY_WORDS.test(s.message) || s.quotaIds.some((q) => DAILY_WORDS.test(q)) || wait >= DAILY_WAIT_MS
    return daily ? 'daily_quota' : 'rate_limited'
  }
  if (status === 404 || kind.includes('not_found')) return 'not_found'
  if (status === 408) return 'timeout'
  if (status === 400 || status === 413 || status === 422 || kind.includes('invalid_request') || kind.includes('request_too_large'))
    return 'request_rejected'
  if (status === 503 || kind.includes('unavailable')) return 'overloaded'
  if ((status !== null && status >= 500 && status <= 599) || kind.includes('api_error') || kind.includes('server_error'))
    return 'server_error'
  return 'unknown'
}

function build(status: number | null, s: ErrorSignals, headerTiming: Timing, now: number): Failure {
  const timing: Timing = { ...headerTiming }
  if (s.retryDelayMs !== undefined && timing.retryAfterMs === undefined) timing.retryAfterMs = s.retryDelayMs
  if (s.metaHeaders) {
    const meta = readTimingHeaders(bagFrom(s.metaHeaders), now)
    if (meta.resetAt !== undefined && (timing.resetAt === undefined || meta.resetAt > timing.resetAt)) timing.resetAt = meta.resetAt
    if (timing.retryAfterMs === undefined && meta.retryAfterMs !== undefined) timing.retryAfterMs = meta.retryAfterMs
  }
  const cls = classOf(status, s, timing, now)
  const f: Failure = { class: cls, status }
  if (cls === 'daily_quota' && s.siteCeiling) f.siteCeiling = true
  const code = sanitizeCode(s.code ?? s.type ?? s.status)
  if (code) f.code = code
  if (timing.retryAfterMs !== undefined) f.retryAfterMs = timing.retryAfterMs
  // Both settle the turn as rate-limited, with the moment the wait ends.
  if (cls === 'daily_quota' || cls === 'client_rate_limited') {
    const at = timing.resetAt ?? (timing.retryAfterMs !== undefined ? now + timing.retryAfterMs : undefined)
    if (at !== undefined) f.resetAt = at
  } else if (timing.retryAfterMs === undefined && timing.resetAt !== undefined && (cls === 'rate_limited' || cls === 'overloaded')) {
    f.retryAfterMs = Math.max(0, timing.resetAt - now)
  }
  return f
}

/** A non-2xx response: status, its headers and its (already read) body text. */
export function classifyResponse(status: number, headers: HeaderBag, bodyText: string, now: number): Failure {
  const payload = parseJsonLoose(bodyText)
  const signals = errorSignals(payload)
  if (!signals.message && payload === undefined) signals.message = bodyText.slice(0, 300)
  signals.siteCeiling = isSiteCeiling(status, headers, signals.code)
  signals.clientLimit = isClientLimit(status, headers)
  return build(status, signals, readTimingHeaders(headers, now), now)
}

/**
 * An error that arrived inside a 200 stream (OpenRouter's `{"error":{...}}`
 * chunk, Anthropic's `event: error`, an Ollama `{"error": "..."}` line).
 * A numeric code in the payload is read as the status it stands for.
 */
export function classifyStreamError(payload: unknown, now: number): Failure {
  const s = errorSignals(payload)
  const status = s.numericCode !== undefined && s.numericCode >= 400 && s.numericCode <= 599 ? s.numericCode : null
  return build(status, s, {}, now)
}
