import { afterEach, describe, expect, it, vi } from 'vitest'
import { untilAborted, withinMs } from './abort.ts'

const never = () => new Promise<never>(() => {})

describe('untilAborted', () => {
  it('settles as the promise does while the signal stays quiet', async () => {
    const ac = new AbortController()
    await expect(untilAborted(Promise.resolve(7), ac.signal)).resolves.toBe(7)
    await expect(untilAborted(Promise.reject(new Error('boom')), ac.signal)).rejects.toThrow('boom')
    await expect(untilAborted(Promise.resolve(8), undefined)).resolves.toBe(8)
  })

  it("rejects with the signal's reason as soon as it fires, even when the work ignores the signal", async () => {
    const ac = new AbortController()
    const pending = untilAborted(never(), ac.signal)
    const reason = new Error('stopped')
    ac.abort(reason)
    await expect(pending).rejects.toBe(reason)
  })

  it('rejects at once on a signal already fired, and leaves no unhandled rejection behind', async () => {
    const reason = new Error('late')
    const work = Promise.reject(new Error('ignored'))
    await expect(untilAborted(work, AbortSignal.abort(reason))).rejects.toBe(reason)
  })
})

describe('withinMs', () => {
  afterEach(() => vi.useRealTimers())

  it('settles as the promise does when it is in time', async () => {
    await expect(withinMs(Promise.resolve(7), 50, () => new Error('late'))).resolves.toBe(7)
    await expect(withinMs(Promise.reject(new Error('boom')), 50, () => new Error('late'))).rejects.toThrow('boom')
  })

  it('rejects with the reason once the time is up, however long the work would take', async () => {
    vi.useFakeTimers()
    const pending = withinMs(never(), 2000, () => new Error('cache lookup too slow'))
    const failed = expect(pending).rejects.toThrow('cache lookup too slow')
    await vi.advanceTimersByTimeAsync(2000)
    await failed
  })
})
