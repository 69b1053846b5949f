/**
 * The refusal gate: scores the evidence before any model is called. Below the
 * threshold the turn ends as a refusal ("the docs don't cover this").
 *
 * Four signals, each 0..1, chosen because they mean the same on any docs
 * site (none counts this site's pages or words). Each question word weighs
 * log(1 + its rank in general English) squared (rarity.ts), so "how", "set"
 * and "use" weigh little and "sourdough" or "autovacuum" a lot:
 * - vocabulary: the weighted share of the question's words that occur
 *   anywhere in the docs (as written, stemmed, or as a part of an
 *   identifier). Below `vocabularyFloor` the docs do not even use the
 *   question's words, and the turn is refused whatever else.
 * - subject: the weighted share of the names the question gives (words
 *   written with a capital inside a sentence and rarer than everyday English:
 *   "Angular", "SwiftUI"; names.ts) that a passage matching its words holds.
 *   Below `subjectFloor` the question is about something the docs do not
 *   treat, however well they cover its other words: "configure Angular's
 *   dependency injection providers" on a site that documents configuration,
 *   dependencies and providers, and names Angular once in passing.
 * - cooccurrence: the best weighted share one of the top lexical passages
 *   holds. Words that each appear somewhere ("PostgreSQL", "replica") but
 *   never together are something the docs mention in passing, not cover.
 * - meaning: the cosine between the question and its best passage. Questions
 *   whose words all occur in the docs but ask about something else need it.
 *   It is only as good as the embedder, so which passage it reads, the
 *   weights and the threshold are chosen per embedder (tuning.ts). Both kinds
 *   read the top result, found where the reader's words differ from the
 *   docs'; a static model read the top lexical passage until two more docs
 *   sites showed that refusing answerable paraphrases (docs/gate.md).
 * Past the floors, the score is the weighted sum of cooccurrence and meaning;
 * lexical-only mode (declared or degraded) scores cooccurrence alone against
 * its own threshold. Everything lives in the manifest, so every runtime gates
 * alike.
 */
import { rarityWeight } from './rarity.ts'

export interface GateConfig {
  /** Refuse when less of the question's weighted vocabulary than this occurs in the docs. */
  vocabularyFloor: number
  /**
   * Refuse when the passages matching the question's words hold less than this share of the names it gives
   * (1: every name). Absent (indexes written before it): no such check.
   */
  subjectFloor?: number
  /** Hybrid threshold on the weighted score. */
  threshold: number
  /** Hybrid weights. */
  weights: { cooccurrence: number; meaning: number }
  /** Threshold on cooccurrence alone, in lexical-only mode. */
  lexicalThreshold: number
  /** The passage the meaning signal reads: the top lexical hit, or the top result (fused). */
  meaningFrom: 'lexical' | 'results'
}

/** How many top lexical passages the cooccurrence signal looks at. */
export const GATE_DEPTH = 3

export interface GateSignals {
  vocabulary: number
  /** Absent where it was not measured (a caller that predates it): no subject check. */
  subject?: number
  cooccurrence: number
  /** Absent in lexical-only mode. */
  meaning?: number
}

export interface GateVerdict {
  pass: boolean
  score: number
  /** What the verdict rests on (`docpilot query` and the debug drawer show it). */
  signals: GateSignals
  /** Why a refusal refused: the docs do not use the question's words, or the evidence scored low. */
  refusedFor?: 'vocabulary' | 'subject' | 'evidence'
}

/** A content word of the question: its index terms (whole word, then identifier parts) and its rank in English. */
export interface QuestionWord {
  terms: readonly string[]
  rank: number | undefined
  /** Written as a name: with a capital inside a sentence (names.ts). */
  named: boolean
}

/**
 * A name is the question's subject when it is rarer than this many of the
 * most common English words: "Angular" and "TLS" are, "Chinese", "Pages" and
 * "Content" (everyday words that a name or a heading capitalises) are not.
 */
export const EVERYDAY_WORDS = 5000

/** A word's weight in the gate: rare words count far more than common ones. */
export function wordWeight(rank: number | undefined, rankedWords: number): number {
  return rarityWeight(rank, rankedWords) ** 2
}

