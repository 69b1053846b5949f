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
