import { describe, expect, it } from 'vitest'
import { ANSWERABLE_REFUSED_CAP, refusals, tuneGate, type GateSample } from './tune-gate.ts'

let n = 0
const sample = (answerable: boolean, cooccurrence: number, meaning: number, vocabulary = 1): GateSample => ({
  id: String(n++),
  answerable,
  signals: { vocabulary, cooccurrence, meaning },
})

// 40 answerable questions whose meaning spreads from 0.40 to 0.79, cooccurrence from 1.0 down to 0.61;
// off-topic ones: low meaning; one with words the docs never use; one that looks answerable.
const answerable = Array.from({ length: 40 }, (_, i) => sample(true, 1 - i / 100, 0.4 + i / 100))
const offTopic = [sample(false, 0.9, 0.2), sample(false, 0.3, 0.35), sample(false, 0.8, 0.3), sample(false, 1, 1, 0.2), sample(false, 1, 0.9)]

describe('tuneGate', () => {
  it('refuses at most ANSWERABLE_REFUSED_CAP of the answerable questions unless told otherwise', () => {
    // 200 answerable: three low ones, then an off-topic question, a fourth low one, another off-topic one, the rest high.
    const low = [0.1, 0.12, 0.14].map((x) => sample(true, x, x))
    const samples = [...low, sample(false, 0.15, 0.15), sample(true, 0.16, 0.16), sample(false, 0.17, 0.17), ...Array.from({ length: 196 }, (_, i) => sample(true, 0.5 + i / 1000, 0.5 + i / 1000))]
    // 1.5% of 200 allows three refusals, which buy the first off-topic question; 2% allows a fourth, which buys the second.
    expect(ANSWERABLE_REFUSED_CAP * 200).toBe(3)
    expect(tuneGate(samples, { vocabularyFloor: 0, meaningFrom: 'lexical' }).train).toMatchObject({ answerableRefused: 3, offTopicRefused: 1 })
    expect(tuneGate(samples, { vocabularyFloor: 0, maxAnswerableRefused: 0.02, meaningFrom: 'lexical' }).train).toMatchObject({ answerableRefused: 4, offTopicRefused: 2 })
  })

  it('within its allowance, refuses the most off-topic questions', () => {
    // 2.5% of 40: one answerable refusal allowed.
    const tuned = tuneGate([...answerable, ...offTopic], { vocabularyFloor: 0.6, maxAnswerableRefused: 0.025, meaningFrom: 'lexical' })
    expect(tuned.train.answerableRefused).toBeLessThanOrEqual(1)
    // All but the one that looks answerable: three on evidence, one on the vocabulary floor.
    expect(tuned.train.offTopicRefused).toBe(4)
    expect(tuned.gate.vocabularyFloor).toBe(0.6)
    expect(tuned.gate.weights.cooccurrence + tuned.gate.weights.meaning).toBeCloseTo(1, 10)
  })

  it('puts the threshold in the middle of the gap between the highest score it refuses and the lowest it passes', () => {
    const tuned = tuneGate([sample(true, 0, 0.5), sample(true, 0, 0.7), sample(false, 0, 0.1)], { vocabularyFloor: 0, maxAnswerableRefused: 0.5, meaningFrom: 'lexical' })
    // Meaning alone, between the off-topic 0.1 and the answerable 0.5.
    expect(tuned.gate.weights.meaning).toBe(1)
    expect(tuned.gate.threshold).toBeCloseTo(0.3, 10)
  })

  it('spends none of its answerable budget where refusing one buys no off-topic refusal', () => {
    const samples = [sample(true, 0, 0.5), sample(true, 0, 0.6), sample(true, 0, 0.7), sample(false, 0, 0.1), sample(false, 0, 0.55)]
    // One answerable refused (0.5) buys the off-topic 0.55: take it, between 0.55 and 0.6.
    expect(tuneGate(samples, { vocabularyFloor: 0, maxAnswerableRefused: 0.4, meaningFrom: 'lexical' }).gate.threshold).toBeCloseTo(0.575, 10)
    // Without the 0.55 it buys nothing: refuse none.
    const tuned = tuneGate(samples.slice(0, 4), { vocabularyFloor: 0, maxAnswerableRefused: 0.4, meaningFrom: 'lexical' })
    expect(tuned.train).toEqual({ answerable: 3, answerableRefused: 0, offTopic: 1, offTopicRefused: 1 })
    expect(tuned.gate.threshold).toBeCloseTo(0.3, 10)
  })

  it('with a subject floor, refuses what it refuses in both modes and counts its answerable refusals against the budget', () => {
    const named = (s: GateSample, subject: number): GateSample => ({ ...s, signals: { ...s.signals, subject } })
    // The off-topic question that looks answerable names something no passage holds; so does one answerable question.
    const samples = [...answerable.slice(1), named(answerable[0]!, 0.5), ...offTopic.slice(0, 4), named(offTopic[4]!, 0)]
    // 2.5% of 40: one answerable refusal allowed, which the subject floor spends.
    const tuned = tuneGate(samples, { vocabularyFloor: 0.6, subjectFloor: 1, maxAnswerableRefused: 0.025, meaningFrom: 'lexical' })
    expect(tuned.gate.subjectFloor).toBe(1)
    expect(tuned.train).toEqual({ answerable: 40, answerableRefused: 1, offTopic: 5, offTopicRefused: 5 })
    expect(tuned.lexicalTrain.offTopicRefused).toBeGreaterThanOrEqual(2)
    expect(refusals(samples, { ...tuned.gate, lexicalThreshold: 0 }, 'lexical')).toMatchObject({ answerableRefused: 1, offTopicRefused: 2 })
    // Without it the same samples keep the one that looks answerable.
    expect(tuneGate(samples, { vocabularyFloor: 0.6, maxAnswerableRefused: 0.025, meaningFrom: 'lexical' }).train.offTopicRefused).toBe(4)
  })

  it('refusals() counts a setting on questions it was not chosen on, hybrid or lexical-only', () => {
    const config = { vocabularyFloor: 0.6, threshold: 0.5, weights: { cooccurrence: 0.5, meaning: 0.5 }, lexicalThreshold: 0.85, meaningFrom: 'lexical' as const }
    const checked = [sample(true, 0.9, 0.2), sample(true, 0.2, 0.9), sample(false, 0.1, 0.1), sample(false, 0.9, 0.9, 0.1)]
    expect(refusals(checked, config)).toEqual({ answerable: 2, answerableRefused: 0, offTopic: 2, offTopicRefused: 2 })
    expect(refusals(checked, config, 'lexical')).toEqual({ answerable: 2, answerableRefused: 1, offTopic: 2, offTopicRefused: 2 })
  })
})
