/**
 * Choosing the gate's weights and thresholds from measured signals, and
 * checking a choice on questions it was not chosen on.
 *
 * Refusing a question the docs answer costs more than answering one they do
 * not (the model can still say the docs do not cover it), so the rule is:
 * refuse at most `maxAnswerableRefused` of the answerable questions, and among
 * the settings that do, take the one that refuses the most off-topic ones,
 * then the one that refuses the fewest answerable ones (ties: the widest gap
 * around the threshold). The threshold sits in the middle of the gap between
 * the highest score it refuses and the lowest answerable score it passes, not
 * on a measured score, so it does not hug the tuning set. The floors (vocabulary,
 * subject) are not tuned: they are given, and what they refuse counts against
 * the answerable questions the threshold may refuse (tuning.ts).
 */
import { gate, type GateConfig, type GateSignals } from '../retrieval/gate.ts'

/**
 * The share of the answerable questions a tuning may refuse. 1.5%, below the
 * 3% docpilot aims for on a site: a setting spends all it is allowed on the
 * questions it is chosen on, and a new site's answerable questions score a
 * little lower. With the offline default on four corpora (2026-12-03,
 * docs/gate.md), chosen on all four a 2.5% allowance refuses 6 of the 240
 * answerable questions and 1.5% refuses 2; chosen on three and counted on
 * the fourth, in turn, 6 against 5 (and 43 against 40 of the 52 off-topic).
 */
export const ANSWERABLE_REFUSED_CAP = 0.015

export interface GateSample {
  id: string
  answerable: boolean
  /** Hybrid signals; lexical-only tuning reads all but meaning. */
  signals: GateSignals
}

export interface Refusals {
  answerable: number
  answerableRefused: number
  offTopic: number
  offTopicRefused: number
}

export interface TuneOptions {
  vocabularyFloor: number
  /** The subject floor the chosen setting will run with (default: none). */
  subjectFloor?: number
  /** Which passage the samples' meaning signal was read from (it is measured, not tuned here). */
  meaningFrom: GateConfig['meaningFrom']
  /** Share of answerable questions the chosen setting may refuse (default ANSWERABLE_REFUSED_CAP). */
  maxAnswerableRefused?: number
  /** Step of the meaning weight grid (default 0.1). */
  step?: number
}

export interface Tuned {
  gate: GateConfig
  /** What the chosen setting does on the questions it was chosen on. */
  train: Refusals
  lexicalTrain: Refusals
}

export function refusals(samples: readonly GateSample[], config: GateConfig, mode: 'hybrid' | 'lexical' = 'hybrid'): Refusals {
  const r: Refusals = { answerable: 0, answerableRefused: 0, offTopic: 0, offTopicRefused: 0 }
  for (const s of samples) {
    // Lexical-only: every signal but meaning.
    const { meaning: _, ...withoutMeaning } = s.signals
    const signals = mode === 'lexical' ? withoutMeaning : s.signals
    const refused = !gate(signals, config).pass
    if (s.answerable) {
      r.answerable++
      if (refused) r.answerableRefused++
    } else {
      r.offTopic++
      if (refused) r.offTopicRefused++
    }
  }
  return r
}

/**
 * The threshold for one way of scoring: given each sample's score (null: a
 * floor refuses it anyway), the threshold that refuses at most `allowed`
 * answerable questions and, within that, the most off-topic ones, and then
 * the fewest answerable ones: an answerable question refused that buys no
 * off-topic refusal is a loss only. It sits in the middle of the gap between
 * the highest score it refuses and the lowest answerable score it passes.
 */
function bestThreshold(scored: readonly { answerable: boolean; score: number | null }[], allowed: number) {
  const answerable = scored.filter((s) => s.answerable && s.score !== null).map((s) => s.score!).sort((a, b) => a - b)
  const offTopic = scored.filter((s) => !s.answerable && s.score !== null).map((s) => s.score!)
  const floorAnswerable = scored.filter((s) => s.answerable && s.score === null).length
  const floorOffTopic = scored.filter((s) => !s.answerable && s.score === null).length
  const budget = allowed - floorAnswerable
  if (budget < 0 || answerable.length === 0) return null
  let best: { threshold: number; offRefused: number; answerableRefused: number; gap: number } | null = null
  for (let refused = 0; refused <= Math.min(budget, answerable.length - 1); refused++) {
    const lowestPassed = answerable[refused]!
    const below = [...(refused > 0 ? [answerable[refused - 1]!] : []), ...offTopic.filter((s) => s < lowestPassed)]
    const highestRefused = below.length ? Math.max(...below) : lowestPassed - 0.04
    const threshold = round((highestRefused + lowestPassed) / 2)
    const offRefused = floorOffTopic + offTopic.filter((s) => s < threshold).length
    if (!best || offRefused > best.offRefused) best = { threshold, offRefused, answerableRefused: floorAnswerable + refused, gap: lowestPassed - highestRefused }
  }
  return best
}

export function tuneGate(samples: readonly GateSample[], opts: TuneOptions): Tuned {
  const allowed = Math.floor((opts.maxAnswerableRefused ?? ANSWERABLE_REFUSED_CAP) * samples.filter((s) => s.answerable).length)
  const step = opts.step ?? 0.1
  const subjectFloor = opts.subjectFloor ?? 0
  const passesFloor = (s: GateSample) => s.signals.vocabulary >= opts.vocabularyFloor && (s.signals.subject ?? 1) >= subjectFloor

  let best: { meaning: number; threshold: number; offRefused: number; answerableRefused: number; gap: number } | null = null
  for (let meaning = 0; meaning <= 1 + 1e-9; meaning += step) {
    const m = round(meaning)
    const scored = samples.map((s) => ({
      answerable: s.answerable,
      score: passesFloor(s) ? (1 - m) * s.signals.cooccurrence + m * Math.max(0, s.signals.meaning ?? 0) : null,
    }))
    const t = bestThreshold(scored, allowed)
    if (t && (!best || better(t, best))) best = { meaning: m, ...t }
  }
  const lexical = bestThreshold(
    samples.map((s) => ({ answerable: s.answerable, score: passesFloor(s) ? s.signals.cooccurrence : null })),
    allowed,
  )
  const config: GateConfig = {
    vocabularyFloor: opts.vocabularyFloor,
    ...(opts.subjectFloor === undefined ? {} : { subjectFloor: opts.subjectFloor }),
    threshold: best?.threshold ?? 0,
    weights: { cooccurrence: round(1 - (best?.meaning ?? 0)), meaning: best?.meaning ?? 0 },
    lexicalThreshold: lexical?.threshold ?? 0,
    meaningFrom: opts.meaningFrom,
  }
  return { gate: config, train: refusals(samples, config), lexicalTrain: refusals(samples, config, 'lexical') }
}

type Candidate = NonNullable<ReturnType<typeof bestThreshold>>

/** More off-topic questions refused, then fewer answerable ones, then the wider gap around the threshold. */
function better(a: Candidate, b: Candidate): boolean {
  if (a.offRefused !== b.offRefused) return a.offRefused > b.offRefused
  if (a.answerableRefused !== b.answerableRefused) return a.answerableRefused < b.answerableRefused
  return a.gap > b.gap
}

function round(x: number): number {
  return Math.round(x * 1e4) / 1e4
}
