import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { crc32 } from 'node:zlib'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { ChunkRecord } from '../core/index/format.ts'
import { chunkTermCounter, countLexicalPostings, DEFAULT_LEXICAL_SETTINGS, type ChunkTerms, type LexicalSettings } from '../core/retrieval/lexical.ts'
import { embedDigest } from './embed-text.ts'
import { LexicalCache } from './lexical-cache.ts'

const chunk = (path: string, title: string, heading: string, text: string): ChunkRecord => {
  const anchor = heading.toLowerCase().replace(/[^a-z0-9]+/g, '-')
  return { id: `${path}#${anchor}`, path, url: `/${path}`, anchor, title, trail: [title, heading], text }
}

const CHUNKS = [
  chunk('docs/cookie.md', 'Cookie Helper', 'Signed cookies', 'Use setSignedCookie with a secret: signed cookies, cookie values.'),
  chunk('docs/cookie.md', 'Cookie Helper', 'Regular cookies', 'getCookie reads a cookie; setCookie writes one.'),
  chunk('docs/bun.md', 'Bun', 'Port', 'Export an object with a port property to change the port Bun listens on.'),
]

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'docpilot-lexical-cache-'))
})
afterEach(() => rm(dir, { recursive: true, force: true }))

/** One index run's counting through the cache: the counted index, and the chunks the counter saw. */
async function run(chunks: readonly ChunkRecord[], settings: LexicalSettings = DEFAULT_LEXICAL_SETTINGS, embedDigests?: readonly string[]) {
  const cache = await LexicalCache.open(join(dir, 'cache'), settings, '0.0.0-test', join(dir, 'index'))
  const counter = chunkTermCounter(settings)
  const seen: string[] = []
  const count = (c: ChunkRecord): ChunkTerms => {
    seen.push(c.id)
    return counter(c)
  }
  const counted = cache.countPostings(chunks, count, embedDigests)
  await cache.save()
  return { counted, seen }
}

/** The cache file's words, to change in place, and how to write them back with the checksum (its last word) made good again. */
async function cacheWords() {
  const folder = join(dir, 'cache', 'lexical')
  const [file] = await readdir(folder)
  const bytes = await readFile(join(folder, file!))
  const words = new Uint32Array(bytes.buffer, bytes.byteOffset, bytes.byteLength / 4)
  return {
    words,
    write: async (resum: boolean) => {
      if (resum) words[words.length - 1] = crc32(bytes.subarray(0, bytes.length - 4))
      await writeFile(join(folder, file!), bytes)
    },
  }
}

/** Where the first chunk's record starts in the cache file (lexical-cache.ts): header, digests, the table, then the records. */
function firstRecord(words: Uint32Array): number {
  const [, chunks, tableBytes] = words
  return (16 + chunks! * 32 + tableBytes! + 3) >> 2
}

