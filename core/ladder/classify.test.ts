import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { classifyResponse, classifyStreamError, parseDuration, parseResetValue, readTimingHeaders } from './classify.ts'
import { FAILURE_CLASSES, FIX_HINTS, stepsAside } from './failure.ts'

const NOW = Date.UTC(2026, 10, 29, 12, 0, 0)
const h = (o: Record<string, string>) => new Headers(o)

describe('wait parsing', () => {
  it('reads the duration strings OpenAI and Groq put in reset headers', () => {
    expect(parseDuration('20ms')).toBe(20)
    expect(parseDuration('1.5s')).toBe(1500)
    expect(parseDuration('2m59.56s')).toBe(179_560)
    expect(parseDuration('6h0m0s')).toBe(21_600_000)
    expect(parseDuration('12')).toBe(12_000)
    expect(parseDuration('soon')).toBeUndefined()
  })

  it('reads reset values as epoch ms, epoch s, an RFC 3339 date, or seconds from now', () => {
    expect(parseResetValue('1764460800000', NOW)).toBe(1764460800000)
    expect(parseResetValue('1764460800', NOW)).toBe(1764460800000)
    expect(parseResetValue('2026-11-30T00:00:00Z', NOW)).toBe(Date.UTC(2026, 10, 30))
    expect(parseResetValue('30', NOW)).toBe(NOW + 30_000)
  })

  it('prefers retry-after-ms, then retry-after in seconds or as an HTTP date', () => {
    expect(readTimingHeaders(h({ 'retry-after-ms': '250', 'retry-after': '9' }), NOW).retryAfterMs).toBe(250)
    expect(readTimingHeaders(h({ 'retry-after': '9' }), NOW).retryAfterMs).toBe(9000)
    expect(readTimingHeaders(h({ 'retry-after': new Date(NOW + 42_000).toUTCString() }), NOW).retryAfterMs).toBe(42_000)
  })
})

describe('classification', () => {
  it('a 429 is rate_limited; one whose wait is a schedule (per day, or an hour and more) is daily_quota', () => {
    expect(classifyResponse(429, h({ 'retry-after': '20' }), '{"error":{"message":"slow down"}}', NOW).class).toBe('rate_limited')
    expect(classifyResponse(429, h({}), '{"error":{"message":"Rate limit exceeded: free-models-per-day"}}', NOW).class).toBe('daily_quota')
    const f = classifyResponse(429, h({ 'x-ratelimit-reset': String(NOW + 5 * 3600_000) }), '{}', NOW)
    expect(f).toMatchObject({ class: 'daily_quota', resetAt: NOW + 5 * 3600_000 })
  })

  it('reads the reset OpenRouter echoes inside the body of a free-quota 429', () => {
    const body = JSON.stringify({ error: { code: 429, message: 'Rate limit exceeded: free-models-per-day.', metadata: { headers: { 'X-RateLimit-Reset': String(NOW + 3600_000 * 9) } } } })
    expect(classifyResponse(429, h({}), body, NOW)).toMatchObject({ class: 'daily_quota', resetAt: NOW + 9 * 3600_000 })
  })

  it("reads Gemini's RetryInfo.retryDelay and its per-day quota ids", () => {
    const body = (quotaId: string) =>
      JSON.stringify([{ error: { code: 429, status: 'RESOURCE_EXHAUSTED', message: 'quota', details: [
        { '@type': 'type.googleapis.com/google.rpc.QuotaFailure', violations: [{ quotaId }] },
        { '@type': 'type.googleapis.com/google.rpc.RetryInfo', retryDelay: '33s' },
      ] } }])
    expect(classifyResponse(429, h({}), body('GenerateRequestsPerMinutePerProjectPerModel'), NOW)).toMatchObject({ class: 'rate_limited', retryAfterMs: 33_000 })
    expect(classifyResponse(429, h({}), body('GenerateRequestsPerDayPerProjectPerModel'), NOW).class).toBe('daily_quota')
  })

  it("Anthropic 529 and overloaded_error are overloaded; insufficient_quota is payment, not a rate limit", () => {
    expect(classifyResponse(529, h({}), '{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}', NOW)).toMatchObject({ class: 'overloaded', code: 'overloaded_error' })
    expect(classifyResponse(429, h({}), '{"error":{"type":"insufficient_quota","code":"insufficient_quota","message":"x"}}', NOW).class).toBe('payment')
    expect(classifyStreamError({ type: 'error', error: { type: 'overloaded_error', message: 'Overloaded' } }, NOW).class).toBe('overloaded')
  })

  it('maps the rest of the statuses, and leaves what it cannot read as unknown', () => {
    const cls = (s: number, body = '{}') => classifyResponse(s, h({}), body, NOW).class
    expect([cls(401), cls(403), cls(402), cls(404), cls(400), cls(413), cls(500), cls(502), cls(503), cls(418)]).toEqual([
      'auth', 'auth', 'payment', 'not_found', 'request_rejected', 'request_rejected', 'server_error', 'server_error', 'overloaded', 'unknown',
    ])
    expect(cls(400, '{"error":{"code":400,"message":"API key not valid. Please pass a valid API key.","status":"INVALID_ARGUMENT"}}')).toBe('auth')
    expect(classifyStreamError({ error: 'something odd' }, NOW).class).toBe('unknown')
  })

  it("every class has a one-line fix hint, and only the refused body, the unknown and the proxy's per-reader limit stop the walk", () => {
    for (const c of FAILURE_CLASSES) {
      expect(FIX_HINTS[c].length, c).toBeGreaterThan(20)
      expect(FIX_HINTS[c]).not.toContain('\n')
    }
    expect(FAILURE_CLASSES.filter((c) => !stepsAside(c))).toEqual(['client_rate_limited', 'request_rejected', 'unknown'])
  })
})

describe('docs/troubleshooting.md', () => {
  it('has a row for every failure class, in the order the code lists them', () => {
    const doc = readFileSync(new URL('../../docs/troubleshooting.md', import.meta.url), 'utf8')
    const rows = [...doc.matchAll(/^\| `([a-z_]+)` \|/gm)].map((m) => m[1])
    expect(rows.filter((r) => (FAILURE_CLASSES as readonly string[]).includes(r!))).toEqual([...FAILURE_CLASSES])
  })
})

