import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fsPartLoader } from '../../indexer/fs-parts.ts'
import { ranksFor } from '../../indexer/ranks.ts'
import { writeIndex } from '../../indexer/write.ts'
import type { ChunkRecord } from './format.ts'
import { reopeningIndex } from '../mcp/index-cache.ts'
import { checkManifest, IndexFormatError, parseManifest, readManifest } from './read-manifest.ts'
import type { PartLoader } from './parts.ts'
import { openIndex } from '../retrieval/search.ts'

const chunk = (text: string): ChunkRecord => ({ id: 'a.md#', path: 'a.md', url: '/a', anchor: '', title: 'A', trail: ['A'], text })

type Json = Record<string, unknown>
/** The written manifest with one field (a dotted path) set to `value`, or removed when `value` is undefined. */
function withField(manifest: Json, path: string, value: unknown): Json {
  const copy = structuredClone(manifest)
  const keys = path.split('.')
  const owner = keys.slice(0, -1).reduce((o, k) => o[k] as Json, copy)
  if (value === undefined) delete owner[keys.at(-1)!]
  else owner[keys.at(-1)!] = value
  return copy
}

/** The index at `dir`, with its manifest replaced by `manifest`. */
function serving(dir: string, manifest: Json): PartLoader {
  const inner = fsPartLoader(dir)
  return { ...inner, bytes: async (name) => (name === 'manifest.json' ? new TextEncoder().encode(JSON.stringify(manifest)) : inner.bytes(name)) }
}

