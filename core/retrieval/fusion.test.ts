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

  it('rrf: weighted reciprocal ranks', () => {
    const out = fuse(lexical, dense, { method: 'rrf', k: 60, lexicalWeight: 1, denseWeight: 1 })
    expect(out[0]!.id).toBe('b')
    expect(out[0]!.score).toBeCloseTo(1 / 62 + 1 / 62, 10)
  })
})
