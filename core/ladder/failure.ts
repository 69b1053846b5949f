/**
 * Why an attempt failed: a closed union, each class with a one-line fix hint
 * and one rule for what the walk does next. Adding a class means deciding its
 * rule here; nothing else in the ladder branches on raw status codes.
 */

export const FAILURE_CLASSES = [
  'rate_limited',
  'client_rate_limited',
  'daily_quota',
  'overloaded',
  'server_error',
  'auth',
  'payment',
  'not_found',
  'network',
  'timeout',
  'request_rejected',
  'stream_broken',
  'empty_answer',
  'unknown',
] as const

export type FailureClass = (typeof FAILURE_CLASSES)[number]

/** A failed attempt, as the walk sees it. Never carries prompt or answer text. */
export interface Failure {
  class: FailureClass
  /** HTTP status, or the status an in-stream error named; null for transport failures. */
  status: number | null
  /** How long the service asked us to wait (retry-after, retryDelay, x-ratelimit-reset...). */
  retryAfterMs?: number
  /** When a daily allowance comes back, as the service named it (epoch ms). */
  resetAt?: number
  /** The service's machine-readable error code (e.g. 'overloaded_error'), sanitized. */
  code?: string
  /** daily_quota from the docpilot proxy's own ceiling (budget.dailyLimit), which every member is behind. */
  siteCeiling?: true
}

export const FIX_HINTS: Record<FailureClass, string> = {
  rate_limited: 'Too many requests for this key or model right now; the member cools down and the next one answers.',
  client_rate_limited:
    "This reader asked faster than the proxy's proxy.rateLimit allows; the turn waits out its Retry-After and no member is cooled. Behind a reverse proxy, check --trust-proxy.",
  daily_quota: "The service's daily allowance is spent; add credits or a billed member, or set budget.dailyLimit.",
  overloaded: 'The service shed the request under load (e.g. Anthropic 529); nothing to fix on your side.',
  server_error: 'The service failed (5xx); if it persists, check its status page before changing the config.',
  auth: "The key was refused (401/403): set the member's key variable where the proxy runs (see `docpilot doctor --proxy`).",
  payment: 'The account has no credit left (402 or insufficient_quota): top it up or drop the member from the chain.',
  not_found: "The member does not know this model or route: name a model that member serves (a model name never crosses providers).",
  network: 'The request never completed (DNS, TLS, dropped connection): check the proxy and the upstream base URL.',
  timeout: 'No first byte or no next delta in time: raise chat.timeouts or move a slow member further down the chain.',
  request_rejected: 'The service refused the request body (400/413/422): check chat.maxTokens and the prompt size; other members would refuse it too.',
  stream_broken: 'The stream stopped after the answer began; the partial answer is kept and marked cut off.',
  empty_answer: 'The model finished without a word of answer (a reasoning model that spent chat.maxTokens thinking, or a filter); the next model is asked.',
  unknown: 'An error docpilot cannot classify; it is not retried blind. Run with ?dpdebug=1 and report the status and code.',
}

/**
 * Every class but these three costs a member its turn and the walk moves on
 * (429 · 5xx · 401/403 · network · timeout, plus the account-level 402/404).
 * These end the walk: a refused body would be refused again by the next
 * member, an unknown error is never retried blind, and the proxy's per-client
 * limit stands in front of every member alike (the turn settles as
 * rate-limited with the proxy's wait: core/ladder/walk.ts).
 */
const ENDS_WALK: ReadonlySet<FailureClass> = new Set<FailureClass>(['request_rejected', 'unknown', 'client_rate_limited'])

export function stepsAside(c: FailureClass): boolean {
  return !ENDS_WALK.has(c)
}

export function sanitizeCode(code: unknown): string | undefined {
  if (typeof code === 'number') return String(code)
  if (typeof code !== 'string') return undefined
  return /^[\w.:-]{1,64}$/.test(code) ? code : undefined
}
