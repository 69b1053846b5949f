import { Lexer } from 'marked'
import { describe, expect, it } from 'vitest'
import { PageLexer } from './page-lexer.ts'

/** Blocks whose inline text is plain or only nearly so: each character that can start inline syntax, once. */
const PAGES = [
  '# Plain heading\n\nA plain sentence, with punctuation: (yes) - no "syntax"; 100% sure?\nA soft break!\n',
  'Two spaces end this line  \nand the next.\n\nA backslash ends this line\\\nand the next.\n',
  'Fish &#38;amp; chips.\n\nA &copy; sign.\n',
  'Visit https://example.com now.\n\nOr HTTP://EXAMPLE.COM now.\n\nOr www.example.com now.\n\nOr ftp://files.example now.\n\nOr write to me@example.com now.\n',
  'An `inline code` span.\n\n*Emphasis* here.\n\n__Strong__ here.\n\n~~Struck~~ here.\n\nA [link](/to) and ![an image](/i.png).\n',
  'An escaped \\* star.\n\nA <kbd>tag</kbd>.\n\nAn <https://auto.link>.\n\nA footnote[^1] and a bare ] bracket.\n\n[^1]: The note.\n',
  '| Name | Plain cell |\n| --- | --- |\n| `code` | words only |\n| what about http | tabs\there |\n',
  '- plain item\n- item with _emphasis_\n  > quoted plain text\n\n1. ordered & numbered\n',
]

describe('PageLexer', () => {
  it('gives the tokens marked gives, plain inline text taking the shortcut', () => {
    for (const page of PAGES) expect(new PageLexer({ gfm: true }).lex(page)).toEqual(new Lexer({ gfm: true }).lex(page))
  })
})
