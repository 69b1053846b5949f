import { describe, expect, it } from 'vitest'
import { coverageOf, inverseDocumentFrequency } from './coverage.ts'

describe('coverage', () => {
  it('weighs a term by how few documents hold it', () => {
    expect(inverseDocumentFrequency(1, 100)).toBeGreaterThan(inverseDocumentFrequency(10, 100))
    expect(inverseDocumentFrequency(10, 100)).toBeGreaterThan(inverseDocumentFrequency(90, 100))
    expect(inverseDocumentFrequency(100, 100)).toBeGreaterThan(0)
  })

  it('gives a passage holding the rare term more of the question than one holding the common term', () => {
    // "astro" is in every hit, "hydrat" in one.
    const hits = [['astro', 'hydrat'], ['astro'], ['astro'], ['astro']]
    const share = coverageOf(['astro', 'hydrat'], hits, 4)
    expect(share(['astro', 'hydrat'])).toBeCloseTo(1)
    expect(share(['hydrat'])).toBeGreaterThan(0.5)
    expect(share(['astro'])).toBeLessThan(0.5)
    expect(share(['hydrat']) + share(['astro'])).toBeCloseTo(1)
    expect(share([])).toBe(0)
  })

  it('counts a question term no document holds, so a passage covers less of a question the docs half know', () => {
    const share = coverageOf(['cooki', 'banana'], [['cooki']], 10)
    expect(share(['cooki'])).toBeLessThan(0.5)
  })

  it('counts a matched term once, and ignores terms that are not the question\'s', () => {
    const share = coverageOf(['a', 'b'], [['a'], ['b']], 2)
    expect(share(['a', 'a', 'z'])).toBeCloseTo(0.5)
  })

  it('covers nothing of a question without terms', () => {
    expect(coverageOf([], [], 10)([])).toBe(0)
  })
})
