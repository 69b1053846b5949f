import { appendFileSync, cpSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import { validateConfig } from '../core/config/validate.ts'
import { openIndex } from '../core/retrieval/search.ts'
import { buildIndex } from './build.ts'
import { coldFetchCost, sampleQuestions } from './fetch-cost.ts'
import { fsPartLoader } from './fs-parts.ts'

const SITE = fileURLToPath(new URL('../fixtures/site/', import.meta.url))
const tmp = (prefix: string) => mkdtempSync(join(tmpdir(), prefix))

/** The fixture site copied to a folder of its own, and a build of it into `out` (the default embedder). */
function fixtureSite() {
  const docs = tmp('dp-fetch-cost-docs-')
  cpSync(SITE, docs, { recursive: true })
  const out = join(tmp('dp-fetch-cost-out-'), 'index')
  const cacheDir = tmp('dp-fetch-cost-cache-')
  const build = () =>
    buildIndex({ root: docs, mode: 'source', out, config: validateConfig({ embed: 'default' }, '(test)'), docpilotVersion: 'test', embed: { env: {}, configDir: tmpdir(), cacheDir } })
  return { docs, out, build }
}

async function questionsOf(out: string): Promise<string[]> {
  const index = await openIndex(fsPartLoader(out))
  return sampleQuestions(await index.chunks(Array.from({ length: index.size }, (_, i) => i)))
}

describe('coldFetchCost', { timeout: 180_000 }, () => {
  it('measures the parts a build holds in memory exactly as it measures the folder they were written to, on a first build and a re-index', async () => {
    const { docs, out, build } = fixtureSite()
    const fromDisk = async () => coldFetchCost(out, await questionsOf(out))

    const first = await build()
    expect(first.firstQuestion.median).toBeGreaterThan(0)
    expect(Object.keys(first.firstQuestion.byKind).sort()).toEqual(['lexical', 'manifest', 'model', 'postings', 'texts', 'vectors'])
    expect(first.firstQuestion).toEqual(await fromDisk())

    // A re-index links the unchanged parts from the previous index: their stored bytes are what is measured.
    appendFileSync(join(docs, 'guide/routing.md'), '\nOne more sentence about routing.\n')
    const again = await build()
    expect(again.firstQuestion).toEqual(await fromDisk())
  })

  it('gives each question what a reader alone on the index fetches: sharing decoded parts between the sample readers changes no figure', async () => {
    const { out, build } = fixtureSite()
    await build()
    const questions = await questionsOf(out)
    expect(questions.length).toBeGreaterThan(1)
    for (const lexicalOnly of [false, true]) {
      const shared = await coldFetchCost(out, questions, 8, { lexicalOnly })
      // One measurement per question: its own loader, its own decoded parts, nothing in common with the others.
      const alone = await Promise.all(questions.map((q) => coldFetchCost(out, [q], 8, { lexicalOnly })))
      expect(shared.questions).toEqual(alone.flatMap((cost) => cost.questions))
    }
  })
})
