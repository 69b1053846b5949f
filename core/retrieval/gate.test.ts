import { describe, expect, it } from 'vitest'
import { agreementSignal, DEFAULT_GATE, gate, lexicalSignal } from './gate.ts'

describe('the refusal gate', () => {
  const config = { threshold: 0.5, lexicalThreshold: 0.4, weights: { lexical: 0.4, dense: 0.6 } }

  it('mixes lexical coverage and agreement with the manifest weights in hybrid mode', () => {
    expect(gate({ lexical: 0.5, dense: 0.5 }, config)).toEqual({ pass: true, score: 0.5 })
    expect(gate({ lexical: 1, dense: 0.1 }, config)).toEqual({ pass: false, score: 0.46 })
    // A negative cosine counts as no agreement, never as negative evidence.
    expect(gate({ lexical: 1, dense: -0.5 }, config).score).toBe(0.4)
  })

  it('uses the lexical threshold alone in lexical-only mode', () => {
    expect(gate({ lexical: 0.42 }, config)).toEqual({ pass: true, score: 0.42 })
    expect(gate({ lexical: 0.39 }, config)).toEqual({ pass: false, score: 0.39 })
  })

  it('reads its signals from the first three lexical hits only', () => {
    const hits = [0.2, 0.5, 0.3, 0.9].map((coverage, ordinal) => ({ ordinal, coverage }))
    expect(lexicalSignal(hits)).toBe(0.5)
    const cosine = [0.1, 0.6, 0.2, 0.95]
    expect(agreementSignal(hits, (o) => cosine[o]!)).toBe(0.6)
    expect(agreementSignal([], () => 1)).toBe(0)
  })

  it('ships defaults with hybrid weights that sum to one', () => {
    expect(DEFAULT_GATE.weights.lexical + DEFAULT_GATE.weights.dense).toBeCloseTo(1, 10)
  })
})
