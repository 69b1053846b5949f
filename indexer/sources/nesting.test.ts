import { describe, expect, it } from 'vitest'
import { htmlNesting, markdownNesting } from './nesting.ts'

describe('markdownNesting', () => {
  it('counts list and quote markers and indentation, not code', () => {
    expect(markdownNesting('# Title\n\nPlain text.')).toBe(0)
    expect(markdownNesting('- a\n  - b\n    - c')).toBe(3)
    expect(markdownNesting('> > - x')).toBe(3)
    expect(markdownNesting('1. one\n   2) two')).toBe(2)
    expect(markdownNesting('```\n' + ' '.repeat(200) + 'code\n- - - - not lists\n```\nafter')).toBe(0)
    expect(markdownNesting('~~~~\n```\n- - - x\n~~~~\n- - y')).toBe(2)
    // A fence closes at a line of spaces or tabs, then a run at least as long, then whitespace; code after no close.
    expect(markdownNesting('````\n  - - - a\n```\n\t```` \t\n- - b')).toBe(2)
    expect(markdownNesting('```\n\u00a0```\n- - - c\n```\n- d')).toBe(1)
    expect(markdownNesting('- a\n  ```\n        - - - - - - x')).toBe(1)
  })
})

describe('htmlNesting', () => {
  it('counts elements that must be closed, not void, self-closed, optional-end or raw-text content', () => {
    expect(htmlNesting('<html><body><main><div><p>x<p>y</div></main></body></html>')).toBe(2)
    expect(htmlNesting('<div><br><img src=x><svg><path/></svg></div>')).toBe(2)
    expect(htmlNesting(`<script>${'<div>'.repeat(50)}</script><div></div>`)).toBe(1)
    expect(htmlNesting(`<!-- ${'<div>'.repeat(50)} --><ul><li>a<li>b</ul>`)).toBe(1)
    expect(htmlNesting('<div>'.repeat(1000))).toBe(1000)
  })
})
