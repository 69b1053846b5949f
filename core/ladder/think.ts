/**
 * A reasoning model's thinking, held back from the answer. Groq's default
 * (`reasoning_format: raw`), Ollama and older llama-server builds send it in
 * the content, as a `<think>…</think>` block before the answer; shown, the
 * reader sees the tags and the musings as text, and they travel on into the
 * history and Copy. Only a block at the very start is thinking (leading
 * whitespace allowed): a `<think>` later in an answer about HTML is text.
 * Streaming-safe: a delta may end inside either tag.
 */

const OPEN = '<think>'
const CLOSE = '</think>'

export interface ThinkFilter {
  /** The part of a delta the reader may see ('' while thinking, or while a tag may still be forming). */
  push(text: string): string
  /** What was held back at the end of the stream: a start that never became `<think>` is answer text. */
  end(): string
}

export function thinkFilter(): ThinkFilter {
  let state: 'start' | 'thinking' | 'after' | 'answer' = 'start'
  let held = ''

  const push = (text: string): string => {
    if (state === 'answer') return text
    held += text
    if (state === 'start') {
      const lead = held.trimStart()
      // Still whitespace, or still the beginning of the tag: wait for more.
      if (lead.length < OPEN.length && OPEN.startsWith(lead)) return ''
      if (!lead.startsWith(OPEN)) {
        state = 'answer'
        const out = held
        held = ''
        return out
      }
      state = 'thinking'
      held = lead.slice(OPEN.length)
    }
    if (state === 'thinking') {
      const close = held.indexOf(CLOSE)
      if (close < 0) {
        // Only a tail that may be the start of the closing tag is worth keeping.
        held = held.slice(-(CLOSE.length - 1))
        return ''
      }
      state = 'after'
      held = held.slice(close + CLOSE.length)
    }
    // The blank lines between the closing tag and the answer are the thinking's, not the answer's.
    const answer = held.trimStart()
    held = ''
    if (answer) state = 'answer'
    return answer
  }

  return {
    push,
    end() {
      const out = state === 'start' ? held : ''
      held = ''
      return out
    },
  }
}
