/**
 * Choosing the gate's weights and thresholds from measured signals, and
 * checking a choice on questions it was not chosen on.
 *
 * Refusing a question the docs answer costs more than answering one they do
 * not (the model can still say the docs do not cover it), so the rule is:
 * refuse at most `maxAnswerableRefused` of the answerable questions, and among
 * the settings that do, take the one that refuses the most off-topic ones
 * (ties: the widest gap around the threshold). The threshold sits halfway
 * between the last answerable score it refuses and the next one, not on a
 * measured score, so it does not hug the tuning set. The vocabulary floor is
 * not tuned: it comes from measurements on other sites (tuning.ts).
 */
import { gate, type GateConfig, type GateSignals } from '../retrieval/gate.ts'

export interface GateSample {
  id: string
  answerable: boolean
  /** Hybrid signals; lexical-only tuning reads vocabulary and cooccurrence only. */
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
  /** Which passage the samples' meaning signal was read from (it is measured, not tuned here). */
  meaningFrom: GateConfig['meaningFrom']
  /** Share of answerable questions the chosen setting may refuse (default 0.025). */
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
    const signals = mode === 'lexical' ? { vocabulary: s.signals.vocabulary, cooccurrence: s.signals.cooccurrence } : s.signals
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
 * The threshold for one way of scoring: given each sample's score (null: the
 * floor refuses it anyway), the threshold that refuses at most `allowed`
 * answerable questions, and how many off-topic ones it then refuses.
 */
function bestThreshold(scored: readonly { answerable: boolean; score: number | null }[], allowed: number) {
  const passing = scored.filter((s) => s.answerable && s.score !== null).map((s) => s.score!).sort((a, b) => a - b)
  const floorRefused = scored.filter((s) => s.answerable && s.score === null).length
  const budget = allowed - floorRefused
  if (budget < 0 || passing.length === 0) return null
  const below = budget > 0 ? passing[Math.min(budget, passing.length) - 1]! : passing[0]! - 0.02
  const above = passing[budget] ?? below + 0.02
  const threshold = round((below + above) / 2)
  const offRefused = scored.filter((s) => !s.answerable && (s.score === null || s.score < threshold)).length
  return { threshold, offRefused, gap: above - below }
}

export function tuneGate(samples: readonly GateSample[], opts: TuneOptions): Tuned {
  const allowed = Math.floor((opts.maxAnswerableRefused ?? 0.025) * samples.filter((s) => s.answerable).length)
  const step = opts.step ?? 0.1
  const passesFloor = (s: GateSample) => s.signals.vocabulary >= opts.vocabularyFloor

  let best: { meaning: number; threshold: number; offRefused: number; gap: number } | null = null
  for (let meaning = 0; meaning <= 1 + 1e-9; meaning += step) {
    const m = round(meaning)
    const scored = samples.map((s) => ({
      answerable: s.answerable,
      score: passesFloor(s) ? (1 - m) * s.signals.cooccurrence + m * Math.max(0, s.signals.meaning ?? 0) : null,
    }))
    const t = bestThreshold(scored, allowed)
    if (t && (!best || t.offRefused > best.offRefused || (t.offRefused === best.offRefused && t.gap > best.gap))) best = { meaning: m, ...t }
  }
  const lexical = bestThreshold(
    samples.map((s) => ({ answerable: s.answerable, score: passesFloor(s) ? s.signals.cooccurrence : null })),
    allowed,
  )
  const config: GateConfig = {
    vocabularyFloor: opts.vocabularyFloor,
    threshold: best?.threshold ?? 0,
    weights: { cooccurrence: round(1 - (best?.meaning ?? 0)), meaning: best?.meaning ?? 0 },
    lexicalThreshold: lexical?.threshold ?? 0,
    meaningFrom: opts.meaningFrom,
  }
  return { gate: config, train: refusals(samples, config), lexicalTrain: refusals(samples, config, 'lexical') }
}

function round(x: number): number {
  return Math.round(x * 1e4) / 1e4
}
