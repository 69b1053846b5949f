import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { sharedPath } from '../../fixtures/shared-data.ts'
import { collectChunks, type CollectOptions } from '../../indexer/collect.ts'
import type { ChunkRecord } from '../index/format.ts'
import { testChunk as doc } from '../index/testing.ts'
import { buildLexicalIndex, buildLexicalPlain, countLexicalPostings, DEFAULT_LEXICAL_SETTINGS, type BuiltLexicalIndex, type LexicalHit } from './lexical.ts'
import { openSplitLexicalIndex } from './lexical-split.ts'
import { sectionRuns, splitLexicalIndex, type PostingsShard } from '../index/postings.ts'


const CHUNKS = [
  doc('docs/helpers/cookie.md', 'Cookie Helper', 'Signed cookies', 'Call getSignedCookie(c, secret) to read a cookie that cannot be tampered with.'),
  doc('docs/api/context.md', 'Context', 'set() / get()', 'Store a value for the rest of the request with c.set and read it with c.get.'),
  doc('docs/getting-started/bun.md', 'Bun', 'Change port number', 'Export a port property to change the port.'),
  doc('docs/guides/deploy.md', 'Deploying', 'Documentation builds', 'Do it in a documented way: docs are generated at build time. Middleware runs first.'),
  doc('docs/guides/middleware.md', 'Middleware', 'Writing middlewares', 'A middleware function receives the context and next; documentation of each built-in middleware follows.'),
]

/** The split parts as a reader receives them (JSON round trip), built as the indexer builds them (countLexicalPostings). */
function reader(index: BuiltLexicalIndex, chunks: readonly ChunkRecord[] = CHUNKS, shardBytes?: number) {
  const { head, shards } = JSON.parse(JSON.stringify(splitLexicalIndex(countLexicalPostings(chunks, index.settings), sectionRuns(chunks), shardBytes))) as ReturnType<typeof splitLexicalIndex>
  const fetched: number[] = []
  const split = openSplitLexicalIndex(head, JSON.parse(JSON.stringify(index.settings)), async (i) => {
    fetched.push(i)
    return shards[i]!
  })
  return { split, fetched, shards }
}

describe('lexical index split by term', () => {
  const index = buildLexicalIndex(CHUNKS)
  const runs = sectionRuns(CHUNKS)

  it('builds the very index minisearch builds: terms, frequencies, field lengths and their averages', () => {
    const byTerm = (js: ReturnType<typeof buildLexicalPlain>) => ({ ...js, index: [...js.index].sort((a, b) => (a[0] < b[0] ? -1 : 1)) })
    expect(byTerm(JSON.parse(JSON.stringify(buildLexicalPlain(CHUNKS))))).toEqual(byTerm(JSON.parse(JSON.stringify(index.toPlain()))))
  })

  it('splits the counted postings into the very parts it splits minisearch\'s own index into', () => {
    const repeated = [...CHUNKS, doc('docs/guides/cookie.md', 'Cookies', 'Cookie cookie', 'cookie cookies cookie getSignedCookie cookie')]
    for (const shardBytes of [1, 200, undefined]) {
      const counted = splitLexicalIndex(countLexicalPostings(repeated), sectionRuns(repeated), shardBytes)
      expect(counted).toEqual(splitLexicalIndex(buildLexicalIndex(repeated).toPlain(), sectionRuns(repeated), shardBytes))
      // The shards' JSON, made while sizing them, is what serializing them gives.
      expect(counted.shardJsons).toEqual(counted.shards.map((shard) => JSON.stringify(shard)))
      // Some term repeats in a chunk: rows carry frequencies, the part the counting builds.
      expect(counted.shards.flat().some((row) => row.some((entry) => entry !== 0 && Array.isArray(entry[0])))).toBe(true)
    }
  })

  it('answers every query exactly as the whole index does, prefix and fuzzy matches included', async () => {
    // Tiny shards: nearly every term in its own file, so a missed expansion would show.
    const { split, shards } = reader(index, CHUNKS, 1)
    expect(shards.length).toBeGreaterThan(40)
    // 'documen' prefix-matches documentation/documented; 'middlewear' fuzzy-matches middleware; 'middlewares' both.
    for (const q of ['signed cookies', 'getSignedCookie', 'documen', 'middlewear', 'middlewares first', 'port number bun', 'nothing matches zzz']) {
      expect(await split.search(q, 8), q).toEqual(index.searchNow(q, 8))
    }
    expect(await split.search('middlewear', 8)).not.toEqual([])
  })

  it('fetches only the shards holding the terms a query needs, once each', async () => {
    const { split, fetched, shards } = reader(index, CHUNKS, 1)
    await split.search('bun', 8)
    expect(fetched).toHaveLength(1)
    await split.search('bun port', 8)
    await split.search('bun port', 8)
    expect(fetched).toHaveLength(2)
    expect(fetched.length).toBeLessThan(shards.length)
  })

  it('tells whether a word occurs in the docs, and which chunks are windows of one section, from the head alone', () => {
    const { split, fetched } = reader(index, CHUNKS, 1)
    expect(split.hasTerm('cooki')).toBe(true)
    expect(split.hasTerm('banana')).toBe(false)
    const windows = [CHUNKS[0]!, { ...CHUNKS[0]!, id: `${CHUNKS[0]!.id}~1` }, CHUNKS[1]!, CHUNKS[0]!]
    expect(sectionRuns(windows)).toEqual([2, 1, 1])
    const sections = openSplitLexicalIndex(splitLexicalIndex(buildLexicalIndex(windows).toPlain(), sectionRuns(windows)).head, index.settings, async () => [])
    expect([0, 1, 2, 3].map((o) => sections.sectionOf(o))).toEqual([0, 0, 1, 2])
    expect(fetched).toEqual([])
  })

  it('retries a shard whose fetch failed, and rejects a shard that does not match the head', async () => {
    const { head, shards } = splitLexicalIndex(index.toPlain(), runs, 1)
    let fail = true
    const split = openSplitLexicalIndex(head, index.settings, async (i) => {
      if (fail) {
        fail = false
        throw new Error('network down')
      }
      return shards[i]!
    })
    await expect(split.search('bun', 8)).rejects.toThrow('network down')
    expect(await split.search('bun', 8)).toEqual(index.searchNow('bun', 8))
    const broken = openSplitLexicalIndex(head, index.settings, async () => [] as PostingsShard)
    await expect(broken.search('bun', 8)).rejects.toThrow(/holds 0 terms; the head expects 1/)
  })

  it('refuses a head written by another encoding or settings for another tokenizer', () => {
    const { head } = splitLexicalIndex(index.toPlain(), runs)
    expect(() => openSplitLexicalIndex({ ...head, encoding: 'v0' as never }, index.settings, async () => [])).toThrow(/encoding "v0"/)
    expect(() => openSplitLexicalIndex(head, { ...DEFAULT_LEXICAL_SETTINGS, tokenizer: 'other' as never }, async () => [])).toThrow(/tokenizer "other"/)
  })
})

