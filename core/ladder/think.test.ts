import { describe, expect, it } from 'vitest'
import { thinkFilter } from './think.ts'

/**
 * Feeds the text in the given pieces; returns what the reader sees in the end, what each piece added
 * (a retraction written as '↺' before it), and everything that was ever on screen.
 */
function run(pieces: string[]): { seen: string; steps: string[]; everShown: string } {
  const f = thinkFilter()
  let seen = ''
  let everShown = ''
  const steps = pieces.map((p) => {
    const shown = f.push(p)
    seen = (shown.retract ? '' : seen) + shown.text
    everShown += shown.text
    return (shown.retract ? '↺' : '') + shown.text
  })
  const rest = f.end()
  steps.push((rest.retract ? '↺' : '') + rest.text)
  return { seen: (rest.retract ? '' : seen) + rest.text, steps, everShown: everShown + rest.text }
}

/** Every way of cutting the text in two, then one character at a time. */
function everySplit(text: string): string[][] {
  const cuts = [...Array(text.length + 1).keys()].map((i) => [text.slice(0, i), text.slice(i)])
  return [...cuts, [...text]]
}

describe('thinkFilter', () => {
  it('holds back a think block at the start of the answer, wherever the deltas split the tags', () => {
    const text = ' \n<think>\nThe reader asks about c.set; passage [1] covers it.\n</think>\n\nUse c.set() [1].'
    for (const pieces of everySplit(text)) expect(run(pieces).seen, JSON.stringify(pieces)).toBe('Use c.set() [1].')
  })

  it('shows nothing while the model is thinking', () => {
    const { steps } = run(['<think>Let me', ' see what [1] says', '</think>', 'Use c.set().'])
    expect(steps).toEqual(['', '', '', 'Use c.set().', ''])
  })

  it('leaves an answer without thinking untouched, including leading whitespace and a tag later in it', () => {
    const text = '\nWrap the summary in a <think> element? No: HTML has no <think>…</think>; use <details>.'
    for (const pieces of everySplit(text)) expect(run(pieces).seen, JSON.stringify(pieces)).toBe(text)
  })

  it('a second think block after the answer began is answer text', () => {
    expect(run(['<think>a</think>Answer', ' <think>b</think> end']).seen).toBe('Answer <think>b</think> end')
  })

  it('an answer that only thinks, or stops inside the thinking, is empty', () => {
    expect(run(['<think>Spent every token', ' thinking']).seen).toBe('')
    expect(run(['<think>done</think>', '\n\n']).seen).toBe('')
  })

  it('a start that looked like the tag and was not is answer text, also when the stream ends on it', () => {
    expect(run(['<thi']).seen).toBe('<thi')
    expect(run(['<thin', 'king> is not a tag']).seen).toBe('<thinking> is not a tag')
    expect(run(['<', 'b>bold</b>']).seen).toBe('<b>bold</b>')
  })

  describe('a stream with only the closing tag (the chat template wrote the opening one)', () => {
    const thought = 'Okay, the reader asks about c.set.\nPassage [1] covers it; `c.get` reads it back.\n</think>\n\nUse c.set() [1].'

    it('takes back everything before the tag, wherever the deltas split it', () => {
      for (const pieces of everySplit(thought)) {
        const r = run(pieces)
        expect(r.seen, JSON.stringify(pieces)).toBe('Use c.set() [1].')
        // The tag itself never reaches the screen, even for a moment.
        expect(r.everShown, JSON.stringify(pieces)).not.toContain('</')
      }
    })

    it('shows the text as it comes, then takes it back once, at the tag', () => {
      expect(run(['Okay, the reader', ' asks.</th', 'ink>\n\nUse c.set().']).steps).toEqual(['Okay, the reader', ' asks.', '↺Use c.set().', ''])
    })

    it('a thought that ends the stream at the tag leaves nothing', () => {
      expect(run(['Spent every token thinking.\n</think>', '\n\n']).seen).toBe('')
      expect(run(['Spent every token thinking.\n</think>']).seen).toBe('')
      expect(run(['Spent every token thinking.</think> ']).seen).toBe('')
    })

    it('the tag may close a line of thought, but words after it on its line make it text', () => {
      expect(run(['The answer is 4.</think>', '\n\nIt is 4.']).seen).toBe('It is 4.')
      const prose = 'Qwen3 ends its thought with </think>, then answers.\nR1 does too.'
      for (const pieces of everySplit(prose)) expect(run(pieces).seen, JSON.stringify(pieces)).toBe(prose)
    })

    it('a </think> an answer quotes as code, or one after an opening tag, is answer text', () => {
      const quoted = 'The parser splits on `</think>`: what comes after it is the answer.'
      const fenced = 'The template ends the turn with:\n\n```\n</think>\n```\n\nthen the answer.'
      const both = 'Wrap it as <think>…</think> and the parser strips it.'
      for (const text of [quoted, fenced, both]) {
        for (const pieces of everySplit(text)) expect(run(pieces).seen, JSON.stringify(pieces)).toBe(text)
      }
    })

    it('a later </think> outside code on the same line as a quoted one still ends the thinking', () => {
      expect(run(['It splits on `</think>`, so I stop here.</think>\nUse c.set().']).seen).toBe('Use c.set().')
    })
  })
})