/**
 * A word is in a set of terms when its whole term is, or, for an identifier
 * typed in the question (`getSignedCookie`), every one of its parts is.
 */
function holds(word: QuestionWord, has: (term: string) => boolean): boolean {
  const [whole, ...parts] = word.terms
  return (whole !== undefined && has(whole)) || (parts.length > 0 && parts.every(has))
}

function weightedShare(words: readonly QuestionWord[], rankedWords: number, held: (word: QuestionWord) => boolean): number {
  let total = 0
  let heldWeight = 0
  for (const w of words) {
    const weight = wordWeight(w.rank, rankedWords)
    total += weight
    if (held(w)) heldWeight += weight
  }
  return total > 0 ? heldWeight / total : 0
}

const inPassage = (passage: { terms: readonly string[] }) => (term: string) => passage.terms.includes(term)

/** Weighted share of the question's words that occur anywhere in the docs. */
export function vocabularySignal(words: readonly QuestionWord[], rankedWords: number, occurs: (term: string) => boolean): number {
  return weightedShare(words, rankedWords, (w) => holds(w, occurs))
}

/**
 * The weighted share of the question's names that one of the passages
 * matching its words (the lexical candidates) holds; 1 when it names
 * nothing. Without word ranks a name cannot be told from an everyday word
 * with a capital, so nothing is checked (1).
 */
export function subjectSignal(words: readonly QuestionWord[], rankedWords: number, candidates: readonly { terms: readonly string[] }[]): number {
  if (!rankedWords) return 1
  const names = words.filter((w) => w.named && (w.rank === undefined || w.rank > EVERYDAY_WORDS))
  if (!names.length) return 1
  return weightedShare(names, rankedWords, (w) => candidates.some((c) => holds(w, inPassage(c))))
}

/** The best weighted share of the question's words that one of the first few lexical hits matched. */
export function cooccurrenceSignal(
  words: readonly QuestionWord[],
  rankedWords: number,
  hits: readonly { terms: readonly string[] }[],
  depth = GATE_DEPTH,
): number {
  return hits.slice(0, depth).reduce((best, h) => Math.max(best, weightedShare(words, rankedWords, (w) => holds(w, inPassage(h)))), 0)
}

/** The cosine between the question and the first passage; 0 when there is none, never below 0. */
export function meaningSignal(passages: readonly { ordinal: number }[], cosineOf: (ordinal: number) => number): number {
  return passages.length ? Math.max(0, cosineOf(passages[0]!.ordinal)) : 0
}

export function gate(signals: GateSignals, config: GateConfig): GateVerdict {
  const lexicalOnly = signals.meaning === undefined
  const score = round(
    lexicalOnly
      ? signals.cooccurrence
      : config.weights.cooccurrence * signals.cooccurrence + config.weights.meaning * Math.max(0, signals.meaning!),
  )
  const rounded: GateSignals = {
    vocabulary: round(signals.vocabulary),
    ...(signals.subject === undefined ? {} : { subject: round(signals.subject) }),
    cooccurrence: round(signals.cooccurrence),
    ...(lexicalOnly ? {} : { meaning: round(signals.meaning!) }),
  }
  if (signals.vocabulary < config.vocabularyFloor) return { pass: false, score, signals: rounded, refusedFor: 'vocabulary' }
  if (signals.subject !== undefined && signals.subject < (config.subjectFloor ?? 0)) return { pass: false, score, signals: rounded, refusedFor: 'subject' }
  const pass = score >= (lexicalOnly ? config.lexicalThreshold : config.threshold)
  return { pass, score, signals: rounded, ...(pass ? {} : { refusedFor: 'evidence' as const }) }
}

/** Why a refused question was refused, in words every surface shows alike (`docpilot query`, the MCP tool). */
export function refusalReason(refusedFor: NonNullable<GateVerdict['refusedFor']>): string {
  switch (refusedFor) {
    case 'vocabulary':
      return "the docs hardly use the question's words"
    case 'subject':
      return 'the question names something no passage matching it mentions'
    case 'evidence':
      return 'the evidence scored below the threshold'
  }
}

// Scores are shown and compared across runtimes: keep them short and stable.
function round(x: number): number {
  return Math.round(x * 1e4) / 1e4
}
