import { describe, expect, it } from 'vitest'
import { chunkTermCounter, countLexicalPostings } from '../retrieval/lexical.ts'
import type { ChunkRecord } from './format.ts'
import { patchLexicalSplit, ShardMismatch, type PatchedSplit } from './postings-patch.ts'
import { decodeTerms, sectionRuns, splitLexicalIndex, type SplitLexicalIndex } from './postings.ts'
import { testChunk } from './testing.ts'

const WORDS = ['route', 'page', 'cookie', 'middleware', 'deploy', 'adapter', 'island', 'content', 'collection', 'image', 'script', 'style', 'server', 'endpoint', 'redirect']

/** Chunks with overlapping vocabularies, so that terms are shared between documents and shards. */
function corpus(n: number): ChunkRecord[] {
  return Array.from({ length: n }, (_, i) => {
    const words = Array.from({ length: 12 }, (_, w) => `${WORDS[(i * 7 + w * 3) % WORDS.length]}${(i + w) % 5 === 0 ? 's' : ''}`)
    return testChunk(`guide/page-${Math.floor(i / 3)}.md`, `Page ${Math.floor(i / 3)}`, `Section ${i % 3}`, `${words.join(' ')} term${i}`)
  })
}

const split = (chunks: readonly ChunkRecord[], shardBytes: number): SplitLexicalIndex => splitLexicalIndex(countLexicalPostings(chunks), sectionRuns(chunks), shardBytes)

/** The patched split with each reused shard's JSON taken from the previous split, and how many were reused. */
function patch(before: readonly ChunkRecord[], after: readonly ChunkRecord[], shardBytes: number): { patched: PatchedSplit; jsons: string[]; reused: number } {
  const previous = split(before, shardBytes)
  const count = chunkTermCounter()
  const changes = after.flatMap((chunk, doc) => (chunk === before[doc] ? [] : [{ doc, before: count(before[doc]!), after: count(chunk) }]))
  const patched = patchLexicalSplit(
    { head: previous.head, terms: decodeTerms(previous.head), rowBytes: previous.rowBytes, shardJson: (i) => previous.shardJsons[i]! },
    changes,
    sectionRuns(after),
    shardBytes,
  )
  const jsons = patched.shards.map((s) => ('json' in s ? s.json : previous.shardJsons[s.previous]!))
  return { patched, jsons, reused: patched.shards.filter((s) => 'previous' in s).length }
}

function expectSameAsSplit(after: readonly ChunkRecord[], shardBytes: number, result: ReturnType<typeof patch>): void {
  const fresh = split(after, shardBytes)
  expect(JSON.stringify(result.patched.head)).toBe(JSON.stringify(fresh.head))
  expect(result.jsons).toEqual(fresh.shardJsons)
  expect(result.patched.firsts).toEqual(fresh.firsts)
  expect(result.patched.rowBytes).toEqual(fresh.rowBytes)
}

const edited = (chunks: readonly ChunkRecord[], doc: number, text: string): ChunkRecord[] => chunks.map((c, i) => (i === doc ? { ...c, text } : c))

describe('patchLexicalSplit', () => {
  const before = corpus(60)

  for (const shardBytes of [1, 300, 2_000, 100_000]) {
    it(`gives the split of the new counts, byte for byte, after documents change in place (shards of ${shardBytes} bytes)`, () => {
      const cases: Array<[string, ChunkRecord[]]> = [
        ['a word appended', edited(before, 17, `${before[17]!.text} route`)],
        ['a word new to the docs', edited(before, 30, `${before[30]!.text} zebra`)],
        ['a term only this document had is gone', edited(before, 5, before[5]!.text.replace('term5', ''))],
        ['the first and last documents rewritten', edited(edited(before, 0, 'aardvark zymurgy'), 59, 'page page page cookie')],
        ['a heading changed (another field)', before.map((c, i) => (i === 8 ? { ...c, trail: [c.title, 'Island architecture'] } : c))],
        ['nothing changed', before.slice()],
      ]
      for (const [, after] of cases) expectSameAsSplit(after, shardBytes, patch(before, after, shardBytes))
      // The first term in order gone, and the terms on either side of a removed one.
      const first = edited(before, 3, `aardvark ${before[3]!.text} island`)
      expectSameAsSplit(before, shardBytes, patch(first, before, shardBytes))
    })
  }

  it('reuses every shard that holds no edited term, and makes only the others', () => {
    const after = edited(before, 17, `${before[17]!.text} zebra`)
    const result = patch(before, after, 300)
    expectSameAsSplit(after, 300, result)
    expect(result.patched.shards.length).toBeGreaterThan(4)
    // One new term, term17's document unchanged otherwise: the shard it lands in, and the shards whose bounds move after it.
    expect(result.reused).toBeGreaterThan(0)
    expect(result.reused).toBeLessThan(result.patched.shards.length)
  })

  it('codes the terms beside a new first term, and after a removed one, as a fresh split does', () => {
    const before = [testChunk('a.md', 'A', 'Start', 'route adapter zebra'), testChunk('b.md', 'B', 'Start', 'route')]
    const after = edited(before, 1, 'route aardvark')
    expectSameAsSplit(after, 300, patch(before, after, 300))
    expectSameAsSplit(before, 300, patch(after, before, 300))
  })

  it('takes the unedited rows of a shard it makes again from the previous shard as written, and refuses a shard that is not the rows its lengths say', () => {
    const after = edited(before, 17, `${before[17]!.text} route`)
    const previous = split(before, 300)
    const count = chunkTermCounter()
    const run = (shardJson: (i: number) => string) =>
      patchLexicalSplit({ head: previous.head, terms: decodeTerms(previous.head), rowBytes: previous.rowBytes, shardJson }, [{ doc: 17, before: count(before[17]!), after: count(after[17]!) }], sectionRuns(after), 300)
    const read: number[] = []
    run((i) => (read.push(i), previous.shardJsons[i]!))
    expect(read.length).toBeGreaterThan(0)
    // The same rows, spaced differently: the lengths no longer cut it into its rows.
    expect(() => run((i) => previous.shardJsons[i]!.replaceAll(',', ', '))).toThrow(ShardMismatch)
  })

  it('changes nothing and reuses every shard when the counts are the same', () => {
    const result = patch(before, before.slice(), 300)
    expect(result.reused).toBe(result.patched.shards.length)
  })
})
