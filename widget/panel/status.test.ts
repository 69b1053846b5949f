import { describe, expect, it } from 'vitest'
import { COPY } from './copy.ts'
import { settledStatus } from './status.ts'
import type { PassageView } from './view.ts'

const passage = (url: string, anchor: string, id: string): PassageView => ({ id, url, anchor, title: url, trail: [url, anchor], text: 'x', score: 1 })
const passages = [passage('/proxy', 'node', 'a'), passage('/proxy', 'routes', 'b'), passage('/cli', 'dev', 'c')]

describe('settledStatus of the search view', () => {
  it('announces what the lead line shows when nothing matches closely: the nearest passages, not a count', () => {
    expect(settledStatus({ phase: 'settled', state: 'search', passages, closeMatch: false })).toBe(COPY.nearest)
  })

  it('announces the count of results when the docs cover the question (or the gate said nothing)', () => {
    expect(settledStatus({ phase: 'settled', state: 'search', passages, closeMatch: true })).toBe('3 results on 2 pages')
    expect(settledStatus({ phase: 'settled', state: 'search', passages })).toBe('3 results on 2 pages')
  })

  it('announces that nothing matched when there are no passages at all', () => {
    expect(settledStatus({ phase: 'settled', state: 'search', passages: [], closeMatch: false })).toBe(COPY.noResults)
  })
})

describe('settledStatus of a rate-limited turn', () => {
  const receipt = (stoppedBy?: 'client_rate_limited') => ({ version: 1 as const, outcome: 'rate-limited' as const, retrieval: null, stages: { retrieveMs: 1, answerMs: 1, totalMs: 2 }, attempts: [], ladder: null, ...(stoppedBy ? { stoppedBy } : {}) })

  it("tells a reader the proxy slowed down to wait seconds, not that the day's allowance is spent", () => {
    const said = settledStatus({ phase: 'settled', state: 'rate-limited', passages, resetAt: Date.now() + 20_500, receipt: receipt('client_rate_limited') })
    expect(said).toMatch(/^You're asking faster than this site allows\. Ask again in 2[01] seconds\.$/)
    expect(said).not.toMatch(/allowance|reachable/)
  })

  it("keeps the daily allowance's words for a spent day", () => {
    expect(settledStatus({ phase: 'settled', state: 'rate-limited', passages, receipt: receipt() })).toBe("Today's AI allowance is spent.")
  })
})

describe('settledStatus of an error', () => {
  it('says nothing on the status line: the error has its own role="alert" (Turn.tsx), and one voice says it', () => {
    expect(settledStatus({ phase: 'settled', state: 'error' })).toBe('')
  })
})
