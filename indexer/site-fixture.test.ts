/**
 * fixtures/site is what the e2e suite and `docpilot dev` serve. These checks
 * hold the promises the browser tests rely on (e2e/paths.ts): the covered
 * question lands on the Context page's set() / get() section and passes the
 * gate, the uncovered one is refused, and the hostile page reaches the index
 * as text. Lexical-only, so no model is loaded, except for the gate's
 * verdicts under the offline default model, which the browser tests meet.
 */
import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { ConfigSchema } from '../core/config/schema.ts'
import type { ChunkRecord } from '../core/index/format.ts'
import { openIndex, type DocIndex } from '../core/retrieval/search.ts'
import { validateConfig } from '../core/config/validate.ts'
import { COVERED, HOSTILE, UNCOVERED } from '../e2e/paths.ts'
import { buildIndex } from './build.ts'
import { collectChunks, type CollectResult } from './collect.ts'
import { fsPartLoader } from './fs-parts.ts'
import { writeIndex } from './write.ts'

const SITE = new URL('../fixtures/site/', import.meta.url).pathname
const config = ConfigSchema.parse({})

let dir: string
let collected: CollectResult
let index: DocIndex

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'docpilot-site-'))
  collected = await collectChunks({ root: SITE, mode: 'source', slugger: config.anchors.slugger, urls: config.urls, chunks: config.chunks })
  await writeIndex({ chunks: collected.chunks, files: collected.files.length, out: dir, docpilotVersion: 'test', createdAt: new Date(0).toISOString() })
  index = await openIndex(fsPartLoader(dir))
})
afterAll(() => rm(dir, { recursive: true, force: true }))

const onPage = (path: string): ChunkRecord[] => collected.chunks.filter((c) => c.path === path)

describe('fixtures/site', () => {
  it('indexes every page without a warning', () => {
    expect(collected.warnings).toEqual([])
    expect(collected.files.length).toBeGreaterThanOrEqual(12)
    expect(collected.files).toContain('api/context.md')
    expect(collected.files).toContain('guide/security.md')
  })

  it('answers the covered question from Context › set() / get(), with the gate passing', async () => {
    const hit = await index.search(COVERED)
    expect(hit.gate.pass).toBe(true)
    expect(hit.results[0]).toMatchObject({ path: 'api/context.md', anchor: 'set--get', url: '/api/context', trail: ['Context', 'set() / get()'] })
  })

  it('refuses the uncovered question', async () => {
    const hit = await index.search(UNCOVERED)
    expect(hit.gate.pass).toBe(false)
  })

  it('gives an explicit {#id} and suffixes a repeated heading', () => {
    expect(onPage('api/context.md').map((c) => c.anchor)).toContain('env')
    const examples = onPage('guide/security.md').filter((c) => c.trail.at(-1) === 'Example').map((c) => c.anchor)
    expect(examples).toEqual(['example', 'example-1'])
  })

  it('keeps hostile code as text and strips hostile markup from headings', () => {
    const page = onPage('guide/security.md')
    const text = page.map((c) => c.text).join('\n')
    expect(text).toContain('<script>alert(1)</script>')
    expect(text).toContain('<img src="x" onerror="alert(1)">')
    expect(text).toContain('[open the dashboard](javascript:alert(document.cookie))')
    const trails = page.flatMap((c) => c.trail)
    expect(trails).toContain('The payload in headings')
    expect(trails.join(' ')).not.toMatch(/[<>]|onerror/)
    for (const c of page) expect(c.url).not.toMatch(/javascript:/i)
  })
})

describe('fixtures/site with the offline default model', { timeout: 180_000 }, () => {
  let hybrid: DocIndex
  let work: string
  beforeAll(async () => {
    work = await mkdtemp(join(tmpdir(), 'docpilot-site-hybrid-'))
    const out = join(work, 'index')
    await buildIndex({
      root: SITE,
      mode: 'source',
      out,
      config: validateConfig({ embed: 'default' }, '(test)'),
      docpilotVersion: 'test',
      embed: { env: {}, configDir: tmpdir(), cacheDir: join(work, 'cache') },
    })
    hybrid = await openIndex(fsPartLoader(out))
  })
  afterAll(() => rm(work, { recursive: true, force: true }))

  // The e2e panel tests ask these: an answerable question refused there is a reader turned away.
  it.each([
    ['the covered question', COVERED, 'api/context.md'],
    ['the hostile question, in a reader\'s words', HOSTILE, 'guide/security.md'],
  ])('passes the gate on %s, with its page first', async (_, question, path) => {
    const r = await hybrid.search(question)
    expect(r.mode).toBe('hybrid')
    expect(r.gate.pass).toBe(true)
    expect(r.results[0]?.path).toBe(path)
  })

  it('refuses the uncovered question', async () => {
    expect((await hybrid.search(UNCOVERED)).gate.pass).toBe(false)
  })
})
