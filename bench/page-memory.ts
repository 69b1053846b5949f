/**
 * Memory for one very large page, next to Pagefind on the same page:
 * `docpilot index` (the compiled CLI, as an installed package runs it, with
 * every default but docs.maxFileBytes and docs.parseTimeoutMs, raised so the
 * page is read whole) on a docs folder holding one Markdown page of 3 MB and
 * of 30 MB (real docs text: the Hono docs repeated), and `pagefind --site`
 * on that page rendered to HTML. Each run is its own process; its peak is
 * the largest resident set of the run's processes (GNU time's %M). The
 * ratio 30 MB / 3 MB shows whether memory grows with the page or faster.
 * Reported, never asserted: docs.maxFileBytes (2 MiB by default) is what
 * keeps a hostile page from costing this.
 *
 * `npm run bench -- --only pagemem`, or `npx tsx bench/page-memory.ts`;
 * `npx tsx bench/page-memory.ts --cli OTHER/dist/cli/main.js` measures
 * another build of docpilot (an earlier commit's `npm run build:node`) on
 * the same pages, for a before/after.
 */
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { parseArgs } from 'node:util'
import { marked } from 'marked'
import { readManifest } from '../core/index/read-manifest.ts'
import { sharedPath } from '../fixtures/shared-data.ts'
import { fsPartLoader } from '../indexer/fs-parts.ts'
import { buildProcessEnv } from './build-command.ts'
import { compiledCli } from './compiled-cli.ts'
import type { BenchOptions } from './harness.ts'
import { pagefindBin } from './peers/pagefind.ts'

const SIZES_MB = [3, 30]
const GNU_TIME = '/usr/bin/time'

/** Real docs text: every page of the Hono docs, concatenated, repeated to `mb` megabytes. */
async function page(mb: number): Promise<string> {
  const root = sharedPath('corpora/hono/docs')
  const files = ((await readdir(root, { recursive: true })) as string[]).filter((f) => f.endsWith('.md')).sort()
  const text = (await Promise.all(files.map(async (f) => (await readFile(join(root, f), 'utf8')).replace(/^---[\s\S]*?---\n/, '')))).join('\n\n')
  const bytes = mb * 1024 * 1024
  return text.repeat(Math.ceil(bytes / text.length)).slice(0, bytes)
}

interface Run {
  peakMb: number
  seconds: number
}

/** Runs `node args` under GNU time; resolves with the run's peak resident set and wall time. */
function measured(label: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<Run> {
  const started = performance.now()
  return new Promise((done, fail) => {
    const child = spawn(GNU_TIME, ['-f', 'peak-kb %M', process.execPath, ...args], { env: buildProcessEnv(env), stdio: ['ignore', 'ignore', 'pipe'] })
    let err = ''
    child.stderr.on('data', (d: Buffer) => (err += d.toString()))
    child.on('error', fail)
    child.on('exit', (code) => {
      const peak = /peak-kb (\d+)\s*$/.exec(err)
      if (code !== 0 || !peak) return fail(new Error(`${label} exited with code ${code}:\n${err.trim().split('\n').slice(-8).join('\n')}`))
      done({ peakMb: Math.round(Number(peak[1]) / 1024), seconds: Math.round((performance.now() - started) / 100) / 10 })
    })
  })
}

/** A launcher for a compiled docpilot CLI other than this checkout's (`--cli DIST/cli/main.js`). */
async function launcherFor(main: string): Promise<string> {
  const launcher = join(await mkdtemp(join(tmpdir(), 'docpilot-bench-cli-')), 'docpilot.mjs')
  await writeFile(launcher, `import { main } from ${JSON.stringify(pathToFileURL(resolve(main)).href)}\nprocess.exitCode = await main(process.argv.slice(2))\n`)
  return launcher
}

/** The docpilot CLI measured: `current` when it is this checkout's. */
interface Cli {
  launcher: string
  current: boolean
}

async function docpilotRun(dir: string, source: string, cli: Cli): Promise<Run & { chunks: number }> {
  const docs = join(dir, 'docs')
  await mkdir(docs)
  await writeFile(join(docs, 'huge.md'), source)
  const config = join(dir, 'docpilot.config.json')
  // A build from before the parse time backstop refuses its setting (and has no clock to raise).
  const backstop = cli.current ? { parseTimeoutMs: 3_600_000 } : {}
  await writeFile(config, JSON.stringify({ docs: { maxFileBytes: 64 * 1024 * 1024, ...backstop } }))
  const out = join(dir, 'index')
  // No provider keys: the offline default embedder, as on a machine without any; an empty cache.
  const env: NodeJS.ProcessEnv = { ...process.env, DOCPILOT_CACHE_DIR: join(dir, 'cache') }
  for (const name of Object.keys(env)) if (/_API_KEY$|_BASE_URL$/.test(name)) delete env[name]
  const run = await measured('docpilot index', [cli.launcher, 'index', docs, '--out', out, '--config', config], env)
  const manifest = await readManifest(fsPartLoader(out))
  const chunks = manifest.corpus.chunks
  // A page skipped (over a limit) would measure nothing: say so rather than print a small number.
  if (!(chunks > 0)) throw new Error(`docpilot index wrote no chunks for the ${Math.round(source.length / 1048576)} MB page`)
  return { ...run, chunks }
}

async function pagefindRun(dir: string, source: string): Promise<Run> {
  const site = join(dir, 'site')
  await mkdir(site)
  await writeFile(join(site, 'huge.html'), `<!doctype html><html lang="en"><head><title>Huge</title></head><body><main>${await marked.parse(source)}</main></body></html>`)
  return measured('pagefind', [pagefindBin(), '--site', site, '--output-path', join(dir, 'pagefind'), '--quiet'])
}

export async function run(opts: BenchOptions, otherCli?: string): Promise<unknown> {
  if (!existsSync(GNU_TIME)) {
    opts.log(`pagemem: not available (needs GNU time at ${GNU_TIME} to read a child process's peak memory)`)
    return { rows: [] }
  }
  const cli: Cli = otherCli ? { launcher: await launcherFor(otherCli), current: false } : { launcher: await compiledCli(), current: true }
  if (otherCli) opts.log(`docpilot: the CLI at ${otherCli}`)
  const rows: { mb: number; docpilot: Run & { chunks: number }; pagefind: Run }[] = []
  // Each row is printed as it is measured: the 30 MB build takes minutes.
  opts.log('page    docpilot peak (time, chunks)     Pagefind peak (time)   docpilot / Pagefind')
  for (const mb of SIZES_MB) {
    const dir = await mkdtemp(join(tmpdir(), 'docpilot-pagemem-'))
    try {
      const source = await page(mb)
      const d = await docpilotRun(dir, source, cli)
      const p = await pagefindRun(dir, source)
      rows.push({ mb, docpilot: d, pagefind: p })
      opts.log(`${String(mb).padStart(3)} MB  ${String(d.peakMb).padStart(6)} MB (${d.seconds} s, ${d.chunks})  ${String(p.peakMb).padStart(10)} MB (${p.seconds} s)  ${(d.peakMb / p.peakMb).toFixed(2)}x`)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  }
  const [small, large] = rows
  if (small && large) {
    opts.log(`30 MB / 3 MB: docpilot ${(large.docpilot.peakMb / small.docpilot.peakMb).toFixed(1)}x, Pagefind ${(large.pagefind.peakMb / small.pagefind.peakMb).toFixed(1)}x the memory for 10x the page`)
  }
  return { rows }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { cli: { type: 'string' } } })
  await run({ rounds: 1, log: (line) => console.log(line) }, values.cli)
}
