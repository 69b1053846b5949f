import { describe, expect, it } from 'vitest'
import { testChunk as doc } from '../index/testing.ts'
import { buildLexicalIndex, DEFAULT_LEXICAL_SETTINGS } from './lexical.ts'


const CHUNKS = [
  doc('docs/helpers/cookie.md', 'Cookie Helper', 'Signed cookies', 'Call getSignedCookie(c, secret) to read a cookie that cannot be tampered with.'),
  doc('docs/api/context.md', 'Context', 'set() / get()', 'Store a value for the rest of the request with c.set and read it with c.get.'),
  doc('docs/getting-started/bun.md', 'Bun', 'Change port number', 'Export a port property to change the port.'),
  doc('docs/guides/deploy.md', 'Deploying', 'Documentation builds', 'Do it in a documented way: docs are generated at build time.'),
]

describe('lexical index', () => {
  const index = buildLexicalIndex(CHUNKS)

  it('splits identifiers into their words and stems them', () => {
    expect(index.queryTerms('getSignedCookie')).toEqual(['getsignedcooki', 'sign', 'cooki'])
    // "how do I" carries no topic: stop words never reach the index.
    expect(index.queryTerms('How do I change ports?')).toEqual(['chang', 'port'])
  })

  it('finds a passage by the plain words of an API name it contains', () => {
    expect(index.searchNow('signed cookies', 3)[0]!.ordinal).toBe(0)
    expect(index.searchNow('getSignedCookie', 3)[0]!.ordinal).toBe(0)
  })

  it('searches headings (trail) and paths, not only text', () => {
    expect(index.searchNow('context', 3)[0]!.ordinal).toBe(1)
    expect(index.searchNow('getting started', 3)[0]!.ordinal).toBe(2)
  })

  it('does not prefix-match short query terms', () => {
    // "cook" is short: it must not prefix-match "cookie" (short prefixes match most of a corpus).
    expect(index.queryTerms('cook')).toEqual(['cook'])
    expect(index.searchNow('cook', 8)).toEqual([])
    // A long term still matches longer words by prefix.
    expect(index.searchNow('documen', 8).map((h) => h.ordinal)).toEqual([3])
  })

  it('reports how much of the question the passage covers, a word the docs lack weighing most', () => {
    const [top] = index.searchNow('signed cookie bananas', 3)
    expect(top!.terms).toEqual(['sign', 'cooki'])
    // Two of three terms, but "bananas" (in no chunk) is the rarest: it weighs more than a third.
    expect(top!.coverage).toBeGreaterThan(0)
    expect(top!.coverage).toBeLessThan(2 / 3)
    expect(index.searchNow('signed cookie', 3)[0]!.coverage).toBeCloseTo(1)
  })

  it('refuses settings written for another tokenizer', () => {
    expect(() => buildLexicalIndex(CHUNKS, { ...DEFAULT_LEXICAL_SETTINGS, tokenizer: 'other' as never })).toThrow(/tokenizer "other"/)
  })
})
