import { describe, expect, it } from 'vitest'
import { cooccurrenceSignal, EVERYDAY_WORDS, gate, meaningSignal, subjectSignal, vocabularySignal, wordWeight, type GateConfig, type QuestionWord } from './gate.ts'

const config: GateConfig = { vocabularyFloor: 0.6, threshold: 0.5, weights: { cooccurrence: 0.3, meaning: 0.7 }, lexicalThreshold: 0.35, meaningFrom: 'lexical' }

// "How do I keep a sourdough starter alive?" against docs that say "keep" and "starter" but never "sourdough".
const ranks = { keep: 538, sourdough: 59258, starter: 5430, alive: 2793 }
const word = (w: keyof typeof ranks): QuestionWord => ({ terms: [w], rank: ranks[w], named: false })
const words = (['keep', 'sourdough', 'starter', 'alive'] as const).map(word)
const docs = new Set(['keep', 'starter'])

describe('gate signals', () => {
  it('weighs rare words far above common ones, and an unranked word as the rarest', () => {
    expect(wordWeight(59258, 60000) / wordWeight(538, 60000)).toBeGreaterThan(2.5)
    expect(wordWeight(undefined, 60000)).toBeGreaterThan(wordWeight(59999, 60000))
  })

  it('vocabulary: the rarity-weighted share of question words the docs use anywhere', () => {
    const v = vocabularySignal(words, 60000, (t) => docs.has(t))
    const share = (wordWeight(538, 60000) + wordWeight(5430, 60000)) / words.reduce((s, w) => s + wordWeight(w.rank, 60000), 0)
    expect(v).toBeCloseTo(share, 10)
    // Two of four words occur, but the heavy one does not: well under a plain word count's 0.5.
    expect(v).toBeLessThan(0.4)
  })

  it('vocabulary: an identifier typed in the question counts when its whole term or all of its parts occur', () => {
    const id: QuestionWord = { terms: ['getsignedcooki', 'sign', 'cooki'], rank: undefined, named: true }
    expect(vocabularySignal([id], 60000, (t) => ['sign', 'cooki'].includes(t))).toBe(1)
    expect(vocabularySignal([id], 60000, (t) => t === 'getsignedcooki')).toBe(1)
    expect(vocabularySignal([id], 60000, (t) => t === 'cooki')).toBe(0)
  })

  it('cooccurrence: the best share one of the first three hits holds together', () => {
    const hits = [{ terms: ['keep'] }, { terms: ['starter', 'alive'] }, { terms: [] }, { terms: ['keep', 'sourdough', 'starter', 'alive'] }]
    const expected = (wordWeight(5430, 60000) + wordWeight(2793, 60000)) / words.reduce((s, w) => s + wordWeight(w.rank, 60000), 0)
    expect(cooccurrenceSignal(words, 60000, hits)).toBeCloseTo(expected, 10)
    expect(cooccurrenceSignal(words, 60000, [])).toBe(0)
  })

  // "How do I configure Angular's dependency injection providers?" against docs that hold every word but "Angular" in the passages matching it.
  const angular: QuestionWord[] = [
    { terms: ['configur'], rank: 51591, named: false },
    { terms: ['angular'], rank: 19662, named: true },
    { terms: ['depend'], rank: 18306, named: false },
    { terms: ['provid'], rank: 6230, named: false },
  ]
  const candidates = [{ terms: ['configur', 'provid'] }, { terms: ['depend', 'provid'] }]

  it('subject: the share of the names it gives that a passage matching the question holds', () => {
    expect(subjectSignal(angular, 60000, candidates)).toBe(0)
    // Held by any candidate, not only the first few.
    expect(subjectSignal(angular, 60000, [...candidates, { terms: [] }, { terms: ['angular'] }])).toBe(1)
    const two = [...angular, { terms: ['webpack'], rank: undefined, named: true }]
    expect(subjectSignal(two, 60000, [...candidates, { terms: ['angular'] }])).toBeCloseTo(wordWeight(19662, 60000) / (wordWeight(19662, 60000) + wordWeight(undefined, 60000)), 10)
  })

  it('subject: an identifier counts as held when one passage holds its whole term or all of its parts', () => {
    const id: QuestionWord[] = [{ terms: ['navigationstack', 'navig', 'stack'], rank: undefined, named: true }]
    expect(subjectSignal(id, 60000, [{ terms: ['navig', 'stack'] }])).toBe(1)
    expect(subjectSignal(id, 60000, [{ terms: ['navig'] }, { terms: ['stack'] }])).toBe(0)
  })

  it('subject: a question naming nothing rare checks nothing (1), nor does one whose words have no ranks', () => {
    expect(subjectSignal(angular.map((w) => ({ ...w, named: false })), 60000, candidates)).toBe(1)
    // "Chinese" and "Pages" are capitalised everyday words, not a subject.
    expect(subjectSignal([{ terms: ['chines'], rank: 299, named: true }, { terms: ['page'], rank: EVERYDAY_WORDS, named: true }], 60000, candidates)).toBe(1)
    expect(subjectSignal(angular, 0, candidates)).toBe(1)
  })

  it('meaning: the cosine with the first passage, never below zero, 0 with none', () => {
    const cos = [0.1, 0.6, 0.2, 0.95]
    const hits = cos.map((_, ordinal) => ({ ordinal }))
    expect(meaningSignal(hits, (o) => cos[o]!)).toBe(0.1)
    expect(meaningSignal(hits.slice(3), (o) => cos[o]!)).toBe(0.95)
    expect(meaningSignal(hits, () => -0.3)).toBe(0)
    expect(meaningSignal([], () => 1)).toBe(0)
  })
})