describe('reading a manifest', () => {
  let dir: string
  let written: Json
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'docpilot-manifest-'))
    await writeIndex({ chunks: [chunk('cookies are set by middleware')], files: 1, out: dir, docpilotVersion: 'test', createdAt: new Date(0).toISOString() })
    written = JSON.parse(await readFile(join(dir, 'manifest.json'), 'utf8')) as Json
  })
  afterAll(() => rm(dir, { recursive: true, force: true }))

  it('accepts what the writer writes, lexical-only and with a fusion, and hands back the value itself', async () => {
    expect(checkManifest(written)).toBe(written)
    const hybrid = withField(written, 'retrieval.fusion', { method: 'rrf', k: 60, lexicalWeight: 1, denseWeight: 1 })
    expect(checkManifest(hybrid)).toBe(hybrid)
    const covered = withField(written, 'retrieval.fusion', { method: 'linear', lexicalWeight: 0.3, denseWeight: 0.7, coverageWeight: 0.3 })
    expect(checkManifest(covered)).toBe(covered)
    expect((await readManifest(fsPartLoader(dir))).corpus.chunks).toBe(1)
  })

  it('opens an index written before the subject check (no retrieval.gate.subjectFloor), which then checks no subject', async () => {
    // With word ranks, as every index is built: without them a name cannot be told from an everyday word.
    const ranked = await mkdtemp(join(tmpdir(), 'docpilot-manifest-ranked-'))
    await writeIndex({ chunks: [chunk('cookies are set by middleware')], files: 1, out: ranked, docpilotVersion: 'test', createdAt: new Date(0).toISOString(), ranks: await ranksFor(undefined) })
    const current = JSON.parse(await readFile(join(ranked, 'manifest.json'), 'utf8')) as Json
    expect(current).toHaveProperty('retrieval.gate.subjectFloor')
    const older = withField(current, 'retrieval.gate.subjectFloor', undefined)
    expect(checkManifest(older)).toBe(older)
    // "Angular" is a name no passage holds: today's index refuses the question for it, the older one does not.
    const question = 'How do I set cookies in Angular middleware?'
    const verdict = async (loader: PartLoader) => (await (await openIndex(loader, { warm: false })).search(question, { lexicalOnly: true })).gate
    expect(await verdict(fsPartLoader(ranked))).toMatchObject({ pass: false, refusedFor: 'subject' })
    expect((await verdict(serving(ranked, older))).refusedFor).not.toBe('subject')
    await rm(ranked, { recursive: true, force: true })
  })

  // Each field a reader uses, missing or of the wrong type: the error names it, what it must be, and the fix.
  it.each([
    ['corpus', undefined, 'corpus is missing; it must be an object'],
    ['corpus.digest', 7, 'corpus.digest is number 7; it must be a string'],
    ['corpus.chunks', '1', 'corpus.chunks is string "1"; it must be a whole number'],
    ['lexical', undefined, 'lexical is missing; it must be an object'],
    ['lexical.stemming', 'snowball', 'lexical.stemming is string "snowball"; it must be "porter" or "none"'],
    ['lexical.bm25', { k: 1.2, b: 0.75 }, 'lexical.bm25.d is missing; it must be a number'],
    ['lexical.fields', ['text', 'body'], 'lexical.fields[1] is string "body"; it must be "text" or "title" or "trail" or "path" or "anchor"'],
    ['retrieval.fusion', undefined, 'retrieval.fusion is missing; it must be an object'],
    ['retrieval.fusion', 'linear', 'retrieval.fusion is string "linear"; it must be an object'],
    ['retrieval.fusion', { method: 'linear', lexicalWeight: 0.4 }, 'retrieval.fusion.denseWeight is missing; it must be a number'],
    ['retrieval.fusion', { method: 'rrf', lexicalWeight: 1, denseWeight: 1 }, 'retrieval.fusion.k is missing; it must be a number'],
    ['retrieval.fusion', { method: 'linear', lexicalWeight: 0.3, denseWeight: 0.7, coverageWeight: '0.3' }, 'retrieval.fusion.coverageWeight is string "0.3"; it must be a number'],
    ['retrieval.gate', undefined, 'retrieval.gate is missing; it must be an object'],
    ['retrieval.gate.threshold', null, 'retrieval.gate.threshold is null; it must be a number'],
    ['retrieval.gate.weights', [0.6, 0.4], 'retrieval.gate.weights is a list; it must be an object'],
    ['retrieval.gate.subjectFloor', '1', 'retrieval.gate.subjectFloor is string "1"; it must be a number'],
    ['retrieval.gate.meaningFrom', 'fused', 'retrieval.gate.meaningFrom is string "fused"; it must be "lexical" or "results"'],
    ['parts.texts.per', undefined, 'parts.texts.per is missing; it must be a whole number above 0'],
  ])('refuses %s = %j, naming the field', (path, value, named) => {
    const read = () => checkManifest(withField(written, path, value))
    expect(read).toThrow(IndexFormatError)
    expect(read).toThrow(`manifest.json: ${named}. Rebuild the index with \`docpilot index\`.`)
  })

  it('refuses text that is not JSON, and a manifest of another format before any other field', () => {
    expect(() => parseManifest('{"format": 2,')).toThrow(/^manifest\.json is not valid JSON \(.*\)\. Rebuild the index with `docpilot index`\.$/)
    const other = { ...withField(written, 'lexical', undefined), format: 1 }
    expect(() => checkManifest(other)).toThrow('This index has format version 1 (written by docpilot test)')
  })

  // Before: openIndex opened these (the gate and fusion fell back to defaults) or failed on a TypeError.
  it.each([
    ['retrieval.gate', undefined, 'retrieval.gate is missing'],
    ['retrieval.fusion', { method: 'sum' }, 'retrieval.fusion.method is string "sum"'],
    ['lexical', undefined, 'lexical is missing'],
    ['corpus', undefined, 'corpus is missing'],
  ])('openIndex refuses an index whose %s is %j', async (path, value, named) => {
    const opening = openIndex(serving(dir, withField(written, path, value)), { warm: false })
    await expect(opening).rejects.toThrow(IndexFormatError)
    await expect(opening).rejects.toThrow(named)
  })

  it("a server's kept index refuses a manifest without a corpus instead of keying on a missing digest", async () => {
    const get = reopeningIndex(serving(dir, withField(written, 'corpus', undefined)))
    await expect(get()).rejects.toThrow('manifest.json: corpus is missing')
  })
})
