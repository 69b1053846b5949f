/**
 * The refusal gate: scores the evidence before any model is called. Below the
 * threshold the turn ends as a refusal ("the docs don't cover this").
 *
 * Hybrid score: a weighted sum of the lexical signal (the share of the
 * question's terms the best lexical passages cover, 0..1) and the dense signal
 * (the best passage's cosine). Lexical-only mode (declared or degraded) scores
 * the lexical signal alone against its own threshold. Weights and thresholds
 * live in the manifest so every runtime gates alike.
 */

export interface GateConfig {
  /** Hybrid threshold on the weighted score. */
  threshold: number
  /** Threshold on the lexical signal alone (lexical-only mode). */
  lexicalThreshold: number
  /** Hybrid weights; absent in indexes written before the dense channel existed. */
  weights?: { lexical: number; dense: number }
}

export const DEFAULT_GATE_WEIGHTS = { lexical: 0.5, dense: 0.5 }

/** Defaults written into a new manifest when the config names none; chosen on the dev sets (see DESIGN/issue 5 note). */
export const DEFAULT_GATE: Required<GateConfig> = { threshold: 0.5, lexicalThreshold: 0.5, weights: DEFAULT_GATE_WEIGHTS }

export interface GateSignals {
  /** Best coverage among the top lexical passages, 0..1. */
  lexical: number
  /** Best dense cosine; absent in lexical-only mode. */
  dense?: number
}

export interface GateVerdict {
  pass: boolean
  score: number
}

/** The lexical signal: the best coverage among the first few lexical hits. */
export function lexicalSignal(hits: readonly { coverage: number }[], depth = 3): number {
  return hits.slice(0, depth).reduce((m, h) => Math.max(m, h.coverage), 0)
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
