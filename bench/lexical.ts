/**
 * First benchmark: per corpus, index build time and bytes, bytes a fresh
 * reader fetches before its first (lexical-only) result, warm lexical query latency (median, p95)
 * in Node, and recall@8 on the dev set.
 *
 * Baseline, measured side by side in the same run over the same chunks: the
 * naive layout DESIGN.md warns about, one minisearch with its default
 * tokenizer and prefix + fuzzy on every term, shipped as one JSON next to all
 * chunk records (both fetched before the first result). Every figure is
 * printed as docpilot / baseline, so a ratio under 1 means docpilot needs
 * less; absolute times swing with the machine's load, ratios much less.
 */
import { rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import MiniSearch from 'minisearch'
import { ConfigSchema } from '../core/config/schema.ts'
import type { ChunkRecord } from '../core/index/format.ts'
import { toContractLine } from '../core/eval/contract.ts'
import { scoreRun, type QueryOutput } from '../core/eval/score.ts'
import { openIndex } from '../core/retrieval/search.ts'
import { DEV_CORPORA, readDevSet } from '../fixtures/dev-corpora.ts'
import { collectChunks } from '../indexer/collect.ts'
import { coldFetchCost } from '../indexer/fetch-cost.ts'
import { fsPartLoader } from '../indexer/fs-parts.ts'
import { writeIndex, type PartSize } from '../indexer/write.ts'
import { timeInProcess, type Timing } from './cpu-time.ts'
import type { BenchOptions } from './run.ts'
import { kb, median, ms, p95, ratio, timePasses } from './stats.ts'



/**
 * Timed passes over the dev questions after one warm-up pass. The baseline
 * is 10-20x slower per query, so it gets fewer passes; both still give
 * 90+ samples per corpus.
 */
const PASSES = { docpilot: 20, baseline: 3 }

type Options = BenchOptions & { smoke?: boolean }

/** One corpus's figures, as printed and as written to bench/results/lexical.json. */
export interface LexicalRow {
  corpus: string
  files: number
  chunks: number
  rounds: number
  /** Reading and chunking the pages: the same work for both layouts. */
  collect: Timing
  build: { docpilot: Timing; baseline: Timing }
  bytes: {
    docpilot: { totalRaw: number; totalGzip: number; lexicalGzip: number; firstResultGzip: { median: number; max: number }; textShards: number }
    baseline: { indexGzip: number; firstResultGzip: number }
  }
  query: { docpilot: Latency; baseline: Latency }
  recallAt8: { docpilot: number; baseline: number }
}

interface Latency {
  medianMs: number
  p95Ms: number
  samples: number
}

interface Baseline {
  search(q: string): ChunkRecord[]
  /** gzip bytes a reader fetches before the first result: the index JSON and every chunk record. */
  upFrontGzip: number
  indexGzip: number
}

function buildBaseline(chunks: ChunkRecord[]): Baseline {
  const mini = new MiniSearch<ChunkRecord & { n: number }>({
    idField: 'n',
    fields: ['text', 'title', 'trail', 'path', 'anchor'],
    extractField: (d, f) => (f === 'trail' ? d.trail.join(' ') : (d as unknown as Record<string, unknown>)[f]) as string,
    searchOptions: { prefix: true, fuzzy: 0.2 },
  })
  mini.addAll(chunks.map((c, n) => ({ ...c, n })))
  const indexGzip = gzipSync(JSON.stringify(mini), { level: 9 }).length
  const chunksGzip = gzipSync(JSON.stringify(chunks), { level: 9 }).length
  return {
    search: (q) => mini.search(q).slice(0, 8).map((h) => chunks[h.id as number]!),
    upFrontGzip: indexGzip + chunksGzip,
    indexGzip,
  }
}

const sum = (ps: readonly PartSize[], key: 'raw' | 'gzip') => ps.reduce((s, p) => s + p[key], 0)
const medianOf = (ts: readonly Timing[], key: keyof Timing) => median(ts.map((t) => t[key]))

export async function run(opts: Options): Promise<LexicalRow[]> {
  const config = ConfigSchema.parse({})
  const rounds = opts.smoke ? 1 : opts.rounds
  const passes = opts.smoke ? { docpilot: 2, baseline: 1 } : PASSES
  const results: LexicalRow[] = []
  for (const corpus of opts.smoke ? DEV_CORPORA.slice(0, 1) : DEV_CORPORA) {
    const root = corpus.root
    const out = join(tmpdir(), `docpilot-bench-${corpus.name}-${process.pid}`)
    const collect: Timing[] = []
    const ours: Timing[] = []
    const naive: Timing[] = []
    let chunks: ChunkRecord[] = []
    let files = 0
    let parts: PartSize[] = []
    let baseline: Baseline | undefined
    // Reading and chunking the pages is shared; the build compared is what each layout does with the chunks.
    for (let r = 0; r < rounds; r++) {
      collect.push(
        await timeInProcess(async () => {
          const collected = await collectChunks({ root, mode: 'source', ...(corpus.include ? { include: [...corpus.include] } : {}), slugger: config.anchors.slugger, urls: config.urls, chunks: config.chunks })
          chunks = collected.chunks
          files = collected.files.length
        }),
      )
      ours.push(await timeInProcess(async () => {
        parts = (await writeIndex({ chunks, files, out, docpilotVersion: 'bench', createdAt: new Date(0).toISOString() })).parts
      }))
      naive.push(await timeInProcess(async () => void (baseline = buildBaseline(chunks))))
    }
    const base = baseline!

    const questions = readDevSet(corpus.sets[0])
    const index = await openIndex(fsPartLoader(out))
    const outputs: QueryOutput[] = []
    for (const q of questions) outputs.push(toContractLine(q.id, await index.search(q.q, { k: 8, lexicalOnly: true })))
    // Bytes before the first result: what a fresh reader fetches for each question (manifest, lexical head, postings, text shards).
    const firstResult = (await coldFetchCost(out, questions.map((q) => q.q), 8, { lexicalOnly: true })).questions.map((c) => c.bytes)
    const baseOutputs: QueryOutput[] = questions.map((q) => ({ id: q.id, mode: 'lexical', gate: { pass: true, score: 1 }, results: base.search(q.q) }))

    const texts = questions.map((q) => q.q)
    const ourLatency = await timePasses(passes.docpilot, texts, (q) => index.search(q, { k: 8, lexicalOnly: true }))
    const baseLatency = await timePasses(passes.baseline, texts, base.search)
    await rm(out, { recursive: true, force: true })

    const lexicalPart = parts.filter((p) => p.name.startsWith('lexical.') || p.name.startsWith('postings/'))
    const row: LexicalRow = {
      corpus: corpus.name,
      files,
      chunks: chunks.length,
      rounds,
      collect: { wallMs: medianOf(collect, 'wallMs'), cpuMs: medianOf(collect, 'cpuMs') },
      build: {
        docpilot: { wallMs: medianOf(ours, 'wallMs'), cpuMs: medianOf(ours, 'cpuMs') },
        baseline: { wallMs: medianOf(naive, 'wallMs'), cpuMs: medianOf(naive, 'cpuMs') },
      },
      bytes: {
        docpilot: {
          totalRaw: sum(parts, 'raw'),
          totalGzip: sum(parts, 'gzip'),
          lexicalGzip: sum(lexicalPart, 'gzip'),
          firstResultGzip: { median: median(firstResult), max: Math.max(...firstResult) },
          textShards: parts.filter((p) => p.name.startsWith('texts/')).length,
        },
        baseline: { indexGzip: base.indexGzip, firstResultGzip: base.upFrontGzip },
      },
      query: {
        docpilot: { medianMs: median(ourLatency), p95Ms: p95(ourLatency), samples: ourLatency.length },
        baseline: { medianMs: median(baseLatency), p95Ms: p95(baseLatency), samples: baseLatency.length },
      },
      recallAt8: { docpilot: scoreRun(questions, outputs).byKind.all!.recall[8], baseline: scoreRun(questions, baseOutputs).byKind.all!.recall[8] },
    }
    results.push(row)
    opts.log(table(row))
  }
  return results
}

function table(row: LexicalRow): string {
  const { build, bytes, query, recallAt8: r } = row
  const line = (what: string, ours: string, base: string, x: string) => `  ${what.padEnd(32)} ${ours.padStart(12)} ${base.padStart(12)} ${x.padStart(8)}`
  return [
    `${row.corpus}: ${row.files} files, ${row.chunks} chunks; reading + chunking ${ms(row.collect.wallMs)} wall, ${ms(row.collect.cpuMs)} CPU (shared, median of ${row.rounds})`,
    `  docpilot total ${kb(bytes.docpilot.totalRaw)} raw / ${kb(bytes.docpilot.totalGzip)} gzip, texts in ${bytes.docpilot.textShards} shards`,
    line('', 'docpilot', 'baseline', 'ratio'),
    line('build wall (median)', ms(build.docpilot.wallMs), ms(build.baseline.wallMs), ratio(build.docpilot.wallMs, build.baseline.wallMs)),
    line('build CPU (median)', ms(build.docpilot.cpuMs), ms(build.baseline.cpuMs), ratio(build.docpilot.cpuMs, build.baseline.cpuMs)),
    line('lexical index, gzip', kb(bytes.docpilot.lexicalGzip), kb(bytes.baseline.indexGzip), ratio(bytes.docpilot.lexicalGzip, bytes.baseline.indexGzip)),
    line('fetched before 1st result, gzip', kb(bytes.docpilot.firstResultGzip.median), kb(bytes.baseline.firstResultGzip), ratio(bytes.docpilot.firstResultGzip.median, bytes.baseline.firstResultGzip)),
    line('query median', ms(query.docpilot.medianMs), ms(query.baseline.medianMs), ratio(query.docpilot.medianMs, query.baseline.medianMs)),
    line('query p95', ms(query.docpilot.p95Ms), ms(query.baseline.p95Ms), ratio(query.docpilot.p95Ms, query.baseline.p95Ms)),
    line('recall@8 (dev set)', r.docpilot.toFixed(2), r.baseline.toFixed(2), ratio(r.docpilot, r.baseline)),
  ].join('\n')
}
