import { createHash } from 'node:crypto'
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { MANIFEST_FILE, shardFile, type ChunkRecord, type ShardSet } from '../core/index/format.ts'
import { DEFAULT_LEXICAL_SETTINGS } from '../core/retrieval/lexical.ts'
import { writeIndex, type WriteIndexInput } from './write.ts'

const WORDS = ['route', 'page', 'cookie', 'middleware', 'deploy', 'adapter', 'island', 'content', 'collection', 'image', 'script', 'style', 'server', 'endpoint', 'redirect', 'build']

/** A page's chunks: one per section, words drawn so that pages share terms. */
function page(p: number, sections: number, extra = ''): ChunkRecord[] {
  const path = `guides/page-${p}.md`
  return Array.from({ length: sections }, (_, s) => {
    const words = Array.from({ length: 10 }, (_, w) => WORDS[(p * 5 + s * 3 + w * 7) % WORDS.length]!)
    const heading = `Section ${s}`
    return { id: `${path}#section-${s}`, path, url: `/guides/page-${p}/`, anchor: `section-${s}`, title: `Page ${p}`, trail: [`Page ${p}`, heading], text: `${words.join(' ')} only${p}x${s}${s === 0 ? extra : ''}` }
  })
}

const site = (pages: ChunkRecord[][]) => pages.flat()
const PAGES = Array.from({ length: 8 }, (_, p) => page(p, 3 + (p % 3)))

/** What the page cache gives each page: an id that follows its content. */
const pageIds = (chunks: readonly ChunkRecord[]) => {
  const byPath = new Map<string, ChunkRecord[]>()
  for (const c of chunks) byPath.set(c.path, [...(byPath.get(c.path) ?? []), c])
  return (path: string) => {
    const own = byPath.get(path)
    return own && createHash('sha256').update(JSON.stringify(own.map((c) => ({ ...c, id: '' })))).digest('hex')
  }
}

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'docpilot-corpus-parts-'))
})
afterEach(() => rm(dir, { recursive: true, force: true }))

const input = (out: string, chunks: ChunkRecord[], extra: Partial<WriteIndexInput> = {}): WriteIndexInput => ({
  chunks,
  files: new Set(chunks.map((c) => c.path)).size,
  out,
  docpilotVersion: '0.0.0-test',
  createdAt: new Date(0).toISOString(),
  shardSize: 4,
  postingsShardBytes: 200,
  pageId: pageIds(chunks),
  ...extra,
})

async function snapshot(folder: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {}
  for (const e of await readdir(folder, { recursive: true, withFileTypes: true })) {
    if (e.isFile()) out[join(e.parentPath, e.name).slice(folder.length + 1)] = (await readFile(join(e.parentPath, e.name))).toString('base64')
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : 1)))
}

/** A re-index of `after` over the index of `before` (with a cache), and a fresh build of `after`: the folders and what the runs report must agree. */
async function reindex(before: ChunkRecord[], after: ChunkRecord[], extra: { first?: Partial<WriteIndexInput>; second?: Partial<WriteIndexInput>; between?: (out: string) => Promise<void> } = {}) {
  const out = join(dir, 'idx')
  const cacheDir = join(dir, 'cache')
  await writeIndex(input(out, before, { cacheDir, ...extra.first }))
  await extra.between?.(out)
  const second = await writeIndex(input(out, after, { cacheDir, ...extra.second }))
  const fresh = await writeIndex(input(join(dir, 'fresh'), after, extra.second))
  expect(await snapshot(out)).toEqual(await snapshot(join(dir, 'fresh')))
  expect(second.parts).toEqual(fresh.parts)
  expect(second.manifest).toEqual(fresh.manifest)
  return second
}

