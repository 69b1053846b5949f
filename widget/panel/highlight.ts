/**
 * Matched terms in a passage, found the way the index matched them: the
 * question and the passage go through the same term processing as BM25
 * (the settings the manifest carries: stop words, stemming, identifier
 * parts), and a word is marked when one of its terms is a question term, or
 * starts with one long enough to prefix-match.
 */
import type { LexicalSettings } from '../../core/retrieval/lexical.ts'
import { termProcessor, WORD } from '../../core/retrieval/terms.ts'

/** Text split into plain runs and matched words (`{ mark }`), in order. */
export type Segment = string | { mark: string }
export type Marker = (text: string) => Segment[]

export const noMarks: Marker = (text) => [text]

export function termMarker(question: string, settings: LexicalSettings | undefined): Marker {
  if (!settings) return noMarks
  const terms = termProcessor(settings)
  const asked = new Set((question.match(WORD) ?? []).flatMap((w) => terms(w) ?? []))
  if (asked.size === 0) return noMarks
  const prefixes = [...asked].filter((t) => t.length >= settings.prefixMinLength)
  const seen = new Map<string, boolean>()
  const matches = (word: string): boolean => {
    let hit = seen.get(word)
    if (hit === undefined) {
      hit = (terms(word) ?? []).some((t) => asked.has(t) || prefixes.some((p) => t.startsWith(p)))
      seen.set(word, hit)
    }
    return hit
  }
  const split = new RegExp(`(${WORD.source})`, 'u')
  return (text) => {
    const segments: Segment[] = []
    let plain = ''
    text.split(split).forEach((part, i) => {
      // split() with a capture alternates separators (even) and words (odd).
      if (i % 2 === 1 && matches(part)) {
        if (plain) segments.push(plain)
        segments.push({ mark: part })
        plain = ''
      } else plain += part
    })
    if (plain) segments.push(plain)
    return segments
  }
}
