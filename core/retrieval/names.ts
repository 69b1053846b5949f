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
  const inside: string[] = []
  let end = 0
  for (const m of question.matchAll(WORD)) {
    // A word holds no punctuation, so what ends a sentence before a word lies between it and the word before:
    // read there, not in all the text before (which made a long pasted question cost the square of its length).
    const gap = question.slice(end, m.index)
    const startsSentence = (end === 0 && gap.trim() === '') || SENTENCE_END.test(gap)
    end = m.index + m[0].length
    if (m[0].length > 1 && !startsSentence) inside.push(m[0])
  }
  const capitalised = inside.filter((w) => CAPITAL.test(w))
  if (capitalised.length > TITLE_CASE_SHARE * inside.length) return new Set()
  return new Set(capitalised.filter((w) => !DIGIT_FIRST.test(w)))
}
