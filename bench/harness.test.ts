/**
 * Smoke test of the bench harness, cheap enough for CI: the command line
 * starts and knows every benchmark, a missing or incomplete benchmark module
 * is reported as not available, and one real comparison benchmark (quality:
 * docpilot, Pagefind in Chromium, Orama) runs on a three-page corpus and
 * writes its result and the side-by-side summary.
 */
import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { CorpusSpec } from './compare-corpora.ts'
import type { QualityResult } from './compare-quality.ts'
import { BENCHES, loadBench, runBenches, type BenchOutcome } from './harness.ts'
import { writeSummary } from './summary.ts'

const MINI = join(import.meta.dirname, 'fixtures/mini')
const mini: CorpusSpec = { name: 'mini', root: MINI, config: {}, questions: join(MINI, 'questions.jsonl') }

let tmp: string
beforeAll(async () => {
  tmp = await mkdtemp(join(tmpdir(), 'docpilot-bench-'))
})
afterAll(async () => {
  await rm(tmp, { recursive: true, force: true })
})

describe('bench command line', () => {
  it('starts and lists every benchmark', async () => {
    const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', join(import.meta.dirname, 'run.ts'), '--help'])
    for (const name of Object.keys(BENCHES)) expect(stdout).toContain(`  ${name} `)
  }, 60_000)

  it('refuses an unknown benchmark by name', async () => {
    await expect(runBenches({ names: ['no-such-bench'], rounds: 1, log: () => {}, resultsDir: tmp })).rejects.toThrow(
      /unknown benchmark no-such-bench; known: build, browser, quality/,
    )
  })
})

describe('loading and running benchmark modules', () => {
  // Stand-in modules: ladder has no run(), proxy throws, widget works, dense is missing.
  let dir: string
  beforeAll(async () => {
    dir = join(tmp, 'modules')
    await mkdir(dir)
    await writeFile(join(dir, 'ladder.ts'), 'export const somethingElse = 1\n')
    await writeFile(join(dir, 'proxy.ts'), "export async function run() { throw new Error('upstream fake did not start') }\n")
    await writeFile(join(dir, 'widget.ts'), "export async function run(o) { o.log('widget table'); return { bundleKb: 42 } }\n")
  })

  it('reports a module that does not exist yet, or has no run(), as not available', async () => {
    expect(await loadBench('dense', dir)).toEqual({ ok: false, reason: 'bench/dense.ts does not exist yet' })
    expect(await loadBench('ladder', dir)).toEqual({ ok: false, reason: 'bench/ladder.ts exports no run(opts)' })
  })

  it('goes on past a missing or failing benchmark, and records every outcome', async () => {
    const lines: string[] = []
    const resultsDir = join(tmp, 'outcomes')
    const outcomes = await runBenches({ names: ['dense', 'ladder', 'proxy', 'widget'], rounds: 1, log: (l) => lines.push(l), resultsDir, benchDir: dir })
    expect(outcomes.map((o) => [o.name, o.status])).toEqual([
      ['dense', 'not available'],
      ['ladder', 'not available'],
      ['proxy', 'failed'],
      ['widget', 'ok'],
    ])
    const out = lines.join('\n')
    expect(out).toContain('not available: bench/dense.ts does not exist yet')
    expect(out).toContain('FAILED: Error: upstream fake did not start')
    expect(out).toContain('widget table')
    const saved = JSON.parse(await readFile(join(resultsDir, 'widget.json'), 'utf8'))
    expect(saved).toMatchObject({ name: 'widget', status: 'ok', result: { bundleKb: 42 } })
    expect(JSON.parse(await readFile(join(resultsDir, 'proxy.json'), 'utf8'))).toMatchObject({ status: 'failed' })
  })
})

describe('one real benchmark', () => {
  let outcome: BenchOutcome
  let lines: string[]
  beforeAll(async () => {
    lines = []
    const outcomes = await runBenches({
      names: ['quality'],
      rounds: 1,
      log: (l) => lines.push(l),
      questions: [mini.questions],
      corpora: [mini],
      resultsDir: join(tmp, 'quality'),
    })
    outcome = outcomes[0]!
  }, 120_000)

  it('prints the quality table for docpilot and both peers and writes the result', async () => {
    expect(outcome.status, outcome.reason).toBe('ok')
    const out = lines.join('\n')
    for (const label of ['docpilot hybrid', 'docpilot lexical-only', 'Pagefind 1.6', 'Orama 3 BM25']) expect(out).toContain(label)
    const saved = JSON.parse(await readFile(outcome.file!, 'utf8')) as { result: QualityResult[] }
    const [set] = saved.result
    expect(set).toMatchObject({ corpus: 'mini', answerable: 3, offTopic: 1 })
    const row = (e: string) => set!.rows.find((r) => r.engine === e)!
    // The keyword questions are easy: each engine must find and map the gold section.
    expect(row('docpilot-lexical').r8).toBe(1)
    // Pagefind's hits carry only a URL: R@8 > 0 proves url#anchor -> path + heading trail works.
    expect(row('pagefind').r8).toBeGreaterThan(0)
    expect(row('orama-bm25').r8).toBeGreaterThan(0)
  })

  it('feeds the side-by-side summary', async () => {
    const file = await writeSummary(join(tmp, 'quality'), [outcome])
    const md = await readFile(file!, 'utf8')
    expect(md).toContain('### mini — questions.jsonl')
    expect(md).toMatch(/\| Pagefind 1\.6 \|.*\|/)
  })
})
