/**
 * The lexical channel's tokenizer: text to words, a word to its index
 * terms. Its own module (no search engine attached) so the panel can mark
 * the terms a passage matched exactly as the index matched them, without
 * loading the index code.
 */
import { stemmer } from 'stemmer'
import type { LexicalSettings } from './lexical.ts'

// Letters and digits of any script; everything else separates words.
export const WORD = /[\p{L}\p{N}]+/gu
const CAMEL_PARTS = /\p{Lu}+(?!\p{Ll})|\p{Lu}?\p{Ll}+|\p{N}+/gu

export function tokenize(text: string): string[] {
  return text.match(WORD) ?? []
}

/**
 * One written word to its index terms: `getSignedCookie` yields the whole
 * identifier and its parts, so both an API name and the plain words it is
 * made of find the passage.
 */
export function termProcessor(settings: Pick<LexicalSettings, 'stopWords' | 'stemming'>): (word: string) => string[] | null {
  const stop = new Set(settings.stopWords)
  const stem = settings.stemming === 'porter' ? stemmer : (w: string) => w
  // Docs repeat their words: each distinct word is split and stemmed once.
  const seen = new Map<string, string[] | null>()
  return (word) => {
    let terms = seen.get(word)
    if (terms === undefined) seen.set(word, (terms = split(word)))
    return terms
  }
  function split(word: string): string[] | null {
    const parts = word.match(CAMEL_PARTS) ?? []
    const words = parts.length > 1 ? [word, ...parts] : [word]
    const terms = new Set<string>()
    for (const w of words) {
      const lower = w.toLowerCase()
      if (lower.length < 2 || stop.has(lower)) continue
      terms.add(stem(lower))
    }
    return terms.size ? [...terms] : null
  }
}
