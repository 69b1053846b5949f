/**
 * The bench harness without the command line: which benchmarks exist, how a
 * benchmark module is loaded (lazily, so one that is missing or broken costs
 * a line in the output, not the run), and running a list of them with every
 * result written to `<results>/<name>.json`.
 *
 * A benchmark module exports `run(opts: BenchOptions): Promise<unknown>`:
 * it prints its own table through `opts.log` and returns something JSON-able.
 * Benchmarks report ratios against peers or baselines measured side by side
 * in the same process run, never absolute targets.
 */
import { existsSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { CorpusSpec } from './compare-corpora.ts'

export interface BenchOptions {
  /** Repetitions of the slow parts (index builds, timed passes). */
  rounds: number
  log: (line: string) => void
}

type BenchModule = { run(opts: BenchOptions): Promise<unknown> }

export interface BenchEntry {
  /** Module file inside bench/. */
  file: string
  what: string
}

/** Every benchmark, in the order a full run takes them (the comparison first: build, browser and quality share one build per corpus). */
export const BENCHES: Record<string, BenchEntry> = {
  build: { file: 'compare-build.ts', what: 'index build time and bytes: docpilot vs Pagefind 1.6 vs Orama 3' },
  browser: { file: 'compare-browser.ts', what: 'Chromium: bytes to the first result, warm query latency, vs the peers' },
  quality: { file: 'compare-quality.ts', what: 'R@1, R@8, MRR@8 on a question set, vs the peers' },
  lexical: { file: 'lexical.ts', what: "docpilot's lexical index vs a naive minisearch" },
  dense: { file: 'dense.ts', what: 'dense channel: embedding and hybrid search cost' },
  gate: { file: 'gate.ts', what: 'gate and fusion tuned on some corpora, checked on the others (hono, astro, undici, node; DOCPILOT_BENCH_EMBED: another embedder)' },
  ladder: { file: 'ladder.ts', what: 'ladder overhead per attempt; requests sent to a cooling member' },
  proxy: { file: 'proxy.ts', what: 'proxied vs direct time to first byte' },
  widget: { file: 'widget.ts', what: 'widget bundle and panel figures' },
  pagemem: { file: 'page-memory.ts', what: 'peak memory indexing one 3 MB and one 30 MB page, against Pagefind' },
}

/** What `--questions` alone runs: the benchmarks that read a question set and are quick. */
export const QUESTION_BENCHES = ['quality']

/** What `--corpus DIR` runs without --only: the side-by-side comparison on that folder. */
export const CORPUS_BENCHES = ['build', 'browser', 'quality']

export const DEFAULT_RESULTS_DIR = join(import.meta.dirname, 'results')

export type LoadedBench = { ok: true; module: BenchModule } | { ok: false; reason: string }

/**
 * Imports a benchmark module when it is there and usable. A module another
 * change has not delivered yet, or one without `run`, is "not available";
 * an import that throws (a syntax error, a missing dependency) is an error
 * the caller reports as a failure.
 */
export async function loadBench(name: string, dir: string = import.meta.dirname): Promise<LoadedBench> {
  const entry = BENCHES[name]
  if (!entry) return { ok: false, reason: `no benchmark named ${name}` }
  const path = join(dir, entry.file)
  if (!existsSync(path)) return { ok: false, reason: `bench/${entry.file} does not exist yet` }
  const mod = (await import(pathToFileURL(path).href)) as Partial<BenchModule>
  if (typeof mod.run !== 'function') return { ok: false, reason: `bench/${entry.file} exports no run(opts)` }
  return { ok: true, module: mod as BenchModule }
}

export interface HarnessOptions {
  names: string[]
  rounds: number
  log: (line: string) => void
  /** `--questions FILE...`: question sets in the shared JSONL format. */
  questions?: string[]
  /** `--smoke`: the cheapest run of each benchmark that proves it starts. */
  smoke?: boolean
  /** Where `<name>.json` results go (default bench/results); builds go in `<results>/work`. */
  resultsDir?: string
  /** Corpora for the comparison benchmarks (default hono and astro). */
  corpora?: CorpusSpec[]
  /** Folder the benchmark modules are loaded from (default bench/; tests use stand-ins). */
  benchDir?: string
}

export interface BenchOutcome {
  name: string
  status: 'ok' | 'not available' | 'failed'
  ms: number
  /** Why not available, or the error. */
  reason?: string
  /** The results file written (ok and failed runs). */
  file?: string
  result?: unknown
}

export function unknownBenches(names: string[]): string[] {
  return names.filter((n) => !BENCHES[n])
}

/** Runs the named benchmarks one after another; one that fails is reported and the run goes on. */
export async function runBenches(opts: HarnessOptions): Promise<BenchOutcome[]> {
  const unknown = unknownBenches(opts.names)
  if (unknown.length) throw new Error(`unknown benchmark ${unknown.join(', ')}; known: ${Object.keys(BENCHES).join(', ')}`)
  const resultsDir = opts.resultsDir ?? DEFAULT_RESULTS_DIR
  await mkdir(resultsDir, { recursive: true })
  const benchOpts = {
    rounds: opts.rounds,
    log: opts.log,
    smoke: opts.smoke ?? false,
    workDir: join(resultsDir, 'work'),
    ...(opts.questions?.length ? { questions: opts.questions } : {}),
    ...(opts.corpora ? { corpora: opts.corpora } : {}),
  }
  const outcomes: BenchOutcome[] = []
  for (const name of opts.names) {
    opts.log(`\n== ${name}: ${BENCHES[name]!.what} ==`)
    const t0 = performance.now()
    let outcome: BenchOutcome
    try {
      const loaded = await loadBench(name, opts.benchDir)
      if (!loaded.ok) {
        opts.log(`not available: ${loaded.reason}`)
        outcomes.push({ name, status: 'not available', ms: performance.now() - t0, reason: loaded.reason })
        continue
      }
      const result = await loaded.module.run(benchOpts)
      outcome = { name, status: 'ok', ms: performance.now() - t0, result }
    } catch (err) {
      const reason = err instanceof Error ? (err.stack ?? err.message) : String(err)
      opts.log(`FAILED: ${reason}`)
      outcome = { name, status: 'failed', ms: performance.now() - t0, reason }
    }
    outcome.file = join(resultsDir, `${name}.json`)
    const record = { ...outcome, at: new Date().toISOString(), node: process.version, rounds: opts.rounds, smoke: benchOpts.smoke }
    await writeFile(outcome.file, JSON.stringify(record, null, 2) + '\n')
    opts.log(`-> ${outcome.file} (${(outcome.ms / 1000).toFixed(1)} s)`)
    outcomes.push(outcome)
  }
  return outcomes
}
