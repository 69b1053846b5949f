/**
 * Memory for one very large page: `docpilot index` on a docs folder holding a
 * single Markdown page of 3 MB and of 30 MB (real docs text, the Hono docs
 * repeated), each in its own process, with docs.maxFileBytes raised so the
 * page is read (the default, 2 MiB, skips both). Reports peak RSS (maxRSS)
 * and the chunks written; the ratio 30 MB / 3 MB shows whether memory grows
 * with the page or faster. Reported, never asserted: the per-file limit is
 * what keeps a hostile page from costing this.
 *
 * `npm run bench -- --only pagemem`, or `npx tsx bench/page-memory.ts`.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { sharedPath } from '../fixtures/shared-data.ts'
import type { BenchOptions } from './harness.ts'

const SIZES_MB = [3, 30]

/** Real docs text: every page of the Hono docs, concatenated, repeated to `mb` megabytes. */
function page(mb: number): string {
  const root = sharedPath('corpora/hono/docs')
  const text = (readdirSync(root, { recursive: true, encoding: 'utf8' }) as string[])
    .filter((f) => f.endsWith('.md'))
    .sort()
    .map((f) => readFileSync(join(root, f), 'utf8').replace(/^---[\s\S]*?---\n/, ''))
    .join('\n\n')
  const bytes = mb * 1024 * 1024
  return text.repeat(Math.ceil(bytes / text.length)).slice(0, bytes)
}

/** In a child process: index one page, print peak RSS (KB) and chunks as JSON. */
async function child(dir: string): Promise<void> {
  const { collectChunks } = await import('../indexer/collect.ts')
  const result = await collectChunks({
    root: dir,
    mode: 'source',
    slugger: 'github',
    urls: { base: '/', stripPrefix: '', stripExtension: true, collapseIndex: true, trailingSlash: false },
    chunks: { maxWords: 220, overlapWords: 40 },
    limits: { maxFileBytes: 64 * 1024 * 1024, maxNesting: 64 },
  })
  console.log(JSON.stringify({ maxRssKb: process.resourceUsage().maxRSS, chunks: result.chunks.length, warnings: result.warnings.length }))
}

export async function run(opts: BenchOptions): Promise<unknown> {
  const rows: { mb: number; peakMb: number; chunks: number; seconds: number }[] = []
  for (const mb of SIZES_MB) {
    const dir = mkdtempSync(join(tmpdir(), 'docpilot-pagemem-'))
    try {
      writeFileSync(join(dir, 'huge.md'), page(mb))
      const started = performance.now()
      const out = execFileSync(process.execPath, ['--import', 'tsx', fileURLToPath(import.meta.url), '--child', dir], { encoding: 'utf8', maxBuffer: 1 << 20 })
      const line = JSON.parse(out.trim().split('\n').at(-1)!) as { maxRssKb: number; chunks: number }
      rows.push({ mb, peakMb: Math.round(line.maxRssKb / 1024), chunks: line.chunks, seconds: Math.round((performance.now() - started) / 100) / 10 })
    } finally {
      rmSync(dir, { recursive: true, force: true })
    }
  }
  opts.log('page    peak RSS   chunks   time')
  for (const r of rows) opts.log(`${String(r.mb).padStart(3)} MB  ${String(r.peakMb).padStart(6)} MB  ${String(r.chunks).padStart(7)}  ${r.seconds} s`)
  const [small, large] = rows
  if (small && large) opts.log(`30 MB / 3 MB: ${(large.peakMb / small.peakMb).toFixed(1)}x the memory for 10x the page (docs.maxFileBytes, 2 MiB by default, skips both)`)
  return { rows }
}

if (process.argv[2] === '--child') {
  await child(process.argv[3]!)
} else if (import.meta.url === `file://${process.argv[1]}`) {
  await run({ rounds: 1, log: (line) => console.log(line) })
}
