/**
 * Fusion and gate settings per kind of embedder, written into the manifest at
 * index time. Each was chosen on the four dev files, tuned on one corpus and
 * checked on the other, both ways (`npm run bench -- --only gate`; the numbers
 * are in docs/gate.md). The meaning signal depends on the embedder (a static
 * word-vector model gives every docs-like question a high cosine; a
 * transformer spreads them out), so each kind has its own passage to read it
 * from, weights and threshold; the vocabulary floor and the lexical-only
 * threshold do not depend on the embedder.
 */
import type { EmbedderIdentity } from '../index/format.ts'
import type { FusionConfig } from './fusion.ts'
import type { GateConfig } from './gate.ts'

export interface RetrievalTuning {
  fusion: FusionConfig
  gate: GateConfig
}

/** From DESIGN.md's measured hint: below 0.6 the docs do not use the question's words (0 of 180 answerable refused on four sites). */
export const VOCABULARY_FLOOR = 0.6

/**
 * Every name the question gives must be held by a passage matching its words
 * (gate.ts): a question naming a tool the docs do not treat is about that
 * tool. Not tuned: no embedder is involved, and a share below 1 would let a
 * question naming one tool the docs treat and one they do not ("OAuth2 PKCE
 * in a native Android app") through.
 */
export const SUBJECT_FLOOR = 1

/** Lexical-only threshold on cooccurrence alone (chosen on both corpora, with the subject floor: 1/160 answerable, 24/32 off-topic refused). */
export const LEXICAL_THRESHOLD = 0.3022

/**
 * A static (word-vector lookup) model: docpilot's offline default. Measured
 * with docpilot-minilm-tokenlearn-en-v1; each static model has its own cosine
 * scale, so a new default model means re-running the gate bench.
 */
export const STATIC_TUNING: RetrievalTuning = {
  // Coverage (measured 2026-12-01, docs/gate.md): R@1 .70/.74/.57/.60 -> .73/.76/.73/.64 on the four dev files, no R@8 lower.
  fusion: { method: 'linear', lexicalWeight: 0.2, denseWeight: 0.55, coverageWeight: 0.25 },
  gate: {
    vocabularyFloor: VOCABULARY_FLOOR,
    subjectFloor: SUBJECT_FLOOR,
    // With the subject floor (2026-12-01, docs/gate.md): 1/160 answerable, 28/32 off-topic refused (was 4/160, 24/32).
    threshold: 0.2701,
    weights: { cooccurrence: 0.5, meaning: 0.5 },
    lexicalThreshold: LEXICAL_THRESHOLD,
    meaningFrom: 'lexical',
  },
}

/** A transformer sentence encoder (ONNX in the browser, or a provider's embeddings). */
export const ENCODER_TUNING: RetrievalTuning = {
  // Coverage (measured 2026-12-01 with all-MiniLM-L6-v2, docs/gate.md): R@1 .77/.80/.73/.64 -> .77/.86/.77/.66, R@8 none lower.
  fusion: { method: 'linear', lexicalWeight: 0.1, denseWeight: 0.7, coverageWeight: 0.2 },
  gate: {
    vocabularyFloor: VOCABULARY_FLOOR,
    subjectFloor: SUBJECT_FLOOR,
    // With the subject floor (2026-12-01, docs/gate.md): 4/160 answerable, 31/32 off-topic refused (was 4/160, 27/32).
    threshold: 0.3961,
    weights: { cooccurrence: 0.2, meaning: 0.8 },
    lexicalThreshold: LEXICAL_THRESHOLD,
    meaningFrom: 'results',
  },
}

export function tuningFor(embedder: EmbedderIdentity): RetrievalTuning {
  if (embedder.kind === 'none') return { fusion: STATIC_TUNING.fusion, gate: STATIC_TUNING.gate }
  return embedder.model.startsWith('static:') ? STATIC_TUNING : ENCODER_TUNING
}
