import { mkdtempSync, mkdirSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { buildIndex } from '../../indexer/build.ts'
import { fsPartLoader } from '../../indexer/fs-parts.ts'
import { validateConfig } from '../config/validate.ts'
import { contextText, withContext, withContextVector } from './conversation.ts'
import { openIndex, type DocIndex } from './search.ts'

const hit = (ordinal: number, score: number, terms: string[], coverage = 1) => ({ ordinal, score, terms, coverage })

describe('contextText', () => {
  it('takes the question just before this one, trimmed; none gives an empty text', () => {
    expect(contextText(['How do I deploy to Cloudflare?', '  And on Deno?  '])).toBe('And on Deno?')
    expect(contextText([])).toBe('')
    expect(contextText(undefined)).toBe('')
  })
})

describe('withContext', () => {
  it("counts the context's terms at the context weight, as one weighted query would", () => {
    // Lexical scores are (sum over matched terms) x matched terms, as the lexical index reports them.
    const own = [hit(1, 4 * 1, ['deno'])]
    const context = [hit(1, 3 * 1, ['deploy']), hit(2, (3 + 5) * 2, ['deploy', 'cloudflar'])]
    const [first, second] = withContext(own, context, 0.5)
    // Chunk 1: (4 + 0.5 x 3) x (1 + 0.5) = 8.25; chunk 2: (0 + 0.5 x 8) x (0 + 0.5 x 2) = 4.
    expect(first).toEqual({ ordinal: 1, score: 8.25, coverage: 1, terms: ['deno', 'deploy'] })
    expect(second).toEqual({ ordinal: 2, score: 4, coverage: 0, terms: ['deploy', 'cloudflar'] })
  })

  it('a term the question repeats from the context is not counted twice in the match count', () => {
    const [h] = withContext([hit(1, 2, ['cooki'])], [hit(1, 2, ['cooki'])], 0.5)
    expect(h!.score).toBe((2 + 0.5 * 2) * 1)
  })
})

describe('withContextVector', () => {
  it('leans the question towards the context and stays unit length', () => {
    const v = withContextVector(new Float32Array([1, 0]), new Float32Array([0, 1]), 0.5)
    expect(Math.hypot(v[0]!, v[1]!)).toBeCloseTo(1, 6)
    expect(v[1]! / v[0]!).toBeCloseTo(0.5, 6)
  })
})

describe('a follow-up question searched for the conversation (real index, both modes)', () => {
  let index: DocIndex
  beforeAll(async () => {
    const docs = mkdtempSync(join(tmpdir(), 'dp-followup-'))
    mkdirSync(join(docs, 'runtimes'))
    writeFileSync(join(docs, 'runtimes/cloudflare.md'), '# Cloudflare Workers\n\n## Install Wrangler\n\nInstall the wrangler CLI with npm.\n\n## Deploy\n\nRun wrangler deploy to publish the worker to Cloudflare.\n')
    writeFileSync(join(docs, 'runtimes/deno.md'), '# Deno\n\n## Install Deno\n\nInstall Deno with the install script from deno.land.\n\n## Deploy to Deno Deploy\n\nPush the project and link it in the Deno Deploy dashboard to deploy it.\n')
    writeFileSync(join(docs, 'cookies.md'), '# Cookies\n\n## Setting a cookie\n\nCall setCookie with a name and a value.\n')
    const out = join(mkdtempSync(join(tmpdir(), 'dp-followup-out-')), 'index')
    await buildIndex({
      root: docs,
      mode: 'source',
      out,
      config: validateConfig({}, '(test)'),
      docpilotVersion: 'test',
      embed: { env: {}, configDir: tmpdir(), cacheDir: mkdtempSync(join(tmpdir(), 'dp-cache-')) },
    })
    index = await openIndex(fsPartLoader(out))
  }, 180_000)

  for (const lexicalOnly of [false, true]) {
    const mode = lexicalOnly ? 'lexical-only' : 'hybrid'
    it(`${mode}: "And on Deno?" after a deploy question lands on deploying to Deno; alone it does not`, async () => {
      const context = ['How do I deploy my app to Cloudflare Workers?']
      const followUp = await index.search('And on Deno?', { lexicalOnly, context })
      expect(followUp.results[0]).toMatchObject({ path: 'runtimes/deno.md', anchor: 'deploy-to-deno-deploy' })
      const alone = await index.search('And on Deno?', { lexicalOnly })
      expect(alone.results[0]!.path).toBe('runtimes/deno.md')
      expect(alone.results[0]!.anchor).not.toBe('deploy-to-deno-deploy')
    })

    it(`${mode}: a self-contained question after an unrelated one keeps its own answer first`, async () => {
      const r = await index.search('How do I set a cookie?', { lexicalOnly, context: ['How do I deploy my app to Cloudflare Workers?'] })
      expect(r.results[0]).toMatchObject({ path: 'cookies.md', anchor: 'setting-a-cookie' })
    })
  }
})
