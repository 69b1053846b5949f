import { describe, expect, it } from 'vitest'
import { answer } from './answer.ts'
import type { WorkerReply, WorkerRequest } from './protocol.ts'

const stats: WorkerRequest = { id: 7, type: 'stats' }

describe('answer', () => {
  it('posts the handler\'s reply', async () => {
    const posted: WorkerReply[] = []
    await answer(stats, async () => ({ id: 7, ok: true, type: 'stats', stats: { fetchedBytes: 1, cachedHits: 0 } }), (r) => posted.push(r))
    expect(posted).toEqual([{ id: 7, ok: true, type: 'stats', stats: { fetchedBytes: 1, cachedHits: 0 } }])
  })

  it('posts a failed request as an error reply', async () => {
    const posted: WorkerReply[] = []
    await answer(stats, () => Promise.reject(new Error('index part texts/2.json.gz could not be read: HTTP 404')), (r) => posted.push(r))
    expect(posted).toEqual([{ id: 7, ok: false, error: 'index part texts/2.json.gz could not be read: HTTP 404' }])
  })

  it('still answers when the reply itself cannot be posted, so the panel is not left waiting', async () => {
    const posted: WorkerReply[] = []
    const post = (r: WorkerReply) => {
      if (r.ok) throw new DOMException('could not be cloned', 'DataCloneError')
      posted.push(r)
    }
    await answer(stats, async () => ({ id: 7, ok: true, type: 'stats', stats: { fetchedBytes: 0, cachedHits: 0 } }), post)
    expect(posted).toEqual([{ id: 7, ok: false, error: 'docpilot: the retrieval worker could not send its reply: could not be cloned' }])
  })
})
