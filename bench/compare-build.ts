/**
 * Index build time and output bytes, side by side. Each round builds the
 * corpus with docpilot (`docpilot index` over the sources), Pagefind (its CLI
 * over the same chunks rendered to HTML) and Orama (insert the same chunks,
 * save, serialize), alternating engines so machine noise hits all of them
 * alike. The first round is the one that prepares the corpus for the other
 * benchmarks; later rounds rotate which engine goes first.
 * Bytes: raw and gzip of what each engine serves as its index; docpilot's
 * embedding model files and Pagefind's runtime are listed on their own lines.
 */
import { appendFile, cp, mkdir, rm } from 'node:fs/promises'
import { partOfModel } from '../core/index/format.ts'
import { join } from 'node:path'
import { buildDocpilot, buildOramaFile, measureDir, prepareCorpus, sumSizes, type FileSize, type PreparedCorpus } from './compare-corpora.ts'
import { corporaOf, workRootOf, type CompareOptions } from './compare-questions.ts'
import type { Timing } from './cpu-time.ts'
import { kb, median, ms, p95, ratio } from './stats.ts'
import { buildPagefind, pagefindFileRole } from './peers/pagefind.ts'
import { EXTRA_CA_CERTS, extraCaCertsCost } from './build-command.ts'

export interface BuildRow {
  engine: string
  /** Wall time of each round, ms. */
  times: number[]
  medianMs: number
  p95Ms: number
  /** CPU time (user + system) of each round, ms: steadier than wall time on a shared machine. */
  cpu: number[]
  cpuMedianMs: number
  bytes: { raw: number; gzip: number }
}

export interface BuildResult {
  corpus: string
  chunks: number
  pages: number
  rows: BuildRow[]
  /** Served alongside but not index: docpilot's model files, Pagefind's runtime. */
  extras: Array<{ engine: string; what: string; raw: number; gzip: number }>
  /** docpilot's re-index after one page changed: medians over `runs` re-indexes, each after another change to `page` (relative to the corpus). */
  reindex: Timing & { page: string; runs: number }
  /** Node's own start-up with and without this machine's CA bundle variable, which builds run without (build-command.ts). */
  caCerts?: ReturnType<typeof extraCaCertsCost>
}

type Builder = { engine: string; build(round: number): Promise<Timing> }

/** The engines in the order of the first round (the one prepareCorpus ran). */
function builders(c: PreparedCorpus, scratch: string): Builder[] {
  const list: Builder[] = [
    { engine: 'docpilot', build: (r) => buildDocpilot(c.spec, join(scratch, `docpilot-${r}`)) },
    { engine: 'Pagefind', build: (r) => buildPagefind(c.siteDir, join(scratch, `pagefind-${r}`)) },
    { engine: 'Orama BM25', build: (r) => buildOramaFile(join(scratch, `orama-bm25-${r}.json`), c.chunks) },
  ]
  if (c.vectors) {
    const vectors = c.vectors
    list.push({ engine: 'Orama hybrid', build: (r) => buildOramaFile(join(scratch, `orama-hybrid-${r}.json`), c.chunks, vectors) })
  }
  return list
}

async function docpilotBytes(c: PreparedCorpus): Promise<{ index: FileSize[]; model: FileSize[] }> {
  const files = await measureDir(c.docpilotDir)
  const isModel = partOfModel(c.index.manifest.embedder)
  return { index: files.filter((f) => !isModel(f.file)), model: files.filter((f) => isModel(f.file)) }
}

/**
 * docpilot's re-index after one page changes, as a site's next deploy runs
 * it: a copy of the corpus is built with a cache kept between runs, then one
 * page (the middle one by path) gains a sentence before each timed build,
 * process start included like every build here. The runs are spread over the
 * rounds, one after each round's full builds: the share of a full build is a
 * ratio of two medians, and a shared machine's speed drifts by a third over
 * the minutes a bench takes, so its two halves are measured side by side.
 */
async function reindexRuns(c: PreparedCorpus, scratch: string): Promise<{ page: string; next(): Promise<Timing> }> {
  const spec = { ...c.spec, root: join(scratch, 'reindex-docs') }
  await cp(c.spec.root, spec.root, { recursive: true })
  const [out, cache] = [join(scratch, 'reindex-out'), join(scratch, 'reindex-cache')]
  await buildDocpilot(spec, out, cache)
  const pages = [...new Set(c.chunks.map((ch) => ch.path))].sort()
  const page = pages[Math.floor(pages.length / 2)]!
  let run = 0
  return {
    page,
    async next() {
      await appendFile(join(spec.root, page), `\n\nSentence ${++run}, added to time a re-index after a one-page change.\n`)
      return buildDocpilot(spec, out, cache)
    },
  }
}

