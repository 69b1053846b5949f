import { appendFileSync, cpSync, mkdirSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { tempDirs } from '../fixtures/temp-dirs.ts'
import type { ChunkRecord } from '../core/index/format.ts'
import { collectChunks, type CollectOptions, type CollectedPage } from './collect.ts'
import { llmsFullTxt } from './llms.ts'
import { PageCache } from './page-cache.ts'
import { utf8Of } from './stored-text.ts'
import { SETTLE_MS } from './read-source.ts'

const shape: Omit<CollectOptions, 'root'> = {
  mode: 'source',
  slugger: 'github',
  urls: { base: '/', stripPrefix: '', stripExtension: true, collapseIndex: true, trailingSlash: false },
  chunks: { maxWords: 220, overlapWords: 40 },
  pages: true,
}

const temp = tempDirs('docpilot-pages-')

function docs(pages: number): string {
  const root = temp()
  mkdirSync(join(root, 'guide'))
  for (let i = 0; i < pages; i++) writeFileSync(join(root, 'guide', `p${i}.md`), `---\ntitle: Page ${i}\n---\n# Page ${i}\n\nText of page ${i}.\n\n## More\n\nMore about ${i}.\n`)
  return root
}

/**
 * Waits until every file written so far is settled (read-source.ts), so that
 * each run keeps every file's fingerprint and the journal's lines are the same
 * on a fast machine and a slow one.
 */
const settle = () => new Promise((done) => setTimeout(done, SETTLE_MS.fine + 50))

/** One index run's collect step with the page cache, as buildIndex runs it. */
async function run(root: string, cacheDir: string, settings = shape, out = '/out') {
  const cache = await PageCache.open(cacheDir, settings, 'test', out)
  const result = await collectChunks({ ...shape, root, cache })
  await cache.save()
  return result
}

/** `pages` settled docs, run once with a fresh cache: the journal as a first run leaves it. */
async function firstRun(pages: number) {
  const root = docs(pages)
  const cacheDir = temp()
  await settle()
  await run(root, cacheDir)
  return { root, cacheDir, file: journal(cacheDir) }
}

/** The journals in a cache folder, whichever index they serve. */
const journals = (cacheDir: string) =>
  readdirSync(join(cacheDir, 'pages'), { recursive: true, encoding: 'utf8' })
    .filter((name) => name.endsWith('.jsonl'))
    .map((name) => join(cacheDir, 'pages', name))
const journal = (cacheDir: string) => journals(cacheDir)[0]!
const linesOf = (kind: 'page' | 'file' | 'listing') => (file: string) => readFileSync(file, 'utf8').split('\n').filter((line) => line.startsWith(`["${kind}"`)).length
const pageLines = linesOf('page')
const fileLines = linesOf('file')

const page = (text: string): CollectedPage => ({ chunks: [{ id: 'a.md#', path: 'a.md', url: '/a', anchor: '', title: 'A', trail: ['A'], text }], warnings: [] })
const bytes = (text: string) => new TextEncoder().encode(text)

/**
 * A journal of three pages, a.md 'one', b.md `second` and c.md 'three', as a save writes it: its file and text,
 * and what a reopened cache finds of each page's text.
 */
async function threePages(second: string) {
  const cacheDir = temp()
  const cache = await PageCache.open(cacheDir, shape, 'test', '/out')
  cache.set('a.md', { bytes: bytes('# A') }, page('one'))
  cache.set('b.md', { bytes: bytes('# B') }, page(second))
  cache.set('c.md', { bytes: bytes('# C') }, page('three'))
  await cache.save()
  const file = journal(cacheDir)
  const reopen = () => PageCache.open(cacheDir, shape, 'test', '/out')
  const found = async () => {
    const next = await reopen()
    return ['a', 'b', 'c'].map((name) => next.get(`${name}.md`, { bytes: bytes(`# ${name.toUpperCase()}`) })?.chunks[0]?.text)
  }
  return { file, whole: readFileSync(file, 'utf8'), reopen, found }
}

describe('the page cache', () => {
  it("removes its index's journal of other settings when it opens, and keeps another index's", async () => {
    const root = docs(2)
    const cacheDir = temp()
    const smaller = { ...shape, chunks: { maxWords: 100, overlapWords: 20 } }
    await run(root, cacheDir)
    const [dead] = journals(cacheDir)
    await run(root, cacheDir, shape, '/another-out')
    const [live] = journals(cacheDir).filter((file) => file !== dead)
    await run(root, cacheDir, smaller)
    const left = journals(cacheDir)
    expect(left).toHaveLength(2)
    expect(left).toContain(live)
    expect(left).not.toContain(dead)
    await run(root, cacheDir, smaller)
    expect(journals(cacheDir)).toEqual(left)
  })

  it('a re-index after one page changed parses that page only, and gives what a fresh run gives', async () => {
    const root = docs(20)
    const cacheDir = temp()
    expect((await run(root, cacheDir)).parsed).toBe(20)
    appendFileSync(join(root, 'guide/p7.md'), '\nA new paragraph.\n')
    const again = await run(root, cacheDir)
    expect(again.parsed).toBe(1)
    const fresh = await collectChunks({ ...shape, root })
    expect(again).toEqual({ ...fresh, parsed: 1 })
    expect(again.chunks.find((c) => c.path === 'guide/p7.md' && c.anchor === 'more')?.text).toMatch(/A new paragraph\./)
    // The Markdown copies, as the agent files take them (the cached ones as the bytes they were stored as).
    expect(llmsFullTxt(again.pages)).toEqual(llmsFullTxt(fresh.pages))
  })

  it('forgets a deleted page, and is not written again by a run that changed nothing', async () => {
    const { root, cacheDir, file } = await firstRun(3)
    unlinkSync(join(root, 'guide/p1.md'))
    await run(root, cacheDir)
    const written = statSync(file)
    expect(pageLines(file)).toBe(2)
    expect((await run(root, cacheDir)).parsed).toBe(0)
    expect(statSync(file)).toMatchObject({ ino: written.ino, size: written.size })
  })

  it('appends a changed page to the journal, and rewrites it with the live pages only once unused ones pile up', async () => {
    const { root, cacheDir, file } = await firstRun(10)
    const first = statSync(file)
    for (const edit of [1, 2]) {
      appendFileSync(join(root, 'guide/p0.md'), `\nEdit ${edit}.\n`)
      await settle()
      await run(root, cacheDir)
      // Appended: the same file, with p0's new page (its old one and its old fingerprint are unused now).
      expect(statSync(file).ino).toBe(first.ino)
      expect(pageLines(file)).toBe(10 + edit)
    }
    appendFileSync(join(root, 'guide/p0.md'), '\nEdit 3.\n')
    await settle()
    const third = await run(root, cacheDir)
    // Three unused pages and their fingerprints, about 30% of the live lines' characters (ten pages, each
    // with its fingerprint), over a quarter: the file is replaced (written, then renamed: a new inode),
    // with one line per page in use.
    expect(statSync(file).ino).not.toBe(first.ino)
    expect(pageLines(file)).toBe(10)
    expect(linesOf('listing')(file)).toBe(1)
    expect(third.chunks.some((c) => c.text.includes('Edit 3.'))).toBe(true)
  })

  it('appends the fingerprints a run over a copy of the docs finds (every file touched), rather than rewriting every page', async () => {
    const { root, cacheDir, file } = await firstRun(8)
    const first = statSync(file)
    const copy = temp()
    cpSync(root, copy, { recursive: true })
    await settle()
    expect((await run(copy, cacheDir)).parsed).toBe(0)
    // Eight unused fingerprint lines weigh far less than a quarter of the live pages: appended, not rewritten.
    expect(statSync(file).ino).toBe(first.ino)
    expect(fileLines(file)).toBe(16)
    expect(pageLines(file)).toBe(8)
  })

  it('a journal whose last append was cut short keeps its whole lines, and is rewritten by the next save', async () => {
    const { root, cacheDir, file } = await firstRun(3)
    appendFileSync(file, '["page","abc",{"chunks":[')
    expect((await run(root, cacheDir)).parsed).toBe(0)
    expect(readFileSync(file, 'utf8').endsWith(']\n')).toBe(true)
    expect(pageLines(file)).toBe(3)
  })

  it('names each page it used with an id that stays while the page does and changes with its bytes or the settings (what lets the write step keep its parts)', async () => {
    const cacheDir = temp()
    const first = await PageCache.open(cacheDir, shape, 'test', '/out')
    first.set('a.md', { bytes: bytes('# A'), fingerprint: { id: 'f1', settled: true } }, page('one'))
    first.set('b.md', { bytes: bytes('# B') }, page('two'))
    expect(first.pageId('c.md')).toBeUndefined()
    await first.save()
    const next = await PageCache.open(cacheDir, shape, 'test', '/out')
    next.unchanged('a.md', () => 'f1')
    next.set('b.md', { bytes: bytes('# B, edited') }, page('two, edited'))
    expect(next.pageId('a.md')).toBe(first.pageId('a.md'))
    expect(next.pageId('b.md')).not.toBe(first.pageId('b.md'))
    const otherSettings = await PageCache.open(cacheDir, { ...shape, chunks: { maxWords: 100, overlapWords: 20 } }, 'test', '/out')
    otherSettings.get('a.md', { bytes: bytes('# A') })
    otherSettings.set('a.md', { bytes: bytes('# A') }, page('one, cut smaller'))
    expect(otherSettings.pageId('a.md')).not.toBe(first.pageId('a.md'))
  })

  it("finds an unchanged file's page by its settled fingerprint, without its bytes", async () => {
    const cacheDir = temp()
    const first = await PageCache.open(cacheDir, shape, 'test', '/out')
    first.set('a.md', { bytes: bytes('# A'), fingerprint: { id: 'f1', settled: true } }, page('one'))
    first.set('b.md', { bytes: bytes('# B'), fingerprint: { id: 'f2', settled: false } }, page('two'))
    await first.save()
    const next = await PageCache.open(cacheDir, shape, 'test', '/out')
    expect(next.unchanged('a.md', () => 'f1')).toEqual(page('one'))
    // A fingerprint that changed means a read; one taken too close to a change was never kept.
    expect(next.unchanged('a.md', () => 'f1-touched')).toBeUndefined()
    let asked = false
    expect(next.unchanged('b.md', () => ((asked = true), 'f2'))).toBeUndefined()
    expect(asked).toBe(false)
    // The page is still found by its bytes.
    expect(next.get('b.md', { bytes: bytes('# B') })).toEqual(page('two'))
  })

  it('reads back pages in any script, each line decoded on its own', async () => {
    const cacheDir = temp()
    const texts = ['plain ASCII', 'Größe und Maß', '日本語のページ', 'emoji 🚀 and \u2028 a line separator']
    const cache = await PageCache.open(cacheDir, shape, 'test', '/out')
    texts.forEach((text, i) => cache.set(`p${i}.md`, { bytes: bytes(text) }, page(text)))
    await cache.save()
    const next = await PageCache.open(cacheDir, shape, 'test', '/out')
    texts.forEach((text, i) => expect(next.get(`p${i}.md`, { bytes: bytes(text) })).toEqual(page(text)))
  })

  it("keeps a read page's chunk texts as the journal's bytes until something reads them (a re-index reads few)", async () => {
    const cacheDir = temp()
    const texts = ['plain ASCII', 'Größe 🚀']
    const cache = await PageCache.open(cacheDir, shape, 'test', '/out')
    texts.forEach((text, i) => cache.set(`p${i}.md`, { bytes: bytes(text) }, page(text)))
    await cache.save()
    const next = await PageCache.open(cacheDir, shape, 'test', '/out')
    const chunks = texts.map((text, i) => next.get(`p${i}.md`, { bytes: bytes(text) })!.chunks[0]!)
    const held = chunks.map((chunk) => utf8Of(chunk, 'text'))
    expect(held.map((b) => Buffer.from(b).toString())).toEqual(texts)
    // Views of the one buffer the journal was read into, where the journal holds them: not text encoded again.
    expect(held[0]!.buffer).toBe(held[1]!.buffer)
    const file = readFileSync(journal(cacheDir))
    for (const [i, bytes] of held.entries()) expect(file.subarray(bytes.byteOffset, bytes.byteOffset + bytes.length).toString()).toBe(texts[i])
    expect(chunks.map((chunk) => chunk.text)).toEqual(texts)
  })

  it('keeps a page\'s bodies as they were: lines, quotes, any script, its Markdown copy, a lone surrogate', async () => {
    const cacheDir = temp()
    const withCopy = (text: string, markdown: string): CollectedPage => ({
      ...page(text),
      entry: { path: 'a.md', url: '/a', title: 'A', description: 'About "A".', markdown },
    })
    const pages = [
      withCopy('line one\nline "two"\n\n["page","looks like a record"]\n', '# A\n\n```js\nconsole.log("\\n")\n```\n'),
      withCopy('Größe 日本語 🚀', '# Größe\n'),
      withCopy('half a pair: \ud83d', '# \udc00 alone\n'),
      withCopy('', ''),
    ]
    const cache = await PageCache.open(cacheDir, shape, 'test', '/out')
    pages.forEach((p, i) => cache.set(`p${i}.md`, { bytes: bytes(`page ${i}`) }, p))
    await cache.save()
    const next = await PageCache.open(cacheDir, shape, 'test', '/out')
    pages.forEach((p, i) => expect(next.get(`p${i}.md`, { bytes: bytes(`page ${i}`) })).toEqual(p))
  })

  it('writes once what a page\'s chunks share, and gives back each chunk as it was: ids of their own, chunks that share less, fields of their own', async () => {
    const cacheDir = temp()
    const chunk = (anchor: string, more: Partial<ChunkRecord> = {}): ChunkRecord => ({ id: `g.md#${anchor}`, path: 'g.md', url: '/g', anchor, title: 'G', trail: ['G', anchor], text: `About ${anchor}.`, ...more })
    const pages: CollectedPage[] = [
      { chunks: [chunk(''), chunk('a', { id: 'g.md#a~0' }), chunk('a', { id: 'g.md#a~1' }), chunk('b@1')], warnings: [], digests: ['d1', 'd2', 'd3', 'd4'] },
      { chunks: [chunk('a'), chunk('b', { title: 'Another title' })], warnings: ['a note'] },
      { chunks: [chunk('a'), { ...chunk('b'), extra: true } as ChunkRecord], warnings: [] },
    ]
    const cache = await PageCache.open(cacheDir, shape, 'test', '/out')
    pages.forEach((p, i) => cache.set(`p${i}.md`, { bytes: bytes(`page ${i}`) }, p))
    await cache.save()
    const next = await PageCache.open(cacheDir, shape, 'test', '/out')
    pages.forEach((p, i) => {
      const back = next.get(`p${i}.md`, { bytes: bytes(`page ${i}`) })
      expect(back).toEqual(p)
      // In the order toChunks writes the fields (what a part written from them follows).
      expect(back?.chunks.map((c) => Object.keys(c))).toEqual(p.chunks.map((c) => Object.keys(c)))
    })
    expect(readFileSync(journal(cacheDir), 'utf8').match(/"g\.md"/g)).toHaveLength(1 + 2 + 2)
  })

  it('a record cut short, or one whose bodies are not the length it says, ends the reading: the pages before it are kept, none after, and the next save rewrites the file', async () => {
    const { file, whole, reopen, found } = await threePages('two\nwords')
    // Cut inside the second page's bodies.
    writeFileSync(file, whole.slice(0, whole.indexOf('two') + 2))
    expect(await found()).toEqual(['one', undefined, undefined])
    // The second page's body one byte shorter than its record says, one byte longer, and its length ending where its line does.
    for (const damaged of [whole.replace('two\nwords', 'two\nword'), whole.replace('two\nwords', 'two\nwordss'), whole.replace(',[9]', ',[3]')]) {
      expect(damaged).not.toBe(whole)
      writeFileSync(file, damaged)
      expect(await found()).toEqual(['one', undefined, undefined])
    }
    // Cut after its first bytes, with another run's records appended right after (two runs sharing the
    // journal): the length it says lands on one of their line ends, which must not pass for its end.
    const bodyAt = whole.indexOf('two\nwords')
    const headAt = whole.lastIndexOf('\n["page"', bodyAt) + 1
    const intruders = '["file","c.md","fp","k"]\n["file","d.md","fp","k"]\n'
    const swallowed = `AAAA${intruders.slice(0, intruders.indexOf('\n'))}`
    const spliced = whole.slice(0, headAt) + whole.slice(headAt, bodyAt).replace(',[9]', `,[${Buffer.byteLength(swallowed)}]`) + 'AAAA' + intruders
    writeFileSync(file, spliced)
    expect(await found()).toEqual(['one', undefined, undefined])
    const damaged = await reopen()
    damaged.get('a.md', { bytes: bytes('# A') })
    await damaged.save()
    expect(readFileSync(file, 'utf8')).not.toContain('two')
    expect(await found()).toEqual(['one', undefined, undefined])
  })

  it("a page record whose bytes changed in place (a body, or its line), every length still right, fails its checksum and ends the reading as damage does", async () => {
    const { file, whole, found } = await threePages('two words')
    expect(await found()).toEqual(['one', 'two words', 'three'])
    const second = whole.indexOf('two words')
    const line = whole.lastIndexOf('\n["page"', second) + 1
    const inLine = whole.indexOf('"/a"', line)
    expect(inLine).toBeLessThan(second)
    for (const damaged of [whole.replace('two words', 'two wordz'), `${whole.slice(0, inLine)}"/b"${whole.slice(inLine + 4)}`]) {
      expect(damaged.length).toBe(whole.length)
      writeFileSync(file, damaged)
      expect(await found()).toEqual(['one', undefined, undefined])
    }
  })

  it('a re-index over unchanged folders takes the files the listing kept (no walk), and walks again once a folder changed', async () => {
    const { root, cacheDir, file } = await firstRun(3)
    const listing = readFileSync(file, 'utf8').split('\n').find((line) => line.startsWith('["listing"'))!
    // A listing naming a file the folder does not hold: only a run that takes the files from the listing looks for it.
    const [, walk, folders, files] = JSON.parse(listing) as [string, string, string[][], string[]]
    appendFileSync(file, `${JSON.stringify(['listing', walk, folders, [...files, 'guide/ghost.md']])}\n`)
    expect((await run(root, cacheDir)).warnings).toEqual([{ file: 'guide/ghost.md', message: expect.stringMatching(/^could not be read \(ENOENT\)/) }])
    writeFileSync(join(root, 'guide', 'p3.md'), '# Page 3\n\nA new page.\n')
    const again = await run(root, cacheDir)
    expect(again.warnings).toEqual([])
    expect(again.files).toEqual(['guide/p0.md', 'guide/p1.md', 'guide/p2.md', 'guide/p3.md'])
  })

  it('finds the pages added, removed or moved to a new folder since the listing was kept', async () => {
    const { root, cacheDir } = await firstRun(3)
    const fresh = () => collectChunks({ ...shape, root }).then((result) => result.files)
    writeFileSync(join(root, 'guide', 'p3.md'), '# Page 3\n')
    unlinkSync(join(root, 'guide', 'p0.md'))
    expect((await run(root, cacheDir)).files).toEqual(await fresh())
    await settle()
    await run(root, cacheDir)
    mkdirSync(join(root, 'guide', 'deeper'))
    renameSync(join(root, 'guide', 'p1.md'), join(root, 'guide', 'deeper', 'p1.md'))
    const moved = await run(root, cacheDir)
    expect(moved.files).toEqual(await fresh())
    expect(moved.files).toContain('guide/deeper/p1.md')
  })

  it('a damaged cache file is an empty cache', async () => {
    const cacheDir = temp()
    const cache = await PageCache.open(cacheDir, shape, 'test', '/out')
    cache.set('a.md', { bytes: bytes('# A') }, page('one'))
    await cache.save()
    writeFileSync(journal(cacheDir), '["page", "x')
    expect((await PageCache.open(cacheDir, shape, 'test', '/out')).get('a.md', { bytes: bytes('# A') })).toBeUndefined()
  })
})
