/**
 * One embedder, two runtimes: the CLI (Node) and the panel's retrieval worker
 * (Chromium) run the same core code over the same index files, so with the
 * offline default model they must give the same question vectors (max abs
 * difference 1e-4) and the same top-8 passages for every dev question.
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { ASSET_PATH, INDEX_PATH, startDevServer, type DevServer } from '../cli/commands/dev.ts'
import { validateConfig } from '../core/config/validate.ts'
import { DEV_CORPORA, readDevSet } from '../fixtures/dev-corpora.ts'
import { openIndex } from '../core/retrieval/search.ts'
import { buildIndex } from '../indexer/build.ts'
import { fsPartLoader } from '../indexer/fs-parts.ts'
import { expect, test } from './harness.ts'
import { E2E_WIDGET } from './paths.ts'
import { probeWorker, type WorkerAnswer } from './worker-probe.ts'



for (const set of DEV_CORPORA) {
  test.describe(`${set.name} dev questions`, () => {
    let server: DevServer
    let indexDir: string
    const questions = readDevSet(set.sets[0]).map((q) => q.q)

    test.beforeAll(async () => {
      test.setTimeout(300_000)
      indexDir = join(mkdtempSync(join(tmpdir(), 'dp-vectors-')), 'index')
      const config = validateConfig({ embed: 'default' }, '(e2e)')
      await buildIndex({
        root: set.root,
        mode: 'source',
        out: indexDir,
        config,
        docpilotVersion: 'e2e',
        ...(set.include ? { include: [...set.include] } : {}),
        embed: { env: {}, cacheDir: mkdtempSync(join(tmpdir(), 'dp-vectors-cache-')) },
      })
      server = await startDevServer({
        docsDir: set.root,
        indexDir,
        index: 'reuse',
        widgetDir: E2E_WIDGET,
        buildWidget: false,
        config,
        env: {},
        dbPath: ':memory:',
        log: () => {},
      })
    })
    test.afterAll(async () => {
      await server?.close()
    })

    test('Node and Chromium give the same question vectors and the same top 8', async ({ page }) => {
      test.setTimeout(300_000)
      const index = await openIndex(fsPartLoader(indexDir), { log: () => {} })
      const node: Omit<WorkerAnswer, 'degraded'>[] = []
      for (const q of questions) {
        const v = await index.dense!.queryVector(q)
        const r = await index.search(q, { k: 8 })
        node.push({ vector: 'vector' in v ? Array.from(v.vector) : null, mode: r.mode, top: r.results.map((p) => p.id) })
      }

      // The page is any served docs page (UTF-8, strict CSP); the worker is the panel's own bundle.
      await page.goto(server.url)
      const chromium = await probeWorker(page, { workerUrl: `${ASSET_PATH}docpilot-worker.js`, indexUrl: new URL(INDEX_PATH, server.url).href, questions })

      expect(chromium).toHaveLength(questions.length)
      let worst = 0
      questions.forEach((q, i) => {
        const a = node[i]!
        const b = chromium[i]!
        expect(a.vector, q).not.toBeNull()
        expect(b.vector, q).not.toBeNull()
        expect(b.vector!.length, q).toBe(a.vector!.length)
        for (let d = 0; d < a.vector!.length; d++) worst = Math.max(worst, Math.abs(a.vector![d]! - b.vector![d]!))
        expect({ q, mode: b.mode, top: b.top }).toEqual({ q, mode: 'hybrid', top: a.top })
      })
      test.info().annotations.push({ type: 'max abs vector difference', description: String(worst) })
      expect(worst).toBeLessThanOrEqual(1e-4)
    })
  })
}