describe('the gate', () => {
  it('refuses below the vocabulary floor whatever the evidence, and says so', () => {
    expect(gate({ vocabulary: 0.59, cooccurrence: 1, meaning: 1 }, config)).toMatchObject({ pass: false, refusedFor: 'vocabulary' })
    expect(gate({ vocabulary: 0.59, cooccurrence: 1 }, config)).toMatchObject({ pass: false, refusedFor: 'vocabulary' })
  })

  it('refuses below the subject floor whatever the evidence, in both modes, and says so', () => {
    const checked = { ...config, subjectFloor: 1 }
    expect(gate({ vocabulary: 1, subject: 0.7, cooccurrence: 1, meaning: 1 }, checked)).toMatchObject({ pass: false, refusedFor: 'subject', signals: { subject: 0.7 } })
    expect(gate({ vocabulary: 1, subject: 0.7, cooccurrence: 1 }, checked)).toMatchObject({ pass: false, refusedFor: 'subject' })
    expect(gate({ vocabulary: 1, subject: 1, cooccurrence: 1, meaning: 1 }, checked)).toMatchObject({ pass: true })
    // The vocabulary floor speaks first; a config without a subject floor (an older index) checks none.
    expect(gate({ vocabulary: 0.5, subject: 0, cooccurrence: 1, meaning: 1 }, checked)).toMatchObject({ refusedFor: 'vocabulary' })
    expect(gate({ vocabulary: 1, subject: 0, cooccurrence: 1, meaning: 1 }, config)).toMatchObject({ pass: true })
  })

  it('past the floor, weighs cooccurrence and meaning against the hybrid threshold', () => {
    expect(gate({ vocabulary: 0.9, cooccurrence: 0.5, meaning: 0.5 }, config)).toEqual({
      pass: true, score: 0.5, signals: { vocabulary: 0.9, cooccurrence: 0.5, meaning: 0.5 },
    })
    expect(gate({ vocabulary: 0.9, cooccurrence: 1, meaning: 0.2 }, config)).toMatchObject({ pass: false, score: 0.44, refusedFor: 'evidence' })
    // A negative cosine counts as no agreement, never as negative evidence.
    expect(gate({ vocabulary: 1, cooccurrence: 1, meaning: -0.5 }, config).score).toBe(0.3)
  })

  it('in lexical-only mode scores cooccurrence alone against the lexical threshold', () => {
    expect(gate({ vocabulary: 1, cooccurrence: 0.35 }, config)).toMatchObject({ pass: true, score: 0.35 })
    expect(gate({ vocabulary: 1, cooccurrence: 0.34 }, config)).toMatchObject({ pass: false, refusedFor: 'evidence' })
  })
})
