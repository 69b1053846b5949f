/**
 * Reader-facing copy for the turn's states, in one place so the panel, the
 * CLI and tests use the same words. Strings the spec quotes are exact.
 */

/** Every service was asked and none answered: the search answer, over the passages. */
export const HYBRID_NOTICE = "The AI models aren't reachable right now — this is a search answer. The closest passages:"

/** A failure before retrieval: nothing to show but the transport error (role="alert"). */
export const ERROR_NOTICE = "The AI service didn't respond."

/** Under the rate-limited notice: the passages as links only. */
export const MEANWHILE_NOTICE = 'Meanwhile, the closest passages:'

/** The actions under a hybrid answer and the transport error. */
export const RETRY_LABEL = 'Retry'
export const SEARCH_DOCS_LABEL = 'Search the docs'

/** Marks an answer whose stream broke after it began. */
export const CUT_OFF_NOTICE = 'The answer was cut off before it finished.'

/** The rate-limited state: the service answered with a schedule. */
export function rateLimitedNotice(resetAt?: number, formatTime?: (epochMs: number) => string): string {
  if (resetAt === undefined) return "Today's AI allowance is spent."
  const when = formatTime ? formatTime(resetAt) : new Date(resetAt).toISOString()
  return `Today's AI allowance is spent. It comes back at ${when}.`
}

/**
 * The rate-limited state when the docpilot proxy asked this reader to slow
 * down (its per-client limit, receipt.stoppedBy client_rate_limited): nothing
 * is wrong with any service, and the wait is seconds, not a day.
 */
export function slowDownNotice(resetAt?: number, now: number = Date.now()): string {
  const lead = "You're asking faster than this site allows."
  if (resetAt === undefined) return `${lead} Wait a moment, then ask again.`
  const seconds = Math.max(1, Math.ceil((resetAt - now) / 1000))
  return `${lead} Ask again in ${seconds === 1 ? '1 second' : `${seconds} seconds`}.`
}