export async function runBuild(opts: Pick<CompareOptions, 'corpora' | 'workDir'> & { rounds: number }): Promise<BuildResult[]> {
  const out: BuildResult[] = []
  const caCerts = extraCaCertsCost()
  for (const spec of corporaOf(opts)) {
    const c = await prepareCorpus(spec, workRootOf(opts))
    const scratch = join(c.dir, 'build-rounds')
    await rm(scratch, { recursive: true, force: true })
    await mkdir(scratch, { recursive: true })
    const list = builders(c, scratch)
    const times = new Map<string, Timing[]>(list.map((b) => [b.engine, [c.firstBuild[b.engine]!]]))
    // The first round's full builds ran in prepareCorpus, just before: its re-index follows them here.
    const reindexing = await reindexRuns(c, scratch)
    const reindexes = [await reindexing.next()]
    for (let round = 1; round < opts.rounds; round++) {
      // Rotate the starting engine each round: no engine always runs first (cold caches) or last.
      for (let i = 0; i < list.length; i++) {
        const b = list[(i + round) % list.length]!
        times.get(b.engine)!.push(await b.build(round))
      }
      reindexes.push(await reindexing.next())
    }
    while (reindexes.length < 3) reindexes.push(await reindexing.next())
    const reindex = { page: reindexing.page, runs: reindexes.length, wallMs: median(reindexes.map((t) => t.wallMs)), cpuMs: median(reindexes.map((t) => t.cpuMs)) }
    await rm(scratch, { recursive: true, force: true })

    const dp = await docpilotBytes(c)
    const pf = await measureDir(c.pagefindDir)
    const oramaFile = (name: string) => measureDir(c.oramaDir).then((fs) => fs.filter((f) => f.file === `${name}.json`))
    const bytesOf: Record<string, { raw: number; gzip: number }> = {
      docpilot: sumSizes(dp.index),
      Pagefind: sumSizes(pf.filter((f) => pagefindFileRole(f.file) === 'index')),
      'Orama BM25': sumSizes(await oramaFile('bm25')),
      'Orama hybrid': sumSizes(await oramaFile('hybrid')),
    }
    const rows = list.map((b) => {
      const wall = times.get(b.engine)!.map((t) => t.wallMs)
      const cpu = times.get(b.engine)!.map((t) => t.cpuMs)
      return { engine: b.engine, times: wall, medianMs: median(wall), p95Ms: p95(wall), cpu, cpuMedianMs: median(cpu), bytes: bytesOf[b.engine]! }
    })
    const extras: BuildResult['extras'] = []
    if (dp.model.length) extras.push({ engine: 'docpilot', what: 'embedding model files', ...sumSizes(dp.model) })
    extras.push({
      engine: 'Pagefind',
      what: 'runtime (pagefind.js, worker, wasm)',
      ...sumSizes(pf.filter((f) => pagefindFileRole(f.file) === 'runtime')),
    })
    out.push({
      corpus: spec.name,
      chunks: c.chunks.length,
      pages: new Set(c.chunks.map((ch) => ch.path)).size,
      rows,
      extras,
      reindex,
      ...(caCerts ? { caCerts } : {}),
    })
  }
  return out
}

/** Why the builds' CPU leaves out part of this machine's process start-up, and how much. */
export function caCertsLine(r: BuildResult): string | undefined {
  const c = r.caCerts
  if (!c) return undefined
  return `Builds run without ${EXTRA_CA_CERTS} (${c.file} here), which Node parses at every process start: \`node -e 0\` takes ${Math.round(c.withMs)} ms CPU with it, ${Math.round(c.withoutMs)} ms without`
}

/** The re-index's wall and CPU time, each as a share of the full build's median. */
export function reindexLine(r: BuildResult): string {
  const dp = r.rows.find((x) => x.engine === 'docpilot')!
  const share = (part: number, whole: number) => `${((100 * part) / whole).toFixed(1)}%`
  return `${ms(r.reindex.wallMs)} wall (${share(r.reindex.wallMs, dp.medianMs)} of a full build), ${ms(r.reindex.cpuMs)} CPU (${share(r.reindex.cpuMs, dp.cpuMedianMs)}), medians of ${r.reindex.runs} changes`
}

export function formatBuild(results: BuildResult[]): string {
  const lines: string[] = []
  for (const r of results) {
    const dp = r.rows.find((x) => x.engine === 'docpilot')!
    lines.push(`build: ${r.corpus} (${r.pages} pages, ${r.chunks} chunks; ${dp.times.length} rounds; ratios docpilot / row, below 1 = docpilot faster or smaller)`)
    lines.push(
      `  ${'engine'.padEnd(14)}${'wall med'.padStart(10)}${'p95'.padStart(10)}${'dp/peer'.padStart(9)}` +
        `${'cpu med'.padStart(10)}${'dp/peer'.padStart(9)}` +
        `${'raw'.padStart(12)}${'gzip'.padStart(12)}${'dp/peer gz'.padStart(12)}`,
    )
    for (const row of r.rows) {
      const self = row === dp
      lines.push(
        `  ${row.engine.padEnd(14)}${ms(row.medianMs).padStart(10)}${ms(row.p95Ms).padStart(10)}` +
          `${(self ? '' : ratio(dp.medianMs, row.medianMs)).padStart(9)}` +
          `${ms(row.cpuMedianMs).padStart(10)}${(self ? '' : ratio(dp.cpuMedianMs, row.cpuMedianMs)).padStart(9)}` +
          `${kb(row.bytes.raw).padStart(12)}${kb(row.bytes.gzip).padStart(12)}` +
          `${(self ? '' : ratio(dp.bytes.gzip, row.bytes.gzip)).padStart(12)}`,
      )
    }
    for (const e of r.extras) lines.push(`  + ${e.engine} ${e.what}: ${kb(e.raw)} raw, ${kb(e.gzip)} gzip`)
    lines.push(`  docpilot re-index after one page changed (${r.reindex.page}): ${reindexLine(r)}`)
    const ca = caCertsLine(r)
    if (ca) lines.push(`  ${ca}`)
    lines.push('')
  }
  return lines.join('\n')
}

/** Harness entry (`--only build`): `--rounds N` rounds; `--smoke` one round of the first corpus. */
export async function run(opts: CompareOptions): Promise<BuildResult[]> {
  const corpora = opts.smoke ? corporaOf(opts).slice(0, 1) : corporaOf(opts)
  const results = await runBuild({ ...opts, corpora, rounds: opts.smoke ? 1 : opts.rounds })
  opts.log(formatBuild(results))
  return results
}
