import { describe, expect, it } from 'vitest'
import { streamingMarkdown } from './streaming.ts'

describe('streamingMarkdown', () => {
  it('holds back a citation cut mid-marker until the chunk that closes it', () => {
    expect(streamingMarkdown('Set it with c.set() [1')).toBe('Set it with c.set() ')
    expect(streamingMarkdown('Set it with c.set() [1, ')).toBe('Set it with c.set() ')
    expect(streamingMarkdown('Set it with c.set() [^')).toBe('Set it with c.set() ')
    expect(streamingMarkdown('Set it with c.set()【2')).toBe('Set it with c.set()')
    // Once more text follows the marker, it is shown: a link from now on.
    expect(streamingMarkdown('Set it with c.set() [1]. Then')).toBe('Set it with c.set() [1]. Then')
  })

  it('holds back a link until its URL is whole, rather than autolinking the cut URL', () => {
    expect(streamingMarkdown('See [the guide](https://hono.dev/docs/gett')).toBe('See ')
    expect(streamingMarkdown('See [the gui')).toBe('See ')
    expect(streamingMarkdown('See [the guide](https://hono.dev/docs/) too')).toBe('See [the guide](https://hono.dev/docs/) too')
  })

  it('shows a long run after an open bracket: that is prose or code, not a marker still arriving', () => {
    const prose = `Arrays are written [ ${'and so on '.repeat(30)}`
    expect(streamingMarkdown(prose)).toBe(prose)
  })

  it('closes bold and inline code for the moment instead of showing their markers raw', () => {
    expect(streamingMarkdown('**Note')).toBe('**Note**')
    expect(streamingMarkdown('Call `c.set')).toBe('Call `c.set`')
    expect(streamingMarkdown('Call `c.set()` and **then')).toBe('Call `c.set()` and **then**')
    expect(streamingMarkdown('Call `a ** b` and **then')).toBe('Call `a ** b` and **then**')
    // A marker with nothing after it yet is left out.
    expect(streamingMarkdown('First **')).toBe('First ')
    expect(streamingMarkdown('**Note:** set')).toBe('**Note:** set')
  })

  it('leaves an open code block as it is: marked already draws it as code', () => {
    const code = 'Like this:\n\n```ts\nconst x = arr[0] ** 2 // `'
    expect(streamingMarkdown(code)).toBe(code)
  })
})
