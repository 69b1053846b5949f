import { describe, expect, it } from 'vitest'
import { cooldownUntil, ManualClock, MemoryCooldownStore, orderForTurn } from './cooldown.ts'

describe('cooldown order', () => {
  it('keeps ready members in configured order and queues cooling ones at the back, in the order they stepped aside', () => {
    const store = new MemoryCooldownStore()
    const clock = new ManualClock(1000)
    store.set('c', { until: 90_000, since: 500, class: 'server_error' })
    store.set('a', { until: 90_000, since: 700, class: 'timeout' })
    expect(orderForTurn(['a', 'b', 'c', 'd'], (x) => x, store, clock.now())).toEqual(['b', 'd', 'c', 'a'])
  })

  it('never drops a member, and prunes a cooldown once it has ended', () => {
    const store = new MemoryCooldownStore()
    store.set('a', { until: 2000, since: 0, class: 'rate_limited' })
    expect(orderForTurn(['a'], (x) => x, store, 1999)).toEqual(['a'])
    expect(orderForTurn(['a', 'b'], (x) => x, store, 2000)).toEqual(['a', 'b'])
    expect(store.entries()).toEqual([])
  })

  it("lasts 60 s unless the service named its own wait or reset", () => {
    expect(cooldownUntil(0, {})).toBe(60_000)
    expect(cooldownUntil(0, { retryAfterMs: 5000 })).toBe(5000)
    expect(cooldownUntil(0, { retryAfterMs: 0 })).toBe(60_000)
    expect(cooldownUntil(0, { resetAt: 3_600_000, retryAfterMs: 10 })).toBe(3_600_000)
  })
})
