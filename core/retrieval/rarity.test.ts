import { describe, expect, it } from 'vitest'
import type { Manifest } from '../index/format.ts'
import { buildLexicalIndex } from './lexical.ts'
import { openWordRanks, questionWords, wordRanksFromList } from './rarity.ts'

const LIST = 'the\nof\nhow\ncookie\nthe\nsourdough\nzebra\n'

describe('word ranks', () => {
  it('ranks the first `size` lines, 1 for the most common; a repeated word keeps its first rank', async () => {
    const ranks = wordRanksFromList(LIST, 6)
    expect(await ranks.ranksOf(['the', 'cookie', 'sourdough', 'zebra', 'nope'])).toEqual([1, 4, 6, undefined, undefined])
  })

  it('reads the index part named in the manifest once, on first use; none named: null', async () => {
    let reads = 0
    const loader = { bytes: async () => (reads++, new TextEncoder().encode(LIST)) }
    const manifest = { parts: { ranks: 'embed.x.vocab.txt' }, retrieval: { fusion: {}, gate: {}, ranks: { words: 6 } } } as unknown as Manifest
    const ranks = openWordRanks(manifest, loader)!
    expect(await ranks.ranksOf(['of'])).toEqual([2])
    expect(await ranks.ranksOf(['cookie'])).toEqual([4])
    expect(reads).toBe(1)
    expect(openWordRanks({ ...manifest, parts: { ...manifest.parts, ranks: undefined } }, loader)).toBeNull()
  })
})

describe('questionWords', () => {
  const lexical = buildLexicalIndex([])
  const ranks = wordRanksFromList(LIST, 6)

  it('keeps content words with their terms, ranks and whether written as a name, drops stop words, splits identifiers', async () => {
    const { words, rankedWords } = await questionWords('How do I set a signed cookie with getSignedCookie?', lexical.queryTerms, ranks)
    expect(rankedWords).toBe(6)
    expect(words).toEqual([
      { terms: ['set'], rank: undefined, named: false },
      { terms: ['sign'], rank: undefined, named: false },
      { terms: ['cooki'], rank: 4, named: false },
      { terms: ['getsignedcooki', 'sign', 'cooki'], rank: undefined, named: true },
    ])
  })

  it('ranks that cannot be fetched leave every word the same weight instead of failing the search', async () => {
    const broken = { size: 6, ranksOf: () => Promise.reject(new Error('offline')) }
    const { words, rankedWords } = await questionWords('signed cookie', lexical.queryTerms, broken)
    expect(rankedWords).toBe(0)
    expect(words.map((w) => w.rank)).toEqual([undefined, undefined])
  })
})
