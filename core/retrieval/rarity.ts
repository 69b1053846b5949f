/**
 * How rare a question's word is in general English, for the gate: a word's
 * weight is log(1 + its rank) in a frequency-ordered English word list, so
 * "how", "make" and "use" weigh little and "sourdough" or "autovacuum" weigh
 * a lot. A question whose heavy words the docs never use is about something
 * else; one whose heavy words the docs use is worth looking up.
 *
 * The ranks travel with the index (`retrieval.ranks`): when its embedder is
 * a static model with a frequency-ordered vocabulary served split by word,
 * a word's rank is its row number, read from the row the question's
 * embedding fetches anyway (nothing extra); otherwise `parts.ranks` is a
 * word list (the shipped default model's), read whole on the first question.
 */
import type { Manifest } from '../index/format.ts'
import type { QuestionWord } from './gate.ts'
import { namesIn } from './names.ts'
import { tokenize } from './terms.ts'
import type { PartLoader } from '../index/parts.ts'

/** What reads ranks from a model's vocabulary (the dense channel, through its embedder). */
export interface ModelRanks {
  ranksOf(words: readonly string[], ranked: number): Promise<Array<number | undefined>>
}

export interface WordRanks {
  /** How many words the list ranks; a word not in it counts as rank size + 1. */
  readonly size: number
  /** Ranks (1 = most common) of lower-cased words; undefined for a word the list does not hold. */
  ranksOf(words: readonly string[]): Promise<Array<number | undefined>>
}

/** The weight of a word of this rank; a word the list does not hold weighs as the rarest. */
export function rarityWeight(rank: number | undefined, size: number): number {
  return Math.log(1 + (rank ?? size + 1))
}

/** A list held whole: one word per line, most common first; the first `size` lines are ranked. */
export function wordRanksFromList(text: string, size: number): WordRanks {
  const rank = new Map<string, number>()
  let line = 0
  for (const word of text.split('\n')) {
    if (++line > size) break
    if (word && !rank.has(word)) rank.set(word, line)
  }
  return { size, ranksOf: async (words) => words.map((w) => rank.get(w)) }
}

/**
 * The index's word ranks; null for an index written without them. From the
 * embedder's own vocabulary when the manifest says so (a split static model
 * reads them from the rows the question's embedding fetches), otherwise from
 * the list part, read whole on first use.
 */
export function openWordRanks(manifest: Manifest, loader: PartLoader, model?: ModelRanks | null): WordRanks | null {
  const source = manifest.retrieval.ranks
  const size = source?.words
  if (!size) return null
  if (source.source === 'model') return model ? { size, ranksOf: (words) => model.ranksOf(words, size) } : null
  const part = manifest.parts.ranks
  if (typeof part !== 'string') return null
  let list: Promise<WordRanks> | null = null
  const load = () => {
    if (!list) {
      list = loader.bytes(part).then((bytes) => wordRanksFromList(new TextDecoder().decode(bytes), size))
      // A failed fetch is not remembered: the next question tries again.
      list.catch(() => (list = null))
    }
    return list
  }
  return { size, ranksOf: async (words) => (await load()).ranksOf(words) }
}

/**
 * The question's content words as the gate sees them: each distinct written
 * word (case kept, so an identifier still splits into its parts) with its
 * index terms, its rank, and whether the question writes it as a name.
 * Words the lexical index drops (stop words, single letters) carry no terms
 * and are left out. A follow-up is judged on its own
 * words (measured: adding the earlier question's words at half weight refused
 * more follow-ups the docs answer, 5 of 30 instead of 2).
 */
export async function questionWords(
  question: string,
  termsOf: (word: string) => string[],
  ranks: WordRanks | null,
): Promise<{ words: QuestionWord[]; rankedWords: number }> {
  const written = [...new Set(tokenize(question))]
  const names = namesIn(question)
  const withTerms = written.map((w) => ({ word: w.toLowerCase(), terms: termsOf(w), named: names.has(w) })).filter((w) => w.terms.length > 0)
  // Ranks that cannot be fetched right now (the model files of a degraded search) leave every word the same weight.
  const found = ranks ? await ranks.ranksOf(withTerms.map((w) => w.word)).catch(() => null) : null
  return { words: withTerms.map((w, i) => ({ terms: w.terms, rank: found?.[i], named: w.named })), rankedWords: found ? ranks!.size : 0 }
}
