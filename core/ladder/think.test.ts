import { describe, expect, it } from 'vitest'
import { thinkFilter } from './think.ts'

/** Feeds the text in the given pieces; returns what the reader sees after each piece and at the end. */
function run(pieces: string[]): { seen: string; steps: string[] } {
  const f = thinkFilter()
  const steps = pieces.map((p) => f.push(p))
  steps.push(f.end())
  return { seen: steps.join(''), steps }
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
})
