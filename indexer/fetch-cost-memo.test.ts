import { readdirSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { FORMAT_VERSION, type Manifest } from '../core/index/format.ts'
import { tempDirs } from '../fixtures/temp-dirs.ts'
import type { FetchCost } from './fetch-cost.ts'
import { firstQuestionCost, MAX_CHANGED_SHARE, type FirstQuestionInput } from './fetch-cost-memo.ts'

const temp = tempDirs('docpilot-fetch-memo-')

const MANIFEST: Manifest = {
  format: FORMAT_VERSION,
  docpilot: 'test',
  createdAt: new Date(0).toISOString(),
  corpus: { digest: 'a'.repeat(64), files: 40, chunks: 400 },
  embedder: { id: 'e', kind: 'local', model: 'm', dims: 8, quantization: 'int8' },
  parts: { lexical: 'lexical.1.json.gz', postings: { dir: 'postings', count: 2, ext: '.json.gz', tags: ['a1', 'b2'], firsts: ['a', 'm'] }, texts: { dir: 'texts', count: 25, ext: '.json.gz', tags: Array.from({ length: 25 }, (_, i) => i.toString(16)), per: 16 } },
  lexical: { fields: ['text'] } as unknown as Manifest['lexical'],
  retrieval: { fusion: { lexicalWeight: 0.2 }, gate: {} } as unknown as Manifest['retrieval'],
  chat: { chain: [] },
  panel: { suggestions: ['How do I route?'] },
}

const PAGES = new Map(Array.from({ length: 40 }, (_, i): [string, string] => [`p${i}.md`, `id-${i}`]))
const QUESTIONS = ['Routing', 'Deploy']

/** A measurement run: each call of `measure` gives a new figure, so a reused one shows. */
function runner() {
  const cacheDir = temp()
  let measured = 0
  const run = (extra: Partial<FirstQuestionInput> = {}) =>
    firstQuestionCost({
      cacheDir,
      scope: '/site/index',
      manifest: MANIFEST,
      questions: QUESTIONS,
      pages: PAGES,
      measure: async (): Promise<FetchCost> => ({ questions: [], median: 1000 * ++measured, max: 1000 * measured, byKind: {} }),
      ...extra,
    })
  return { run, cacheDir, measurements: () => measured }
}

const edited = (...changed: number[]) => new Map([...PAGES].map(([path, id], i) => [path, changed.includes(i) ? `${id}-edited` : id]))

describe('the first-question cost between runs', () => {
  it('is measured at the first build, then reported as measured earlier while few pages changed, with how many', async () => {
    const { run, measurements } = runner()
    expect(await run()).toEqual({ questions: [], median: 1000, max: 1000, byKind: {} })
    expect(await run()).toEqual({ questions: [], median: 1000, max: 1000, byKind: {}, earlier: { pagesChanged: 0 } })
    expect((await run({ pages: edited(3) })).earlier).toEqual({ pagesChanged: 1 })
    // Pages added and removed count too; an id-less page (not kept by the page cache) counts as changed.
    const added = new Map([...PAGES, ['new.md', 'id-new']])
    expect((await run({ pages: added })).earlier).toEqual({ pagesChanged: 1 })
    expect((await run({ pages: new Map([...PAGES].slice(1)) })).earlier).toEqual({ pagesChanged: 1 })
    expect((await run({ pages: new Map([...PAGES, ['p0.md', undefined]]) })).earlier).toEqual({ pagesChanged: 1 })
    expect(measurements()).toBe(1)
  })

  it(`is measured afresh once more than ${MAX_CHANGED_SHARE * 100}% of the pages changed since the measurement, and counted from there`, async () => {
    const { run, measurements } = runner()
    await run()
    const many = edited(...Array.from({ length: Math.floor(PAGES.size * MAX_CHANGED_SHARE) + 1 }, (_, i) => i))
    const fresh = await run({ pages: many })
    expect(fresh.earlier).toBeUndefined()
    expect(fresh.median).toBe(2000)
    expect(await run({ pages: many })).toMatchObject({ median: 2000, earlier: { pagesChanged: 0 } })
    expect(measurements()).toBe(2)
  })

  it('is measured afresh when the sample questions or what decides a reader\'s fetches changed, not for part names or suggestions', async () => {
    const { run, measurements } = runner()
    await run()
    expect((await run({ questions: ['Routing', 'Images'] })).earlier).toBeUndefined()
    expect((await run({ questions: ['Routing', 'Images'], manifest: { ...MANIFEST, embedder: { ...MANIFEST.embedder, dims: 16 } } })).earlier).toBeUndefined()
    const retuned = { ...MANIFEST, embedder: { ...MANIFEST.embedder, dims: 16 }, retrieval: { ...MANIFEST.retrieval, fusion: { lexicalWeight: 0.3 } } } as Manifest
    expect((await run({ questions: ['Routing', 'Images'], manifest: retuned })).earlier).toBeUndefined()
    expect(measurements()).toBe(4)
    const renamed = { ...retuned, corpus: { ...MANIFEST.corpus, digest: 'b'.repeat(64) }, parts: { ...MANIFEST.parts, lexical: 'lexical.2.json.gz' }, panel: { suggestions: [] } }
    expect((await run({ questions: ['Routing', 'Images'], manifest: renamed })).earlier).toEqual({ pagesChanged: 0 })
    expect(measurements()).toBe(4)
  })

  it('measures again when its memo is damaged', async () => {
    const { run, cacheDir, measurements } = runner()
    await run()
    const folder = join(cacheDir, 'fetch-cost')
    writeFileSync(join(folder, readdirSync(folder)[0]!), '{"shape":')
    expect((await run()).earlier).toBeUndefined()
    expect(measurements()).toBe(2)
  })
})
