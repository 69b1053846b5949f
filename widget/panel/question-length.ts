/**
 * The question box's counter. Over MAX_QUESTION_CHARS the prompt no longer
 * fits the proxy's body limit, so the box says so before the reader asks
 * (as chat boxes do: a count from near the limit, in the error colour past
 * it, Ask disabled) rather than the turn ending in a search answer that
 * blames the models. A paste is never cut short: the reader chooses what goes.
 */
import { MAX_QUESTION_CHARS } from '../../core/prompt/build.ts'
import { COPY } from './copy.ts'

/** Below this share of the limit the count is noise. */
const SHOWN_FROM = 0.8

export interface QuestionLength {
  /** The counter's words; '' while it is hidden. */
  text: string
  /** Too long to ask. */
  over: boolean
}

export function questionLength(draft: string): QuestionLength {
  // What ask() sends: the trimmed question.
  const count = draft.trim().length
  const over = count > MAX_QUESTION_CHARS
  if (count < SHOWN_FROM * MAX_QUESTION_CHARS) return { text: '', over }
  return { text: over ? COPY.tooLong(count, MAX_QUESTION_CHARS) : COPY.length(count, MAX_QUESTION_CHARS), over }
}
