/**
 * Abuse limits shared by every runtime: a token bucket per client and one
 * daily ceiling for the whole site. The arithmetic lives here once; where the
 * state is kept (memory + SQLite on Node, a Durable Object on Workers) is the
 * store's business.
 */

export interface RateLimit {
  perMinute: number
  burst: number
}

export interface Bucket {
  tokens: number
  /** ms epoch of the last refill. */
  at: number
}

export interface TakeResult {
  ok: boolean
  /** Seconds until one token is back (0 when ok). */
  retryAfterSec: number
}

/** Refill by elapsed time, then take one token if there is one. */
export function takeToken(bucket: Bucket | undefined, limit: RateLimit, now: number): { bucket: Bucket; result: TakeResult } {
  const perMs = limit.perMinute / 60_000
  const start = bucket ?? { tokens: limit.burst, at: now }
  const tokens = Math.min(limit.burst, start.tokens + Math.max(0, now - start.at) * perMs)
  if (tokens >= 1) return { bucket: { tokens: tokens - 1, at: now }, result: { ok: true, retryAfterSec: 0 } }
  const waitMs = (1 - tokens) / perMs
  return { bucket: { tokens, at: now }, result: { ok: false, retryAfterSec: Math.max(1, Math.ceil(waitMs / 1000)) } }
}

export interface DailyResult {
  ok: boolean
  used: number
  /** ms epoch when the day's count starts over (next UTC midnight). */
  resetAt: number
}

/** The UTC day a moment belongs to, as the counter's key. */
export function dayKey(now: number): string {
  return new Date(now).toISOString().slice(0, 10)
}

/** When the daily ceiling's day ends (and the next UTC day's counter starts). */
export function nextUtcMidnight(now: number): number {
  const d = new Date(now)
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), d.getUTCDate() + 1)
}

export interface LimitStore {
  /** Take one request token for this client (a clientKey(), never a raw address). */
  take(client: string, limit: RateLimit, now: number): Promise<TakeResult>
  /**
   * Reserve one request of today's ceiling, unless the ceiling is reached. The
   * reservation is atomic, so concurrent requests never pass the ceiling; a
   * request no upstream answered gives its unit back with refundDaily.
   */
  spendDaily(limit: number, now: number): Promise<DailyResult>
  /** Give back a unit reserved on the day of `reservedAt` (never below zero; a unit of a past day is not returned). */
  refundDaily(reservedAt: number): Promise<void>
  /** Today's count, read without reserving anything (what /ai/health reports). */
  usedDaily(now: number): Promise<number>
}

/**
 * The bucket key for a client address: a fixed-size digest, so a client
 * sending 8 KB addresses cannot make the bucket table (or a Durable Object's
 * name) grow with them. Runtime-neutral (Web Crypto).
 */
export async function clientKey(address: string): Promise<string> {
  const digest = await crypto.subtle.digest('SHA-256', new TextEncoder().encode(address))
  let hex = ''
  for (const b of new Uint8Array(digest).subarray(0, 16)) hex += b.toString(16).padStart(2, '0')
  return hex
}

const IPV4_WITH_PORT = /^(\d{1,3}(?:\.\d{1,3}){3}):\d{1,5}$/
const IPV6_WITH_PORT = /^\[([0-9A-Fa-f:.]+(?:%[^\]]*)?)\]:\d{1,5}$/

/**
 * The client a bucket is for: an IPv4 address, or an IPv6 address's /64.
 * One subscriber (a home line, a VPS) is routinely given a whole /64, so
 * keyed by the full address a client could take a fresh bucket for every
 * request by changing its low 64 bits. An IPv4-mapped address is its IPv4
 * address; anything that is not an IP address stands as it is.
 */
export function clientBlock(address: string): string {
  // Some front proxies append the client's port as well (`203.0.113.7:5123`, `[2001:db8::1]:5123`): a new
  // port per connection must not be a new client.
  const v4 = IPV4_WITH_PORT.exec(address)
  if (v4) return v4[1]!
  address = IPV6_WITH_PORT.exec(address)?.[1] ?? address
  const host = URL.parse(`http://[${address.replace(/^\[|\]$/g, '').replace(/%.*$/, '')}]/`)?.hostname
  if (!host?.startsWith('[')) return address
  // The URL parser writes the address in its canonical compressed form: expand the one '::'.
  const [head = '', tail] = host.slice(1, -1).split('::')
  const left = head ? head.split(':') : []
  const right = tail ? tail.split(':') : []
  const groups = [...left, ...Array<string>(8 - left.length - right.length).fill('0'), ...right].map((g) => parseInt(g, 16))
  if (groups.slice(0, 6).join() === '0,0,0,0,0,65535') return [groups[6]! >> 8, groups[6]! & 255, groups[7]! >> 8, groups[7]! & 255].join('.')
  return `${groups.slice(0, 4).map((g) => g.toString(16)).join(':')}::/64`
}

/**
 * The client's address behind `trustedHops` reverse proxies that each append
 * the address they saw to X-Forwarded-For: the entry that many places from
 * the right, which the nearest trusted proxy wrote. Entries further left are
 * whatever the client sent and are never used. Without enough entries, the
 * connection's own address stands.
 */
export function forwardedClient(header: string | undefined, trustedHops: number, connection: string): string {
  if (trustedHops <= 0 || !header) return connection
  const entries = header.split(',').map((e) => e.trim())
  const entry = entries[entries.length - trustedHops]
  return entry && entries.length >= trustedHops ? entry : connection
}

/**
 * Buckets in memory. A process restart refills every bucket, which errs toward
 * the reader; the daily ceiling, which protects the owner's bill, is durable.
 */
export class MemoryBuckets {
  private readonly buckets = new Map<string, Bucket>()
  constructor(private readonly maxClients = 50_000) {}

  take(client: string, limit: RateLimit, now: number): TakeResult {
    const { bucket, result } = takeToken(this.buckets.get(client), limit, now)
    this.buckets.delete(client)
    this.buckets.set(client, bucket)
    // Map iteration order is insertion order: the first key is the least recently seen client.
    if (this.buckets.size > this.maxClients) {
      const oldest = this.buckets.keys().next().value
      if (oldest !== undefined) this.buckets.delete(oldest)
    }
    return result
  }
}
