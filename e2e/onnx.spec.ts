/**
 * An ONNX index in the browser: the panel's worker loads onnxruntime-web's
 * plain wasm build and fetches its runtime (ort-wasm-simd-threaded.*) from
 * the widget's own folder on the site's origin, then embeds the question the
 * way the CLI does. Two models: the exported default model (always offline),
 * and a real sentence encoder (all-MiniLM-L6-v2, int8), which .ci/run fetches
 * with scripts/models/fetch.ts before the tests.
 */
import { existsSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { ASSET_PATH, INDEX_PATH, startDevServer, type DevServer } from '../cli/commands/dev.ts'
import { DEFAULT_MODEL_DIR } from '../cli/package-root.ts'
import { validateConfig } from '../core/config/validate.ts'
import { openIndex } from '../core/retrieval/search.ts'
import { buildIndex } from '../indexer/build.ts'
import { fsPartLoader } from '../indexer/fs-parts.ts'
import { DEFAULT_MODELS_DIR } from '../scripts/models/fetch.ts'
import { exportStaticOnnx } from '../scripts/onnx/export-static.ts'
import { expect, test } from './harness.ts'
import { E2E_DOCS, E2E_WIDGET } from './paths.ts'
import { probeWorker } from './worker-probe.ts'

const QUESTION = 'How do I set and get values on the context?'

const REAL_ENCODER = join(DEFAULT_MODELS_DIR, 'minilm-l6-v2-int8')
const MODELS = [
  { name: 'the default model exported as ONNX', dir: (work: string) => (exportStaticOnnx(fileURLToPath(DEFAULT_MODEL_DIR), join(work, 'model')), join(work, 'model')), available: true },
  { name: 'a real sentence encoder (all-MiniLM-L6-v2 int8)', dir: () => REAL_ENCODER, available: existsSync(REAL_ENCODER) || !!process.env.CI },
]

for (const model of MODELS) {
  test.describe(model.name, () => {
    test.skip(!model.available, `run npx tsx scripts/models/fetch.ts to fetch ${REAL_ENCODER}`)
    let server: DevServer
    let indexDir: string

    test.beforeAll(async () => {
      test.setTimeout(300_000)
      const work = mkdtempSync(join(tmpdir(), 'dp-onnx-e2e-'))
      const modelDir = model.dir(work)
      indexDir = join(work, 'index')
      const config = validateConfig({ embed: { model: modelDir } }, '(e2e)')
      await buildIndex({ root: E2E_DOCS, mode: 'source', out: indexDir, config, docpilotVersion: 'e2e', embed: { env: {}, cacheDir: join(work, 'cache') } })
      server = await startDevServer({ docsDir: E2E_DOCS, indexDir, index: 'reuse', widgetDir: E2E_WIDGET, buildWidget: false, config, env: {}, dbPath: ':memory:', log: () => {} })
    })
    test.afterAll(async () => {
      await server?.close()
    })

    test('the worker runs the ONNX embedder from runtime files on the same origin and matches Node', async ({ page }) => {
      test.setTimeout(300_000)
      const index = await openIndex(fsPartLoader(indexDir), { log: () => {} })
      expect(index.manifest.embedder.model).toMatch(/^onnx:/)
      const nodeVector = await index.dense!.queryVector(QUESTION)
      const nodeTop = (await index.search(QUESTION, { k: 8 })).results.map((p) => p.id)

      const fetched: string[] = []
      page.on('request', (r) => fetched.push(r.url()))
      await page.goto(server.url)
      const [chromium] = await probeWorker(page, { workerUrl: `${ASSET_PATH}docpilot-worker.js`, indexUrl: new URL(INDEX_PATH, server.url).href, questions: [QUESTION] })

      expect(chromium).toMatchObject({ mode: 'hybrid', degraded: false, top: nodeTop })
      expect('vector' in nodeVector && chromium!.vector).toBeTruthy()
      const a = (nodeVector as { vector: Float32Array }).vector
      expect(chromium!.vector!.length).toBe(a.length)
      expect(Math.max(...chromium!.vector!.map((v, i) => Math.abs(v - a[i]!)))).toBeLessThanOrEqual(1e-4)
      // The runtime came from the widget's folder on this origin, not inlined and not from a CDN.
      const origin = new URL(server.url).origin
      expect(fetched.some((u) => u === `${origin}${ASSET_PATH}ort-wasm-simd-threaded.wasm`)).toBe(true)
      expect(fetched.filter((u) => !u.startsWith(origin))).toEqual([])
    })
  })
}
