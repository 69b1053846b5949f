/**
 * A re-index, which takes every unchanged page from the caches (page journal,
 * embedding cache, codes memo, write state, part and written-files records),
 * must leave what a fresh build of the same docs leaves, byte for byte: the
 * index folder and the agent files. The units check their own caches; this
 * runs the whole of buildIndex through a series of edits a docs folder sees
 * (a page edited, added, removed, moved), each re-index compared with a
 * fresh build made with empty caches.
 */
import { createHash } from 'node:crypto'
import { cpSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { validateConfig } from '../core/config/validate.ts'
import { buildIndex, type BuildResult } from './build.ts'

const SITE = fileURLToPath(new URL('../fixtures/site/', import.meta.url))
/** Index builds load the default model; generous on a machine shared by several people. */
const SLOW = 180_000

let work: string
let root: string
const tmp = (prefix: string) => mkdtempSync(join(work, prefix))

/** A build of `root` into `out`, with its agent files in `siteOut`, from the caches in `cacheDir`. */
const build = (where: { out: string; siteOut: string; cacheDir: string }): Promise<BuildResult> =>
  buildIndex({
    root,
    mode: 'source',
    out: where.out,
    config: validateConfig({ embed: 'default' }, '(test)'),
    docpilotVersion: 'test',
    embed: { env: {}, configDir: tmpdir(), cacheDir: where.cacheDir },
    llms: { siteOut: where.siteOut },
  })

/** Every file below `dir`, by its path there, as a digest of its bytes (the model rows pack is megabytes). */
function digests(dir: string): Record<string, string> {
  const files = readdirSync(dir, { recursive: true, withFileTypes: true }).filter((e) => e.isFile())
  const named = files.map((e) => [join(e.parentPath, e.name).slice(dir.length + 1), createHash('sha256').update(readFileSync(join(e.parentPath, e.name))).digest('hex')] as const)
  return Object.fromEntries(named.sort(([a], [b]) => (a < b ? -1 : 1)))
}

/** The series' own index, its agent files and its caches, kept from one re-index to the next. */
let series: { out: string; siteOut: string; cacheDir: string }

/** Re-indexes the series and builds the docs afresh: both must leave the same files. */
async function reindexMatchesFresh(): Promise<BuildResult> {
  const again = await build(series)
  const fresh = await build({ out: join(tmp('fresh-'), 'index'), siteOut: join(tmp('fresh-site-'), 'site'), cacheDir: tmp('fresh-cache-') })
  expect(digests(series.out)).toEqual(digests(fresh.dir))
  expect(digests(series.siteOut)).toEqual(digests(fresh.llms!.dir))
  expect(again.files).toEqual(fresh.files)
  expect(again.chunks).toBe(fresh.chunks)
  return again
}

beforeAll(async () => {
  work = mkdtempSync(join(tmpdir(), 'docpilot-reindex-'))
  root = join(work, 'docs')
  cpSync(SITE, root, { recursive: true })
  series = { out: join(work, 'index'), siteOut: join(work, 'site'), cacheDir: join(work, 'cache') }
  await build(series)
}, SLOW)
afterAll(() => rmSync(work, { recursive: true, force: true }))

const append = (file: string, text: string) => writeFileSync(join(root, file), `${readFileSync(join(root, file), 'utf8')}\n\n${text}\n`)

// In order: each step re-indexes over what the one before left.
describe('a re-index leaves what a fresh build leaves, byte for byte', { timeout: SLOW }, () => {
  it('when nothing changed', async () => {
    const again = await reindexMatchesFresh()
    expect(again.embed).toMatchObject({ embedded: 0 })
    expect(again.chunksMade).toBe(0)
  })

  it('after a page is edited in place', async () => {
    append('guide/faq.md', 'One more answer: the cache keeps what did not change.')
    const again = await reindexMatchesFresh()
    // The patched write (corpus-parts.ts), not a full one that would match trivially.
    expect(again.embed).toMatchObject({ embedded: 1 })
    expect(again.chunksMade).toBe(1)
  })

  it('after a page gains a section (its chunks renumber those after it)', async () => {
    append('api/context.md', '## A section added\n\nWhat a new section of the context page says about values.')
    await reindexMatchesFresh()
  })

  it('after a page is added', async () => {
    writeFileSync(join(root, 'guide/caching.md'), '# Caching\n\nResponses can be cached at the edge.\n\n## Headers\n\nSet Cache-Control on the response.\n')
    const again = await reindexMatchesFresh()
    expect(again.files).toContain('guide/caching.md')
  })

  it('after a page is removed', async () => {
    rmSync(join(root, 'guide/testing.md'))
    const again = await reindexMatchesFresh()
    expect(again.files).not.toContain('guide/testing.md')
  })

  it('after a page is moved to another name, and to a new folder', async () => {
    renameSync(join(root, 'guide/errors.md'), join(root, 'guide/error-handling.md'))
    const moved = await reindexMatchesFresh()
    expect(moved.files).toContain('guide/error-handling.md')
    cpSync(join(root, 'reference'), join(root, 'docs-reference'), { recursive: true })
    rmSync(join(root, 'reference'), { recursive: true })
    const again = await reindexMatchesFresh()
    expect(again.files).toContain('docs-reference/cli.md')
    expect(again.files.some((file) => file.startsWith('reference/'))).toBe(false)
  })

  /** Overwrites bytes in the middle of every cache file of `kind` the series keeps (their lengths kept). */
  function damage(kind: string): void {
    const files = readdirSync(join(series.cacheDir, kind), { recursive: true, withFileTypes: true }).filter((e) => e.isFile())
    expect(files.length).toBeGreaterThan(0)
    for (const e of files) {
      const path = join(e.parentPath, e.name)
      const bytes = readFileSync(path)
      bytes.fill(0x7b, Math.floor(bytes.length / 3), Math.floor(bytes.length / 3) + 64)
      writeFileSync(path, bytes)
    }
  }

  // Each kind of cache file the series keeps, damaged before an edit: a slower run, never another index.
  it.each(['pages', 'embeddings', 'codes', 'write', 'parts', 'written', 'fetch-cost'])('after an edit with its %s cache damaged', async (kind) => {
    damage(kind)
    append('guide/routing.md', `A routing note written with the ${kind} cache damaged.`)
    await reindexMatchesFresh()
  })

  it('after a page is added with its lexical cache damaged (read by a write of every part)', async () => {
    damage('lexical')
    writeFileSync(join(root, 'guide/streaming.md'), '# Streaming\n\nStream a response body as it is made.\n')
    const again = await reindexMatchesFresh()
    expect(again.chunksMade).toBe(again.chunks)
  })

  it('after an edit with a page journal body damaged (an unchanged page\'s text and copy changed, their lengths kept)', async () => {
    const [journal] = readdirSync(join(series.cacheDir, 'pages'), { recursive: true, withFileTypes: true }).filter((e) => e.isFile())
    const path = join(journal!.parentPath, journal!.name)
    const bytes = readFileSync(path)
    const text = Buffer.from('The raw object is still available')
    // Both its chunk's text and its Markdown copy (which llms-full.txt is made from at every run).
    let found = 0
    for (let at = bytes.indexOf(text); at !== -1; at = bytes.indexOf(text, at + 1), found++) Buffer.from('The raw object is NOT  available!').copy(bytes, at)
    expect(found).toBeGreaterThan(0)
    writeFileSync(path, bytes)
    append('guide/routing.md', 'A routing note written with a page body damaged.')
    await reindexMatchesFresh()
  })
})
