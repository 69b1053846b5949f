/**
 * Which words of a question the reader wrote as names: "Angular",
 * "SwiftUI", "TLS", `getSignedCookie`. English capitalises a word inside a
 * sentence when it names something (a tool, a product, an API), so such a
 * word is the question's subject more surely than any rarity count can
 * tell: "How do I configure Angular's dependency injection providers?" is
 * about Angular, whatever else the docs say about configuration,
 * dependencies and providers.
 *
 * A capital that only starts a sentence says nothing, nor does one in a
 * question written in title case or capitals throughout; a word that starts
 * with a digit ("128MB", "404") is a quantity or a code, not a name.
 */
import { WORD } from './terms.ts'

/** Above this share of capitalised words inside its sentences, a question is in title case (or capitals) and capitals mark nothing. */
const TITLE_CASE_SHARE = 0.5

const CAPITAL = /\p{Lu}/u
const DIGIT_FIRST = /^\p{N}/u
// What ends a sentence: the next word's capital is the sentence's, not a name's.
const SENTENCE_END = /[.?!:]\s*["'“‘(\[]*\s*$/u

/** The written words (as `tokenize` splits them) that the question writes as names. */
export function namesIn(question: string): Set<string> {
  // Words inside sentences, of two letters or more ("I" is always a capital).
  const inside = [...question.matchAll(WORD)].filter((m) => m[0].length > 1 && !startsSentence(question, m.index))
  const capitalised = inside.filter((m) => CAPITAL.test(m[0]))
  if (capitalised.length > TITLE_CASE_SHARE * inside.length) return new Set()
  return new Set(capitalised.map((m) => m[0]).filter((w) => !DIGIT_FIRST.test(w)))
}

function startsSentence(text: string, at: number): boolean {
  const before = text.slice(0, at)
  return before.trim() === '' || SENTENCE_END.test(before)
}