/**
 * The proof over real docs: for every question of the four dev sets, the
 * split reader (default shard size) returns the whole index's top 50, same
 * chunks in the same order, same scores.
 */
const URLS: CollectOptions['urls'] = { base: '/', stripPrefix: '', stripExtension: true, collapseIndex: true, trailingSlash: false }
const corpora = [
  { name: 'hono', include: undefined, sets: ['hono-dev.jsonl', 'hono-dev-2.jsonl'] },
  { name: 'astro', include: ['src/content/docs/en/**/*.md', 'src/content/docs/en/**/*.mdx'], sets: ['astro-dev.jsonl', 'astro-dev-2.jsonl'] },
]

describe('split index over the dev questions', () => {
  for (const corpus of corpora) {
    it(`gives the whole index's top 50 for every ${corpus.name} dev question`, async () => {
      const root = sharedPath(`corpora/${corpus.name}`)
      const { chunks } = await collectChunks({
        root,
        mode: 'source',
        ...(corpus.include ? { include: corpus.include } : {}),
        slugger: 'github',
        urls: URLS,
        chunks: { maxWords: 220, overlapWords: 40 },
      })
      const index = buildLexicalIndex(chunks)
      // The indexer's own build of the postings is minisearch's, exactly.
      const js = buildLexicalPlain(chunks)
      expect(js.averageFieldLength).toEqual(index.toPlain().averageFieldLength)
      expect(js.fieldLength).toEqual(index.toPlain().fieldLength)
      const { split } = reader(index, chunks)
      const questions = corpus.sets.flatMap((set) =>
        readFileSync(sharedPath(`eval/${set}`), 'utf8').trim().split('\n').map((line) => (JSON.parse(line) as { q: string }).q),
      )
      expect(questions.length).toBe(96)
      let exact = 0
      for (const q of questions) {
        const whole = index.searchNow(q, 50)
        const parts = await split.search(q, 50)
        expect(parts.map((h) => h.ordinal), q).toEqual(whole.map((h) => h.ordinal))
        parts.forEach((h: LexicalHit, i) => {
          expect(h.coverage).toBe(whole[i]!.coverage)
          // Same postings, same formula; only the order of a float sum may differ in its last bit.
          expect(Math.abs(h.score - whole[i]!.score)).toBeLessThanOrEqual(1e-12 * whole[i]!.score)
        })
        if (parts.every((h, i) => h.score === whole[i]!.score)) exact++
      }
      // Bit-identical in practice; the tolerance above only covers summation order.
      expect(exact).toBeGreaterThan(questions.length * 0.9)
    }, 300_000) // two full index builds per corpus; generous for a loaded machine
  }
})
