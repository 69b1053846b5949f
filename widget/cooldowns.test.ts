import type { UseStore } from 'idb-keyval'
import { afterEach, describe, expect, it, vi } from 'vitest'
import { loadCooldowns } from './cooldowns.ts'
import { STORE_WAIT_MS } from './store-wait.ts'

describe('loadCooldowns', () => {
  afterEach(() => vi.useRealTimers())

  it('starts with no cooldowns when IndexedDB never answers, instead of holding every turn', async () => {
    vi.useFakeTimers()
    const hung: UseStore = () => new Promise<never>(() => {})
    const loading = loadCooldowns('https://docs.example', hung)
    await vi.advanceTimersByTimeAsync(STORE_WAIT_MS)
    expect((await loading).entries()).toEqual([])
  })
})
