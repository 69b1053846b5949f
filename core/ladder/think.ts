/**
 * A reasoning model's thinking, held back from the answer. Groq's default
 * (`reasoning_format: raw`), Ollama and older llama-server builds send it in
 * the content, as a `<think>…</think>` block before the answer; shown, the
 * reader sees the tags and the musings as text, and they travel on into the
 * history and Copy. Only a block at the very start is thinking (leading
 * whitespace allowed): a `<think>` later in an answer about HTML is text.
 *
 * Models whose chat template writes the opening tag itself (DeepSeek-R1 and
 * its distills, QwQ, Qwen3's thinking models) served without a reasoning
 * parser (vLLM without --reasoning-parser, llama-server with
 * --reasoning-format none) start the content mid-thought and send only the
 * closing `</think>`, on a line of its own ending the thought. Nothing tells
 * that text from an answer until the tag comes, and holding every answer back
 * for a tag that may never come would end streaming for every model, so it is
 * shown as it comes and, when a `</think>` ends a line with no `<think>`
 * before it, taken back (`retract`): all of it was thinking. The panel shows
 * raw HTML as text, so an answer about these models may name the tag: one
 * inside code (`` `</think>` ``, a fenced block) or with words after it on its
 * line (`ends with </think>, then`) is answer text.
 *
 * Streaming-safe: a delta may end inside either tag.
 */

const OPEN = '<think>'
const CLOSE = '</think>'
const FENCE = /^ {0,3}(```|~~~)/

export interface Shown {
  /** The part of a delta the reader may see ('' while thinking, or while a tag may still be forming). */
  text: string
  /** Everything shown before this was thinking: the reader's copy is to be cleared before `text` is added. */
  retract?: true
}

export interface ThinkFilter {
  push(text: string): Shown
  /** What was held back at the end of the stream: a start that never became `<think>` is answer text; a stream that ends on a lone `</think>` was all thinking. */
  end(): Shown
}

export function thinkFilter(): ThinkFilter {
  let state: 'start' | 'thinking' | 'after' | 'unopened' | 'answer' = 'start'
  let held = ''
  // 'unopened': the current line as far as it was shown, and whether a fence opened on an earlier line is still open.
  let line = ''
  let inFence = false

  /**
   * Where a closing tag that ends the thinking stands in `line`: outside code, nothing but spaces after it on its
   * line (`whole`: the line has its newline; otherwise the next delta may still add words after it). 'open' when
   * `<think>` comes first; -1 for none.
   */
  const closeInLine = (whole: boolean): { at: number; sure: boolean } | 'open' | -1 => {
    const open = line.indexOf(OPEN)
    for (let close = inFence ? -1 : line.indexOf(CLOSE); close >= 0; close = line.indexOf(CLOSE, close + 1)) {
      if (open >= 0 && open < close) break
      // An odd number of backticks before it on its line: the tag is quoted in inline code.
      if ((line.slice(0, close).split('`').length - 1) % 2 === 1) continue
      if (line.slice(close + CLOSE.length).trim() === '') return { at: close, sure: whole }
    }
    return open >= 0 ? 'open' : -1
  }

  /** The answer-so-far that may yet turn out to be thinking: watch it for a lone `</think>` ending a line. */
  const unopened = (text: string): Shown => {
    const pending = held + text
    held = ''
    let out = ''
    let i = 0
    while (i < pending.length) {
      const nl = pending.indexOf('\n', i)
      const piece = nl < 0 ? pending.slice(i) : pending.slice(i, nl + 1)
      const lineBefore = line
      line += piece
      const close = closeInLine(nl >= 0)
      if (close === 'open') {
        // The answer speaks of the tags: it is all text, and nothing in it is watched any more.
        state = 'answer'
        return { text: out + pending.slice(i) }
      }
      // Where the tag starts in `pending`.
      const tagAt = close === -1 ? -1 : i + close.at - lineBefore.length
      if (close !== -1 && close.sure) {
        state = 'after'
        line = ''
        return { ...after(pending.slice(tagAt + CLOSE.length)), retract: true }
      }
      if (close !== -1) {
        // The tag ends the line so far: a newline next makes it the end of the thinking, a word makes it text.
        held = pending.slice(tagAt)
        line = line.slice(0, close.at)
        return { text: out + pending.slice(i, tagAt) }
      }
      if (nl < 0) {
        // The line goes on: a tail that may be the start of `</think>` waits for the next delta.
        let keep = Math.min(CLOSE.length - 1, piece.length)
        while (keep > 0 && !CLOSE.startsWith(line.slice(-keep))) keep--
        if (keep > 0) {
          held = piece.slice(-keep)
          line = line.slice(0, -keep)
        }
        out += piece.slice(0, piece.length - keep)
        break
      }
      if (FENCE.test(line)) inFence = !inFence
      line = ''
      out += piece
      i = nl + 1
    }
    return { text: out }
  }

  /** After the closing tag: the blank lines between it and the answer are the thinking's, not the answer's. */
  const after = (text: string): Shown => {
    const answer = (held + text).trimStart()
    held = ''
    if (answer) state = 'answer'
    return { text: answer }
  }

  const push = (text: string): Shown => {
    if (state === 'answer') return { text }
    if (state === 'unopened') return unopened(text)
    if (state === 'after') return after(text)
    held += text
    if (state === 'start') {
      const lead = held.trimStart()
      // Still whitespace, or still the beginning of the tag: wait for more.
      if (lead.length < OPEN.length && OPEN.startsWith(lead)) return { text: '' }
      if (!lead.startsWith(OPEN)) {
        state = 'unopened'
        const all = held
        held = ''
        return unopened(all)
      }
      state = 'thinking'
      held = lead.slice(OPEN.length)
    }
    // state === 'thinking'
    const close = held.indexOf(CLOSE)
    if (close < 0) {
      // Only a tail that may be the start of the closing tag is worth keeping.
      held = held.slice(-(CLOSE.length - 1))
      return { text: '' }
    }
    state = 'after'
    const rest = held.slice(close + CLOSE.length)
    held = ''
    return after(rest)
  }

  return {
    push,
    end() {
      const rest = held
      held = ''
      // The stream ended on a lone closing tag: everything before it was thinking, and no answer followed.
      if (state === 'unopened' && rest.startsWith(CLOSE)) return { text: '', retract: true }
      return { text: state === 'start' || state === 'unopened' ? rest : '' }
    },
  }
}
