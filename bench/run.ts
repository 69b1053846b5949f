/**
 * `npm run bench`: every benchmark (see BENCHES in harness.ts), each printing
 * its table and writing bench/results/<name>.json (git-ignored).
 *
 *   npm run bench                                  everything (under 10 minutes on 2 cores)
 *   npm run bench -- --only quality,browser        some
 *   npm run bench -- --questions my-set.jsonl      the quality table for any question file
 *   npm run bench -- --corpus ../my-docs --questions q.jsonl   build, browser and quality on any docs folder
 *   npm run bench -- --smoke                       the cheapest run of each, to prove they start
 *
 * After a run that included build, browser and quality, bench/results/summary.md
 * holds the side-by-side table bench/README.md shows.
 */
import { availableParallelism } from 'node:os'
import { writeFile } from 'node:fs/promises'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { existsSync } from 'node:fs'
import { corpusFromDir } from './compare-corpora.ts'
import { loadQuestionSets } from './compare-questions.ts'
import { childrenCpuMs } from './cpu-time.ts'
import { BENCHES, CORPUS_BENCHES, DEFAULT_RESULTS_DIR, QUESTION_BENCHES, runBenches, unknownBenches } from './harness.ts'
import { writeSummary } from './summary.ts'

export type { BenchOptions } from './harness.ts'

const USAGE = `npm run bench [-- --only NAME[,NAME]] [--questions FILE]... [--corpus DIR] [--rounds N] [--smoke] [--results DIR]

  --only NAME       run these benchmarks (comma-separated or repeated); default: all
  --questions FILE  question set(s) in the shared JSONL format (../shared/eval/README.md); each is matched to
                    the corpus holding its gold paths. Without --only, runs: ${QUESTION_BENCHES.join(', ')}
  --corpus DIR      measure docpilot and the peers on this docs folder instead of hono and astro; needs
                    --questions (gold paths relative to DIR). Without --only, runs: ${CORPUS_BENCHES.join(', ')}
  --include GLOB    with --corpus: the pages to read (default **/*.md **/*.mdx), repeatable
  --config FILE     with --corpus: the site's docpilot config file (default: docpilot's defaults)
  --rounds N        repetitions of builds and timed passes (default 3)
  --smoke           the cheapest run of each benchmark (first corpus, one round)
  --results DIR     where results go (default bench/results)

benchmarks:
${Object.entries(BENCHES)
  .map(([name, b]) => `  ${name.padEnd(9)} ${b.what}`)
  .join('\n')}`

async function main(argv: string[]): Promise<number> {
  let values
  try {
    ;({ values } = parseArgs({
      args: argv,
      options: {
        only: { type: 'string', multiple: true },
        questions: { type: 'string', multiple: true },
        corpus: { type: 'string' },
        include: { type: 'string', multiple: true },
        config: { type: 'string' },
        rounds: { type: 'string' },
        smoke: { type: 'boolean' },
        results: { type: 'string' },
        help: { type: 'boolean', short: 'h' },
      },
    }))
  } catch (err) {
    console.error(`${(err as Error).message}\n\n${USAGE}`)
    return 2
  }
  if (values.help) {
    console.log(USAGE)
    return 0
  }
  // `npm run` starts scripts in the package folder; relative paths mean the folder the user typed them in.
  const cwd = process.env.INIT_CWD ?? process.cwd()
  const questions = values.questions?.map((f) => resolve(cwd, f))
  if (values.corpus && !questions?.length) {
    console.error(`--corpus ${values.corpus}: give the questions to ask it with --questions FILE (gold paths relative to ${values.corpus})`)
    return 2
  }
  if ((values.include || values.config) && !values.corpus) {
    console.error('--include and --config describe a --corpus DIR; give --corpus too')
    return 2
  }
  const corpora = values.corpus ? [corpusFromDir(resolve(cwd, values.corpus), questions![0]!, {
    ...(values.include ? { include: values.include } : {}),
    ...(values.config ? { configFile: resolve(cwd, values.config) } : {}),
  })] : undefined
  if (corpora && !existsSync(corpora[0]!.root)) {
    console.error(`--corpus ${values.corpus}: no such folder`)
    return 2
  }
  const names =
    values.only?.flatMap((s) => s.split(',')).filter(Boolean) ??
    (corpora ? CORPUS_BENCHES : questions?.length ? QUESTION_BENCHES : Object.keys(BENCHES))
  const unknown = unknownBenches(names)
  if (unknown.length) {
    console.error(`unknown benchmark ${unknown.join(', ')}; known: ${Object.keys(BENCHES).join(', ')}`)
    return 2
  }
  const rounds = Number(values.rounds ?? 3)
  if (!Number.isInteger(rounds) || rounds < 1) {
    console.error(`--rounds ${values.rounds}: give a whole number of 1 or more`)
    return 2
  }
  if (questions?.length) {
    // Bad question files stop the run before anything is built, with the file and the fix named.
    try {
      loadQuestionSets(questions, corpora)
    } catch (err) {
      console.error((err as Error).message)
      return 2
    }
  }
  const resultsDir = values.results ? resolve(cwd, values.results) : DEFAULT_RESULTS_DIR
  // Everything printed is also kept in <results>/run.log: the README's figures come from one run's log.
  const printed: string[] = []
  const log = (line: string) => {
    console.log(line)
    printed.push(line)
  }
  log(`docpilot bench: ${names.join(', ')}; node ${process.version}, ${availableParallelism()} cores, rounds ${rounds}${values.smoke ? ', smoke' : ''}`)

  const t0 = performance.now()
  const cpu0 = process.cpuUsage()
  const childCpu0 = childrenCpuMs()
  const outcomes = await runBenches({ names, rounds, log, questions, smoke: values.smoke, resultsDir, ...(corpora ? { corpora } : {}) })
  const summary = await writeSummary(resultsDir, outcomes)
  if (summary) log(`\nside-by-side summary -> ${summary}`)

  const cpu = process.cpuUsage(cpu0)
  const cpuS = ((cpu.user + cpu.system) / 1000 + childrenCpuMs() - childCpu0) / 1000
  log(`\ndone in ${((performance.now() - t0) / 1000).toFixed(0)} s wall, ${cpuS.toFixed(0)} s CPU (this process and its children: builds, Chromium)`)
  for (const o of outcomes) {
    log(`  ${o.name.padEnd(9)} ${(o.ms / 1000).toFixed(0).padStart(5)} s  ${o.status}${o.status === 'ok' ? '' : `: ${o.reason?.split('\n')[0]}`}`)
  }
  await writeFile(join(resultsDir, 'run.log'), printed.join('\n') + '\n')
  return outcomes.some((o) => o.status === 'failed') ? 1 : 0
}

process.exitCode = await main(process.argv.slice(2))
