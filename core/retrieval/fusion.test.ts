import { describe, expect, it } from 'vitest'
import { fuse } from './fusion.ts'

const lexical = [
  { id: 'a', score: 20 },
  { id: 'b', score: 10 },
]
const dense = [
  { id: 'c', score: 0.9 },
  { id: 'b', score: 0.8 },
]

describe('fusion', () => {
  it('linear: divides BM25 by the best score, adds weighted cosines, and fills a missing channel exactly', () => {
    const cos: Record<string, number> = { a: 0.1, b: 0.8, c: 0.9 }
    const out = fuse(lexical, dense, { method: 'linear', lexicalWeight: 0.8, denseWeight: 0.2 }, (id) => cos[id])
    expect(out.map((f) => f.id)).toEqual(['a', 'b', 'c'])
    expect(out[0]).toMatchObject({ score: 0.8 * 1 + 0.2 * 0.1, channels: { lexical: 20, dense: 0.1 } })
    expect(out[1]!.score).toBeCloseTo(0.8 * 0.5 + 0.2 * 0.8, 10)
    expect(out[2]).toMatchObject({ score: 0.2 * 0.9, channels: { dense: 0.9 } })
  })

  it('linear: a strong enough dense channel can lift a passage above a weak lexical match', () => {
    const out = fuse(lexical, dense, { method: 'linear', lexicalWeight: 0.5, denseWeight: 0.5 })
    expect(out.map((f) => f.id)).toEqual(['b', 'a', 'c'])
  })

  it('linear: coverage lifts the passage holding all of the question over one that repeats part of it', () => {
    const partial = { id: 'repeats', score: 30, coverage: 0.4 }
    const whole = { id: 'holds-all', score: 24, coverage: 1 }
    const cos = { repeats: 0.5, 'holds-all': 0.5 } as Record<string, number>
    const without = fuse([partial, whole], [], { method: 'linear', lexicalWeight: 0.3, denseWeight: 0.7 }, (id) => cos[id])
    expect(without.map((f) => f.id)).toEqual(['repeats', 'holds-all'])
    const withCoverage = fuse([partial, whole], [], { method: 'linear', lexicalWeight: 0.3, denseWeight: 0.7, coverageWeight: 0.3 }, (id) => cos[id])
    expect(withCoverage.map((f) => f.id)).toEqual(['holds-all', 'repeats'])
    expect(withCoverage[0]!.score).toBeCloseTo(0.3 * 0.8 + 0.7 * 0.5 + 0.3 * 1, 10)
  })

  it('linear: a dense-only passage covers nothing of the question', () => {
    const out = fuse([{ id: 'a', score: 10, coverage: 1 }], [{ id: 'c', score: 0.9 }], { method: 'linear', lexicalWeight: 0.3, denseWeight: 0.7, coverageWeight: 0.3 }, () => 0.2)
    expect(out.find((f) => f.id === 'c')!.score).toBeCloseTo(0.7 * 0.9, 10)
  })

  it('linear: a long section is scored by its best window on each channel, and shown by its best window', () => {
    // Window w1 holds the question's words, its neighbour w2 the passage whose meaning matches; "other" is one
    // short section a little better than either window alone.
    const lexicalHits = [
      { id: 'w1', score: 10, coverage: 1 },
      { id: 'other', score: 8, coverage: 0.8 },
    ]
    const cos: Record<string, number> = { w1: 0.2, w2: 0.6, other: 0.5 }
    const denseHits = [{ id: 'w2', score: 0.6 }, { id: 'other', score: 0.5 }]
    const config = { method: 'linear', lexicalWeight: 0.2, denseWeight: 0.6, coverageWeight: 0.2 } as const
    const windows = fuse(lexicalHits, denseHits, config, (id) => cos[id])
    expect(windows[0]!.id).toBe('other')
    const section: Record<string, string> = { w1: 'long', w2: 'long', other: 'other' }
    const sections = fuse(lexicalHits, denseHits, config, (id) => cos[id], (id) => section[id]!)
    expect(sections.map((f) => f.id)).toEqual(['w1', 'w2', 'other'])
    expect(sections[0]!.score).toBeCloseTo(0.2 * 1 + 0.6 * 0.6 + 0.2 * 1, 10)
    // Each window keeps its own channel scores; only the ranking pools them.
    expect(sections[0]!.channels).toEqual({ lexical: 10, dense: 0.2 })
    expect(sections.find((f) => f.id === 'other')!.score).toBeCloseTo(windows[0]!.score, 10)
  })

  it('rrf: weighted reciprocal ranks', () => {
    const out = fuse(lexical, dense, { method: 'rrf', k: 60, lexicalWeight: 1, denseWeight: 1 })
    expect(out[0]!.id).toBe('b')
    expect(out[0]!.score).toBeCloseTo(1 / 62 + 1 / 62, 10)
  })
})
