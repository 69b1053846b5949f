/** marked's lexer with a shortcut for inline text that holds no inline syntax. */
import { Lexer, type Token } from 'marked'

/**
 * What can start inline syntax in GFM: an escape or hard break, a tag or
 * autolink, a link or image, code, emphasis or strikethrough, a bare URL or
 * email address, and a character reference (which marked's text tokens
 * decode).
 */
const INLINE_SYNTAX = /[\\<[`*_~@&]|https?|ftp:|www\.| {2}\n/i

/**
 * marked's lexer, but inline text holding nothing that could start inline
 * syntax (about half the runs on the astro docs: most headings, many table
 * cells and plain sentences) becomes the one text token marked would make of
 * it, without trying each of its inline rules at every stretch of the text.
 */
export class PageLexer extends Lexer {
  override inlineTokens(src: string, tokens: Token[] = []): Token[] {
    if (INLINE_SYNTAX.test(src)) return super.inlineTokens(src, tokens)
    if (src) tokens.push({ type: 'text', raw: src, text: src, escaped: false })
    return tokens
  }
}