describe('LexicalCache', () => {
  it('counts a chunk once: later runs read its counts back, and build the very index counting builds', async () => {
    expect((await run(CHUNKS)).seen).toHaveLength(3)
    const again = await run(CHUNKS)
    expect(again.seen).toEqual([])
    expect(again.counted).toEqual(countLexicalPostings(CHUNKS))
  })

  it('counts only the chunks that changed, and new words get their own entries', async () => {
    await run(CHUNKS)
    const edited = [CHUNKS[0]!, { ...CHUNKS[1]!, text: 'getCookie reads a cookie; deleteCookie removes one from the jar.' }, CHUNKS[2]!]
    const changed = await run(edited)
    expect(changed.seen).toEqual([CHUNKS[1]!.id])
    const after = await run(edited)
    expect(after.seen).toEqual([])
    expect(after.counted).toEqual(countLexicalPostings(edited))
    expect(after.counted.index.map(([term]) => term)).toContain('jar')
  })

  it("takes a chunk's text into its key through the embed digest given for it, or taken here", async () => {
    await run(CHUNKS, undefined, CHUNKS.map(embedDigest))
    expect((await run(CHUNKS)).seen).toEqual([])
    const otherText = CHUNKS.map((c, i) => (i === 1 ? embedDigest({ ...c, text: 'another text' }) : embedDigest(c)))
    expect((await run(CHUNKS, undefined, otherText)).seen).toEqual([CHUNKS[1]!.id])
  })

  it('tells apart chunks whose embedded text reads alike but whose trails are split differently', async () => {
    const [first] = CHUNKS
    const split = { ...first!, trail: [first!.title, 'Signed', 'cookies'] }
    const joined = { ...first!, trail: [first!.title, 'Signed / cookies'] }
    expect(embedDigest(split)).toBe(embedDigest(joined))
    await run([split])
    const after = await run([joined])
    expect(after.seen).toEqual([joined.id])
    expect(after.counted).toEqual(countLexicalPostings([joined]))
  })

  it('keeps only the chunks the last run used', async () => {
    await run(CHUNKS)
    await run(CHUNKS.slice(0, 2))
    expect((await run(CHUNKS)).seen).toEqual([CHUNKS[2]!.id])
  })

  it("keeps only the kept chunks' terms once the others outnumber a quarter of the table, and reads the renumbered counts back", async () => {
    /** The term table of the cache file (its layout: lexical-cache.ts). */
    const table = async () => {
      const folder = join(dir, 'cache', 'lexical')
      const [file] = await readdir(folder)
      const bytes = await readFile(join(folder, file!))
      const [, chunks, tableBytes] = new Uint32Array(bytes.buffer, bytes.byteOffset, 4)
      const at = 16 + chunks! * 32
      return bytes.subarray(at, at + tableBytes!).toString('utf8').split('\n').sort()
    }
    const termsOf = (chunks: readonly ChunkRecord[]) => countLexicalPostings(chunks).index.map(([term]) => term).sort()
    await run(CHUNKS)
    expect(await table()).toEqual(termsOf(CHUNKS))
    const bun = [CHUNKS[2]!]
    await run(bun)
    expect(await table()).toEqual(termsOf(bun))
    const again = await run(bun)
    expect(again.seen).toEqual([])
    expect(again.counted).toEqual(countLexicalPostings(bun))
  })

  it('keeps counts apart per lexical settings', async () => {
    await run(CHUNKS)
    const unstemmed = { ...DEFAULT_LEXICAL_SETTINGS, stemming: 'none' as const }
    const other = await run(CHUNKS, unstemmed)
    expect(other.seen).toHaveLength(3)
    expect(other.counted).toEqual(countLexicalPostings(CHUNKS, unstemmed))
  })

  it('treats a damaged file as no cache', async () => {
    await run(CHUNKS)
    const folder = join(dir, 'cache', 'lexical')
    const [file] = await readdir(folder)
    const truncated = (await readFile(join(folder, file!))).subarray(0, -8)
    for (const damage of [Buffer.from('not a cache'), Buffer.alloc(64, 0xff), truncated]) {
      for (const file of await readdir(folder)) await writeFile(join(folder, file), damage)
      const after = await run(CHUNKS)
      expect(after.seen).toHaveLength(3)
      expect(after.counted).toEqual(countLexicalPostings(CHUNKS))
    }
  })

  it('counts every chunk again when bytes of the file changed in place (a frequency), instead of indexing them', async () => {
    await run(CHUNKS)
    const { words, write } = await cacheWords()
    // The first record: its size, then per field its length, its number of terms and (term, frequency) pairs.
    let at = firstRecord(words) + 1
    while (words[at + 1] === 0) at += 2
    words[at + 3] = words[at + 3]! + 5
    await write(false)
    const after = await run(CHUNKS)
    expect(after.seen).toHaveLength(3)
    expect(after.counted).toEqual(countLexicalPostings(CHUNKS))
  })

  it('counts again a chunk whose record names a term the table lacks', async () => {
    await run(CHUNKS)
    const { words, write } = await cacheWords()
    let at = firstRecord(words) + 1
    while (words[at + 1] === 0) at += 2
    words[at + 2] = 0xffffffff
    // Checksummed as written: only the record's own check can catch it.
    await write(true)
    const after = await run(CHUNKS)
    expect(after.seen).toHaveLength(1)
    expect(after.counted).toEqual(countLexicalPostings(CHUNKS))
  })
})
