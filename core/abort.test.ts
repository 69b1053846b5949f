import { describe, expect, it } from 'vitest'
import { untilAborted } from './abort.ts'

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
