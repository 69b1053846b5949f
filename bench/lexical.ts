/**
 * First benchmark: per corpus, index build time and bytes, bytes a reader
 * fetches before the first result, and warm lexical query latency in Node.
 * Baseline, run side by side: a naive minisearch over the same chunks
 * (default tokenizer, prefix and fuzzy on every term) — the layout the
 * lexical settings were tuned away from. Recall@8 of both on the dev set.
 */
import { readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import MiniSearch from 'minisearch'
import { ConfigSchema } from '../core/config/schema.ts'
import type { ChunkRecord } from '../core/index-format.ts'
import { toContractLine } from '../core/eval/contract.ts'
import { parseQuestions, scoreRun, type QueryOutput } from '../core/eval/score.ts'
import { openIndex } from '../core/retrieval/search.ts'
import { collectChunks } from '../indexer/collect.ts'
import { fsPartLoader } from '../indexer/fs-parts.ts'
import { writeIndex, type PartSize } from '../indexer/write.ts'
import type { BenchOptions } from './run.ts'
import { median, p95 } from './stats.ts'

const SHARED = process.env.DOCPILOT_SHARED ?? resolve(import.meta.dirname, '../../shared')

const CORPORA = [
  { name: 'hono', root: 'corpora/hono', include: undefined, questions: 'eval/hono-dev.jsonl' },
  { name: 'astro', root: 'corpora/astro', include: ['src/content/docs/en/**/*.md', 'src/content/docs/en/**/*.mdx'], questions: 'eval/astro-dev.jsonl' },
]

/** Timed repetitions of each question after one warm-up pass. */
const QUERY_REPS = 20

const kb = (n: number) => `${(n / 1024).toFixed(1)} KB`
const msf = (n: number) => `${n.toFixed(2)} ms`

function naiveBaseline(chunks: ChunkRecord[]) {
  const mini = new MiniSearch<ChunkRecord & { n: number }>({
    idField: 'n',
    fields: ['text', 'title', 'trail', 'path', 'anchor'],
    extractField: (d, f) => (f === 'trail' ? d.trail.join(' ') : (d as unknown as Record<string, unknown>)[f]) as string,
    searchOptions: { prefix: true, fuzzy: 0.2 },
  })
  mini.addAll(chunks.map((c, n) => ({ ...c, n })))
  return (q: string) => mini.search(q).slice(0, 8).map((h) => chunks[h.id as number]!)
}

function timeQueries(questions: string[], search: (q: string) => unknown): number[] {
  for (const q of questions) search(q)
  const samples: number[] = []
  for (let r = 0; r < QUERY_REPS; r++) {
    for (const q of questions) {
      const t = performance.now()
      search(q)
      samples.push(performance.now() - t)
    }
  }
  return samples
}

async function timeAsyncQueries(questions: string[], search: (q: string) => Promise<unknown>): Promise<number[]> {
  for (const q of questions) await search(q)
  const samples: number[] = []
  for (let r = 0; r < QUERY_REPS; r++) {
    for (const q of questions) {
      const t = performance.now()
      await search(q)
      samples.push(performance.now() - t)
    }
  }
  return samples
}

export async function run(opts: BenchOptions): Promise<unknown> {
  const config = ConfigSchema.parse({})
  const results = []
  for (const corpus of CORPORA) {
    const root = join(SHARED, corpus.root)
    const out = join(tmpdir(), `docpilot-bench-${corpus.name}-${process.pid}`)
    const collectMs: number[] = []
    const writeMs: number[] = []
    let chunks: ChunkRecord[] = []
    let files = 0
    let parts: PartSize[] = []
    for (let r = 0; r < opts.rounds; r++) {
      let t = performance.now()
      const collected = await collectChunks({ root, mode: 'source', include: corpus.include, slugger: config.anchors.slugger, urls: config.urls, chunks: config.chunks })
      collectMs.push(performance.now() - t)
      t = performance.now()
      const written = await writeIndex({ chunks: collected.chunks, files: collected.files.length, out, docpilotVersion: 'bench', createdAt: new Date(0).toISOString() })
      writeMs.push(performance.now() - t)
      ;({ chunks } = collected)
      files = collected.files.length
      parts = written.parts
    }
    const sum = (ps: PartSize[], key: 'raw' | 'gzip') => ps.reduce((s, p) => s + p[key], 0)
    const byKind = (prefix: string) => parts.filter((p) => p.name.startsWith(prefix))
    const upFront = parts.filter((p) => !p.name.startsWith('texts.'))
    const shardGzip = new Map(byKind('texts.').map((p) => [p.name, p.gzip]))

    const questions = parseQuestions(await readFile(join(SHARED, corpus.questions), 'utf8'), corpus.questions)
    const index = await openIndex(fsPartLoader(out))
    const shardNames = index.manifest.parts.texts as string[]
    const shardSize = Math.ceil(index.size / shardNames.length)

    // Bytes before the first result: everything but texts, plus the shards the top 8 need.
    const firstResult: number[] = []
    const outputs: QueryOutput[] = []
    for (const q of questions) {
      const res = await index.search(q.q, { k: 8 })
      outputs.push(toContractLine(q.id, res))
      const ordinals = res.results.map((p) => index.manifest && chunks.findIndex((c) => c.id === p.id))
      const shards = new Set(ordinals.map((o) => shardNames[Math.floor(o / shardSize)]!))
      firstResult.push(sum(upFront, 'gzip') + [...shards].reduce((s, n) => s + (shardGzip.get(n) ?? 0), 0))
    }
    const baseline = naiveBaseline(chunks)
    const baselineOutputs: QueryOutput[] = questions.map((q) => ({
      id: q.id,
      mode: 'lexical',
      gate: { pass: true, score: 1 },
      results: baseline(q.q),
    }))

    const texts = questions.map((q) => q.q)
    const ours = await timeAsyncQueries(texts, (q) => index.search(q, { k: 8 }))
    const naive = timeQueries(texts, baseline)
    await rm(out, { recursive: true, force: true })

    const row = {
      corpus: corpus.name,
      files,
      chunks: chunks.length,
      build: { collectMedianMs: median(collectMs), writeMedianMs: median(writeMs), rounds: opts.rounds },
      bytes: {
        total: { raw: sum(parts, 'raw'), gzip: sum(parts, 'gzip') },
        manifest: { raw: sum(byKind('manifest'), 'raw'), gzip: sum(byKind('manifest'), 'gzip') },
        meta: { raw: sum(byKind('meta.'), 'raw'), gzip: sum(byKind('meta.'), 'gzip') },
        lexical: { raw: sum(byKind('lexical.'), 'raw'), gzip: sum(byKind('lexical.'), 'gzip') },
        texts: { raw: sum(byKind('texts.'), 'raw'), gzip: sum(byKind('texts.'), 'gzip'), shards: shardNames.length },
        firstResultGzip: { median: median(firstResult), max: Math.max(...firstResult) },
      },
      query: {
        docpilot: { medianMs: median(ours), p95Ms: p95(ours) },
        naiveMinisearch: { medianMs: median(naive), p95Ms: p95(naive) },
        medianRatio: median(ours) / median(naive),
      },
      recallAt8: { docpilot: scoreRun(questions, outputs).byKind.all!.recall[8], naiveMinisearch: scoreRun(questions, baselineOutputs).byKind.all!.recall[8] },
    }
    results.push(row)
    const b = row.bytes
    opts.log(
      [
        `${corpus.name}: ${files} files, ${chunks.length} chunks`,
        `  build   collect ${msf(row.build.collectMedianMs)}, write ${msf(row.build.writeMedianMs)} (median of ${opts.rounds})`,
        `  bytes   total ${kb(b.total.raw)} raw / ${kb(b.total.gzip)} gzip; manifest ${kb(b.manifest.gzip)}, meta ${kb(b.meta.gzip)}, lexical ${kb(b.lexical.gzip)} (raw ${kb(b.lexical.raw)}), texts ${kb(b.texts.gzip)} in ${b.texts.shards} shards`,
        `  first result fetches ${kb(b.firstResultGzip.median)} gzip (median over dev questions; max ${kb(b.firstResultGzip.max)})`,
        `  query   docpilot median ${msf(row.query.docpilot.medianMs)} p95 ${msf(row.query.docpilot.p95Ms)} | naive minisearch median ${msf(row.query.naiveMinisearch.medianMs)} p95 ${msf(row.query.naiveMinisearch.p95Ms)} | ratio ${row.query.medianRatio.toFixed(2)}x`,
        `  R@8     docpilot ${row.recallAt8.docpilot.toFixed(2)} | naive minisearch ${row.recallAt8.naiveMinisearch.toFixed(2)}`,
      ].join('\n'),
    )
  }
  return results
}
