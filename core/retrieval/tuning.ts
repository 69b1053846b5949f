/**
 * Fusion and gate settings per kind of embedder, written into the manifest at
 * index time. Fusion was chosen on the four dev files, tuned on one corpus and
 * checked on the other, both ways, then checked on two more docs sites (where
 * all-MiniLM-L6-v2's dev-only choice now differs, the shipped blend ranks
 * better on the six files together); the
 * gate on all four corpora (hono, astro, undici's and Node's API references),
 * with each left out in turn to estimate a site nobody tuned on
 * (`npm run bench -- --only gate`; the numbers are in docs/gate.md). The
 * meaning signal depends on the embedder (a static word-vector model gives
 * every docs-like question a high cosine; a transformer spreads them out), so
 * each kind has its own weights and threshold; the vocabulary floor and the
 * lexical-only threshold do not depend on the embedder.
 */
import type { EmbedderIdentity } from '../index/format.ts'
import type { FusionConfig } from './fusion.ts'
import type { GateConfig } from './gate.ts'

export interface RetrievalTuning {
  fusion: FusionConfig
  gate: GateConfig
}

/**
 * Below this share the docs do not use the question's words. DESIGN.md's
 * hint was 0.6; an API reference written tersely uses fewer of a reader's
 * words (undici's: answerable paraphrases at 0.59, 0.62 and 0.67, while no
 * hono or astro one is below 0.71), and the off-topic questions between 0.5
 * and 0.6 are refused by the score anyway (2026-12-03, four corpora).
 */
export const VOCABULARY_FLOOR = 0.5

/**
 * Every name the question gives must be held by a passage matching its words
 * (gate.ts): a question naming a tool the docs do not treat is about that
 * tool. Not tuned: no embedder is involved, and a share below 1 would let a
 * question naming one tool the docs treat and one they do not ("OAuth2 PKCE
 * in a native Android app") through.
 */
export const SUBJECT_FLOOR = 1

/** Lexical-only threshold on cooccurrence alone (chosen on the four corpora, with both floors: 3/240 answerable, 38/52 off-topic refused). */
export const LEXICAL_THRESHOLD = 0.2659

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
    // Four corpora (2026-12-03, docs/gate.md): 2/240 answerable, 41/52 off-topic refused (dev files 1/160, 28/32).
    // Each corpus left out in turn (tuned on the other three): 5/240 and 40/52; the procedure before (the top
    // lexical passage, floor 0.6, 2.5% allowance) left out in turn: 7/240 and 41/52.
    threshold: 0.2387,
    weights: { cooccurrence: 0.3, meaning: 0.7 },
    lexicalThreshold: LEXICAL_THRESHOLD,
    meaningFrom: 'results',
  },
}

/** A transformer sentence encoder (ONNX in the browser, or a provider's embeddings). */
export const ENCODER_TUNING: RetrievalTuning = {
  // Coverage (measured 2026-12-01 with all-MiniLM-L6-v2, docs/gate.md): R@1 .77/.80/.73/.64 -> .77/.86/.77/.66, R@8 none lower.
  fusion: { method: 'linear', lexicalWeight: 0.1, denseWeight: 0.7, coverageWeight: 0.2 },
  gate: {
    vocabularyFloor: VOCABULARY_FLOOR,
    subjectFloor: SUBJECT_FLOOR,
    // Four corpora with all-MiniLM-L6-v2 (2026-12-03, docs/gate.md): 2/240 answerable, 45/52 off-topic refused (dev
    // files 1/160, 29/32); each corpus left out in turn, 5/240 and 44/52. The settings before, tuned on hono and
    // astro alone, refused 5 of undici's and Node's 80 answerable questions.
    threshold: 0.3524,
    weights: { cooccurrence: 0.1, meaning: 0.9 },
    lexicalThreshold: LEXICAL_THRESHOLD,
    meaningFrom: 'results',
  },
}

export function tuningFor(embedder: EmbedderIdentity): RetrievalTuning {
  if (embedder.kind === 'none') return { fusion: STATIC_TUNING.fusion, gate: STATIC_TUNING.gate }
  return embedder.model.startsWith('static:') ? STATIC_TUNING : ENCODER_TUNING
}