describe('a re-index patches the corpus parts of the pages that changed, and writes what a fresh build writes', () => {
  it('makes only the changed chunk when a page changes in place', async () => {
    const after = site(PAGES.map((chunks, p) => (p === 3 ? page(3, chunks.length, ' route zebra') : chunks)))
    const second = await reindex(site(PAGES), after)
    expect(second.chunksMade).toBe(1)
  })

  it('makes nothing when nothing changed, and when a page was touched without a change', async () => {
    expect((await reindex(site(PAGES), site(PAGES))).chunksMade).toBe(0)
    const touched = (path: string) => (path === 'guides/page-2.md' ? 'another id' : pageIds(site(PAGES))(path))
    expect((await reindex(site(PAGES), site(PAGES), { second: { pageId: touched } })).chunksMade).toBe(0)
  })

  it('leaves the index folder as it is when a re-run would write the same one, and writes only what differs', async () => {
    const out = join(dir, 'idx')
    const cacheDir = join(dir, 'cache')
    const { manifest } = await writeIndex(input(out, site(PAGES), { cacheDir }))
    const texts = manifest.parts.texts as ShardSet
    const files = [MANIFEST_FILE, String(manifest.parts.lexical), shardFile(texts, 0), shardFile(texts, 1)].map((name) => join(out, name))
    // Inode and change time: a file written, linked or renamed again shows in one of them.
    const stamps = async () => Promise.all(files.map(async (f) => stat(f).then((s) => `${s.ino}:${s.ctimeMs}`)))
    const before = await stamps()
    const again = await writeIndex(input(out, site(PAGES), { cacheDir }))
    expect(await stamps()).toEqual(before)
    const fresh = await writeIndex(input(join(dir, 'fresh'), site(PAGES)))
    expect(await snapshot(out)).toEqual(await snapshot(join(dir, 'fresh')))
    expect(again.parts).toEqual(fresh.parts)
    // A file that is no part goes, and nothing else changes.
    await writeFile(join(out, 'stray.txt'), 'not a part')
    await writeIndex(input(out, site(PAGES), { cacheDir }))
    expect(await stamps()).toEqual(before)
    expect(await snapshot(out)).toEqual(await snapshot(join(dir, 'fresh')))
    // A part changed on disk is written again, and only it.
    await writeFile(files[3]!, 'damaged')
    await writeIndex(input(out, site(PAGES), { cacheDir }))
    expect((await stamps()).slice(0, 3)).toEqual(before.slice(0, 3))
    expect(await snapshot(out)).toEqual(await snapshot(join(dir, 'fresh')))
    await writeIndex(input(out, site(PAGES), { cacheDir, createdAt: new Date(1000).toISOString() }))
    expect(JSON.parse(await readFile(join(out, 'manifest.json'), 'utf8')).createdAt).toBe(new Date(1000).toISOString())
  })

  it('patches the first and the last page, and a page whose only own term goes', async () => {
    const after = site(PAGES.map((chunks, p) => (p === 0 ? page(0, chunks.length, ' aardvark') : p === 7 ? chunks.map((c) => ({ ...c, text: c.text.replace(/ only\S+/, '') })) : chunks)))
    expect((await reindex(site(PAGES), after)).chunksMade).toBe(1 + PAGES[7]!.length)
  })

  it('patches a heading change (another field, and another section run)', async () => {
    const after = site(PAGES.map((chunks, p) => (p === 5 ? chunks.map((c, s) => (s === 1 ? { ...c, anchor: 'renamed', id: `${c.path}#renamed`, trail: [c.title, 'Renamed'] } : c)) : chunks)))
    expect((await reindex(site(PAGES), after)).chunksMade).toBe(1)
  })

  const renamed = (suffix: string) => site(PAGES).map((c, i) => (i === 10 ? { ...c, id: `${c.id}${suffix}` } : c))
  it.each([
    ['made unique', site(PAGES), renamed('~dup2')],
    ['no longer made unique', renamed('~dup2'), site(PAGES)],
    ['made unique otherwise', renamed('~dup2'), renamed('~dup3')],
  ])('remakes the text of a chunk whose id changed on a page that did not: %s', async (_, before, after) => {
    expect((await reindex(before, after)).chunksMade).toBe(1)
  })

  it.each([
    ['a page gains a chunk', site(PAGES.map((chunks, p) => (p === 2 ? page(2, chunks.length + 1) : chunks)))],
    ['a page loses a chunk', site(PAGES.map((chunks, p) => (p === 2 ? page(2, chunks.length - 1) : chunks)))],
    ['a page is deleted', site(PAGES.filter((_, p) => p !== 4))],
    ['a page is added', site([...PAGES.slice(0, 4), page(42, 2), ...PAGES.slice(4)])],
    ['a page is added at the end', site([...PAGES, page(42, 2)])],
  ])('makes every chunk again when chunks are renumbered: %s', async (_, after) => {
    expect((await reindex(site(PAGES), after)).chunksMade).toBe(after.length)
  })

  it.each([
    ['the lexical settings', { lexicalSettings: { ...DEFAULT_LEXICAL_SETTINGS, fields: DEFAULT_LEXICAL_SETTINGS.fields.slice(0, 2) } }],
    ['the text shard size', { shardSize: 3 }],
    ['the postings shard size', { postingsShardBytes: 500 }],
    ['the docpilot version', { docpilotVersion: '0.0.1-test' }],
  ])('makes every chunk again when %s changed', async (_, changed) => {
    const after = site(PAGES.map((chunks, p) => (p === 3 ? page(3, chunks.length, ' zebra') : chunks)))
    expect((await reindex(site(PAGES), after, { second: changed })).chunksMade).toBe(after.length)
  })

  it('compares the chunks of pages without an id (a page the page cache did not keep) with the previous ones', async () => {
    const after = site(PAGES.map((chunks, p) => (p === 3 ? page(3, chunks.length, ' zebra') : chunks)))
    expect((await reindex(site(PAGES), after, { second: { pageId: () => undefined } })).chunksMade).toBe(1)
  })

  it('makes every chunk again without page ids (no page cache)', async () => {
    const after = site(PAGES.map((chunks, p) => (p === 3 ? page(3, chunks.length, ' zebra') : chunks)))
    expect((await reindex(site(PAGES), after, { second: { pageId: undefined } })).chunksMade).toBe(after.length)
  })

  it('makes every chunk again when the index in place is not the one the cache describes', async () => {
    const after = site(PAGES.map((chunks, p) => (p === 3 ? page(3, chunks.length, ' zebra') : chunks)))
    // Another index written over the same folder without the cache, then the run with the cache.
    const other = site(PAGES.map((chunks, p) => (p === 1 ? page(1, chunks.length, ' other') : chunks)))
    const between = async (out: string) => void (await writeIndex(input(out, other)))
    expect((await reindex(site(PAGES), after, { between })).chunksMade).toBe(after.length)
  })

  it.each([
    ['a postings shard the change does not touch', (m: { postings: ShardSet; texts: ShardSet; lexical: string }) => shardFile(m.postings, m.postings.count - 1)],
    ['a text shard the change does not touch', (m: { postings: ShardSet; texts: ShardSet; lexical: string }) => shardFile(m.texts, 0)],
    ['the lexical head, which the patch reads', (m: { postings: ShardSet; texts: ShardSet; lexical: string }) => m.lexical],
  ])('does not keep a part damaged on disk since: %s', async (_, part) => {
    const after = site(PAGES.map((chunks, p) => (p === 6 ? page(6, chunks.length, ' zebra') : chunks)))
    const between = async (out: string) => {
      const { parts } = JSON.parse(await readFile(join(out, 'manifest.json'), 'utf8')) as { parts: { postings: ShardSet; texts: ShardSet; lexical: string } }
      await writeFile(join(out, part(parts)), 'damaged')
    }
    await reindex(site(PAGES), after, { between })
  })
})
