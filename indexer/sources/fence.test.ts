import { describe, expect, it } from 'vitest'
import { closesFence, closingFenceLine } from './fence.ts'

describe('closesFence', () => {
  it('closes on a run of the same character at least as long, whatever whitespace is around it', () => {
    expect(closesFence('```', '```')).toBe(true)
    expect(closesFence('  `````  ', '````')).toBe(true)
    expect(closesFence('\t~~~\r', '~~~')).toBe(true)
  })

  it('does not close on a shorter run, the other character, or a run with anything after it', () => {
    expect(closesFence('```', '````')).toBe(false)
    expect(closesFence('~~~', '```')).toBe(false)
    expect(closesFence('```js', '```')).toBe(false)
    expect(closesFence('``` x', '```')).toBe(false)
    expect(closesFence('`~`', '```')).toBe(false)
  })
})

describe('closingFenceLine', () => {
  /** Each line of `text` found in turn by closingFenceLine and checked by closesFence: what a per-line reading finds. */
  const byLines = (text: string, from: number, fence: string): number => {
    for (let at = from; at <= text.length; ) {
      const end = text.indexOf('\n', at)
      const line = text.slice(at, end === -1 ? text.length : end)
      if (closesFence(line, fence)) return at
      if (end === -1) return -1
      at = end + 1
    }
    return -1
  }
  const code = ['```ts', 'const a = "```"', '``', '~~~', '  ````js', '\u00a0```\u00a0', 'x', '````', '```'].join('\n')

  it('finds the first line a per-line reading closes the fence at', () => {
    const from = code.indexOf('\n') + 1
    for (const fence of ['```', '````', '~~~', '~~~~~']) expect(closingFenceLine(code, from, fence), fence).toBe(byLines(code, from, fence))
    expect(code.slice(closingFenceLine(code, from, '```')).split('\n')[0]).toBe('\u00a0```\u00a0')
    expect(code.slice(closingFenceLine(code, from, '````')).split('\n')[0]).toBe('````')
  })

  it('reads only from `from` on, and finds a closing line that ends the text', () => {
    const from = code.lastIndexOf('````')
    expect(closingFenceLine(code, from + 5, '```')).toBe(code.length - 3)
    expect(closingFenceLine('```\nx\n```', 4, '```')).toBe(6)
    expect(closingFenceLine('```\nx\n', 4, '```')).toBe(-1)
  })
})
