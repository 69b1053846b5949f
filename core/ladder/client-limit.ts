/**
 * How the docpilot proxy says a reader asked faster than its per-client limit
 * (proxy.rateLimit) allows: a 429 that carries `X-Docpilot-Quota: client`
 * (exposed to the panel by CORS, as the site ceiling's `daily` is) and a
 * Retry-After. proxy/app.ts sends it; the classifier reads it. The header is
 * the proof: the proxy never passes an upstream's X-Docpilot-* header on, so
 * a provider's own 429 cannot be mistaken for it.
 *
 * It is about this reader's pace, not about any member: every member sits
 * behind the same bucket, so asking the next one buys the same refusal, and
 * cooling a member for it would demote a healthy provider.
 */
import { SITE_CEILING } from './site-ceiling.ts'

export const CLIENT_LIMIT = { status: 429, code: 'rate_limited', header: SITE_CEILING.header, value: 'client' } as const

/** Whether a response is the proxy's refusal at this client's rate limit. */
export function isClientLimit(status: number, headers: { get(name: string): string | null }): boolean {
  return status === CLIENT_LIMIT.status && headers.get(CLIENT_LIMIT.header)?.trim().toLowerCase() === CLIENT_LIMIT.value
}
