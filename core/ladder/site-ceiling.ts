/**
 * How the docpilot proxy says the site's own daily ceiling (budget.dailyLimit)
 * is spent: a 429 whose error code is `daily_quota` and which carries
 * `X-Docpilot-Quota: daily` (exposed to the panel by CORS). proxy/app.ts
 * sends it; the classifier reads it. The message is for people and may
 * change; nothing reads it.
 */
export const SITE_CEILING = { status: 429, code: 'daily_quota', header: 'X-Docpilot-Quota', value: 'daily' } as const

/** Whether a response is the proxy's refusal at the site's daily ceiling (by its header or its code). */
export function isSiteCeiling(status: number, headers: { get(name: string): string | null }, code: string | undefined): boolean {
  return status === SITE_CEILING.status && (headers.get(SITE_CEILING.header)?.trim().toLowerCase() === SITE_CEILING.value || code === SITE_CEILING.code)
}
