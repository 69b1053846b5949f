/**
 * The refusal gate: scores the evidence before any model is called. Below the
 * threshold the turn ends as a refusal ("the docs don't cover this").
 *
 * Hybrid score: a weighted sum of two signals, both 0..1:
 * - lexical: the share of the question's terms the best lexical passages cover;
 * - dense (agreement): the best cosine between the question and the top
 *   lexical passages. Off-topic questions often share a word or two with the
 *   docs ("configure", "session"), so a passage matches their words but not
 *   their meaning; on-topic questions get passages that match both. Measured
 *   on the dev sets this separated far better than the best dense cosine
 *   anywhere in the index, which stays high for any technical question
 *   (see the issue-5 note for the table).
 * Lexical-only mode (declared or degraded) scores the lexical signal alone
 * against its own threshold. Weights and thresholds live in the manifest so
 * every runtime gates alike.
 */

export interface GateConfig {
  /** Hybrid threshold on the weighted score. */
  threshold: number
  /** Threshold on the lexical signal alone (lexical-only mode). */
  lexicalThreshold: number
  /** Hybrid weights; absent in indexes written before the dense channel existed. */
  weights?: { lexical: number; dense: number }
}

/**
 * Chosen on the dev sets (issue-5 note): every lexical weight from 0.3 to 0.6
 * meets the targets on both sets; 0.4 sits in the middle of that range, and
 * 0.525 in the middle of its feasible threshold interval (0.50, 0.55].
 */
export const DEFAULT_GATE_WEIGHTS = { lexical: 0.4, dense: 0.6 }

/**
 * Defaults written into a new manifest when the config names none. The
 * lexical-only threshold 0.42 refuses one answerable question per dev set
 * where 0.5 refused three or four, and refuses the same off-topic ones.
 */
export const DEFAULT_GATE: Required<GateConfig> = { threshold: 0.525, lexicalThreshold: 0.42, weights: DEFAULT_GATE_WEIGHTS }

/** How many top lexical passages the gate's signals look at. */
export const GATE_DEPTH = 3

export interface GateSignals {
  /** Best coverage among the top lexical passages, 0..1. */
  lexical: number
  /** Best cosine between the question and the top lexical passages; absent in lexical-only mode. */
  dense?: number
}

export interface GateVerdict {
  pass: boolean
  score: number
}

/** The lexical signal: the best coverage among the first few lexical hits. */
export function lexicalSignal(hits: readonly { coverage: number }[], depth = GATE_DEPTH): number {
  return hits.slice(0, depth).reduce((m, h) => Math.max(m, h.coverage), 0)
}

/** The dense (agreement) signal: the best of `cosineOf` over the first few lexical hits; 0 when there are none. */
export function agreementSignal(hits: readonly { ordinal: number }[], cosineOf: (ordinal: number) => number, depth = GATE_DEPTH): number {
  return hits.slice(0, depth).reduce((m, h) => Math.max(m, cosineOf(h.ordinal)), 0)
}

export function gate(signals: GateSignals, config: GateConfig): GateVerdict {
  if (signals.dense === undefined) {
    const score = round(signals.lexical)
    return { pass: score >= config.lexicalThreshold, score }
  }
  const w = config.weights ?? DEFAULT_GATE_WEIGHTS
  const score = round(w.lexical * signals.lexical + w.dense * Math.max(0, signals.dense))
  return { pass: score >= config.threshold, score }
}

// Scores are shown and compared across runtimes: keep them short and stable.
function round(x: number): number {
  return Math.round(x * 1e4) / 1e4
}
