/**
 * The bench harness: `npm run bench` runs every benchmark below,
 * `npm run bench -- --only lexical` runs one (comma-separate several).
 * Each benchmark prints its table and returns a JSON-able result, written to
 * bench/results/<name>.json (git-ignored). Benchmarks report ratios against
 * a baseline measured side by side in the same run, never absolute targets.
 *
 * Adding a benchmark: one entry in BENCHES; its module exports
 * `run(opts: BenchOptions): Promise<unknown>`.
 */
import { mkdir, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { parseArgs } from 'node:util'

export interface BenchOptions {
  /** Repetitions of the slow parts (index builds). */
  rounds: number
  log: (line: string) => void
}

type BenchModule = { run(opts: BenchOptions): Promise<unknown> }

const BENCHES: Record<string, () => Promise<BenchModule>> = {
  lexical: () => import('./lexical.ts'),
}

const RESULTS = join(import.meta.dirname, 'results')

async function main(): Promise<number> {
  const { values } = parseArgs({
    options: { only: { type: 'string', multiple: true }, rounds: { type: 'string' }, help: { type: 'boolean' } },
  })
  if (values.help) {
    console.log(`npm run bench [-- --only NAME[,NAME]] [--rounds N]\nbenchmarks: ${Object.keys(BENCHES).join(', ')}`)
    return 0
  }
  const names = values.only?.flatMap((s) => s.split(',')).filter(Boolean) ?? Object.keys(BENCHES)
  const unknown = names.filter((n) => !BENCHES[n])
  if (unknown.length) {
    console.error(`unknown benchmark ${unknown.join(', ')}; known: ${Object.keys(BENCHES).join(', ')}`)
    return 2
  }
  const rounds = Number(values.rounds ?? 3)
  if (!Number.isInteger(rounds) || rounds < 1) {
    console.error('--rounds must be a whole number of 1 or more')
    return 2
  }
  await mkdir(RESULTS, { recursive: true })
  for (const name of names) {
    console.log(`\n== ${name} ==`)
    const mod = await BENCHES[name]!()
    const result = await mod.run({ rounds, log: (line) => console.log(line) })
    const file = join(RESULTS, `${name}.json`)
    await writeFile(file, JSON.stringify({ name, at: new Date().toISOString(), node: process.version, rounds, result }, null, 2) + '\n')
    console.log(`-> ${file}`)
  }
  return 0
}

process.exitCode = await main()
