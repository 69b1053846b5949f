/**
 * Cooldowns: a member that stepped aside goes to the back of the order for
 * 60 s or its own retry-after — never out of it. There is no sticky member:
 * the member that answered is not promoted, so once a cooldown ends the
 * configured order is back exactly as written.
 *
 * State lives behind a small synchronous store so the panel can persist it
 * (a reload respects it) and tests can inspect it; time comes from a Clock so
 * tests control it.
 */
import type { FailureClass } from './failure.ts'

export interface Clock {
  /** Epoch milliseconds. */
  now(): number
}

export const systemClock: Clock = { now: () => Date.now() }

/** A clock tests move by hand. */
export class ManualClock implements Clock {
  constructor(private t = Date.now()) {}
  now(): number {
    return this.t
  }
  advance(ms: number): void {
    this.t += ms
  }
  set(t: number): void {
    this.t = t
  }
}

export interface Cooldown {
  /** Epoch ms when the member is back in its configured place. */
  until: number
  /** Epoch ms when it stepped aside: earlier steps-aside queue first at the back. */
  since: number
  class: FailureClass
}

export interface CooldownStore {
  get(key: string): Cooldown | undefined
  set(key: string, value: Cooldown): void
  delete(key: string): void
  /** Every stored entry (expired ones included until pruned). */
  entries(): [string, Cooldown][]
}

export class MemoryCooldownStore implements CooldownStore {
  private readonly map = new Map<string, Cooldown>()
  get(key: string): Cooldown | undefined {
    return this.map.get(key)
  }
  set(key: string, value: Cooldown): void {
    this.map.set(key, value)
  }
  delete(key: string): void {
    this.map.delete(key)
  }
  entries(): [string, Cooldown][] {
    return [...this.map.entries()]
  }
}

export const DEFAULT_COOLDOWN_MS = 60_000

/** Cooldown key of a member, and of one model inside a member (free pool ids cool on their own). */
export function cooldownKey(provider: string, model?: string): string {
  return model === undefined ? provider : `${provider}#${model}`
}

/** Active cooldown for a key, pruning it once it has ended. */
export function activeCooldown(store: CooldownStore, key: string, now: number): Cooldown | undefined {
  const c = store.get(key)
  if (!c) return undefined
  if (c.until <= now) {
    store.delete(key)
    return undefined
  }
  return c
}

/**
 * This turn's order: members not cooling keep their configured order; cooling
 * ones follow, in the order they stepped aside. Nobody is dropped.
 */
export function orderForTurn<T>(items: readonly T[], keyOf: (item: T) => string, store: CooldownStore, now: number): T[] {
  const ready: T[] = []
  const cooling: { item: T; since: number; i: number }[] = []
  items.forEach((item, i) => {
    const c = activeCooldown(store, keyOf(item), now)
    if (c) cooling.push({ item, since: c.since, i })
    else ready.push(item)
  })
  cooling.sort((a, b) => a.since - b.since || a.i - b.i)
  return [...ready, ...cooling.map((c) => c.item)]
}

/** How long a failure sends its member to the back: the service's own wait, else 60 s. */
export function cooldownUntil(now: number, failure: { retryAfterMs?: number; resetAt?: number }): number {
  if (failure.resetAt !== undefined && failure.resetAt > now) return failure.resetAt
  if (failure.retryAfterMs !== undefined && failure.retryAfterMs > 0) return now + failure.retryAfterMs
  return now + DEFAULT_COOLDOWN_MS
}
