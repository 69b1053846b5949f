import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { validateConfig } from '../core/config/validate.ts'
import { openIndex } from '../core/retrieval/search.ts'
import { buildIndex } from './build.ts'
import { fsPartLoader } from './fs-parts.ts'
import { ranksFor } from './ranks.ts'

async function build(embed: unknown): Promise<string> {
  const docs = mkdtempSync(join(tmpdir(), 'dp-ranks-'))
  writeFileSync(join(docs, 'cookies.md'), '# Cookies\n\n## Signed cookies\n\nCall setSignedCookie with a secret.\n')
  const out = join(mkdtempSync(join(tmpdir(), 'dp-ranks-out-')), 'index')
  await buildIndex({
    root: docs,
    mode: 'source',
    out,
    config: validateConfig({ embed }, '(test)'),
    docpilotVersion: 'test',
    embed: { env: {}, configDir: tmpdir(), cacheDir: mkdtempSync(join(tmpdir(), 'dp-cache-')) },
  })
  return out
}

describe('the word ranks an index carries for the gate', () => {
  it('the shipped default model is frequency-ordered: common words first, rare words late', async () => {
    const ranks = await ranksFor(undefined)
    const words = new TextDecoder().decode(ranks.bytes).split('\n')
    expect(ranks.words).toBeGreaterThanOrEqual(40_000)
    expect(words[0]).toBe('the')
    const rank = (w: string) => words.indexOf(w)
    expect(rank('how')).toBeLessThan(rank('cookie'))
    expect(rank('cookie')).toBeLessThan(rank('sourdough'))
  })

  it('with the default model (served split by word), reads ranks from its rows: no part of their own', async () => {
    const out = await build('default')
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'))
    expect(manifest.parts.ranks).toBeUndefined()
    const model = JSON.parse(readFileSync(join(out, manifest.embedder.files['model.json']), 'utf8'))
    expect(manifest.retrieval.ranks).toEqual({ words: model.provenance.frequencyRanked, source: 'model' })
    // Ranked words weigh by their rank: "sourdough" (rare, absent) outweighs "cookie" (present), as with a list.
    const r = await (await openIndex(fsPartLoader(out))).search('sourdough cookie')
    expect(r.mode).toBe('hybrid')
    expect(r.gate.signals.vocabulary).toBeLessThan(0.45)
    expect(r.gate).toMatchObject({ pass: false, refusedFor: 'vocabulary' })
  }, 120_000)

  it('a lexical-only index gets the ranked words as a part of its own, and its gate weighs words by them', async () => {
    const out = await build(false)
    const manifest = JSON.parse(readFileSync(join(out, 'manifest.json'), 'utf8'))
    expect(manifest.parts.ranks).toMatch(/^ranks\.[0-9a-f]{16}\.txt$/)
    const list = readFileSync(join(out, manifest.parts.ranks), 'utf8').split('\n')
    expect(list.slice(0, 3)).toEqual(['the', 'of', 'to'])
    expect(list.filter(Boolean)).toHaveLength(manifest.retrieval.ranks.words)
    // "sourdough" is heavy and absent, "cookie" present: the vocabulary signal falls well under a plain half.
    const r = await (await openIndex(fsPartLoader(out))).search('sourdough cookie')
    expect(r.mode).toBe('lexical')
    expect(r.gate.signals.vocabulary).toBeLessThan(0.45)
    expect(r.gate).toMatchObject({ pass: false, refusedFor: 'vocabulary' })
  }, 120_000)
})
