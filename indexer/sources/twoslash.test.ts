import { describe, expect, it } from 'vitest'
import { isTwoslash, twoslashShown } from './twoslash.ts'

describe('twoslash code blocks', () => {
  it('knows a Twoslash block by its info string, not by its code', () => {
    expect(isTwoslash('ts twoslash')).toBe(true)
    expect(isTwoslash('tsx twoslash title="app.tsx"')).toBe(true)
    expect(isTwoslash('ts')).toBe(false)
    expect(isTwoslash('ts twoslashy')).toBe(false)
    expect(isTwoslash(undefined)).toBe(false)
  })

  it('shows what a reader sees: the lines below the last cut, without the hidden set-up or the markers', () => {
    const code = ["import { Hono } from 'hono'", 'const app = new Hono()', '// ---cut---', "app.get('/', (c) => c.text('Hi'))"].join('\n')
    expect(twoslashShown(code)).toBe("app.get('/', (c) => c.text('Hi'))")
    expect(twoslashShown(['a()', '// ---cut-before---', 'b()', '// ---cut-after---', 'c()'].join('\n'))).toBe('b()')
  })

  it('drops a cut-start/cut-end span, compiler directives and query markers, and keeps ordinary comments', () => {
    const code = ['// @errors: 2304', '// @noErrors', 'const a = 1', '// ---cut-start---', 'declare const hidden: string', '// ---cut-end---', '// a comment readers see', 'a', '//^?', '// ^|'].join('\n')
    expect(twoslashShown(code)).toBe(['const a = 1', '// a comment readers see', 'a'].join('\n'))
  })

  it('leaves a block without markers as written', () => {
    expect(twoslashShown('const x = 1\n\nconst y = 2')).toBe('const x = 1\n\nconst y = 2')
  })
})
