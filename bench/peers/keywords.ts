/**
 * A question reduced to a keyword query, for peers whose search box expects
 * keywords (Pagefind requires every term to match): the same stop words
 * docpilot drops, nothing else changed.
 */
import { DEFAULT_LEXICAL_SETTINGS } from '../../core/retrieval/lexical.ts'

const STOP = new Set(DEFAULT_LEXICAL_SETTINGS.stopWords)

export function toKeywords(question: string): string {
  const words = question.match(/[\p{L}\p{N}$_.()-]+/gu) ?? []
  const kept = words.filter((w) => !STOP.has(w.toLowerCase().replace(/[^\p{L}\p{N}]/gu, '')))
  return (kept.length ? kept : words).join(' ')
}
