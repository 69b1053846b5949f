/**
 * The gate and fusion, tuned and checked across corpora (the tables in docs/gate.md): for one
 * embedder, index hono and astro, ask every question of the four dev files,
 * then
 * - gate: choose weights and thresholds on one corpus (at most 2.5% of its
 *   answerable questions refused) and count what they refuse on the other,
 *   both ways, and pooled, with and without the subject check; next to the
 *   settings that ship (tuning.ts);
 * - fusion: R@1, R@8 and MRR@8 per file for each blend of the lexical score,
 *   the dense cosine and the question's coverage (fusion.ts), the blend
 *   chosen on one corpus and checked on the other, both ways.
 *
 *   npm run bench -- --only gate                      the shipped default model
 *   DOCPILOT_BENCH_EMBED=.cache/models/minilm-l6-v2-int8 npm run bench -- --only gate
 *                                                     an ONNX folder (or any `embed` config string)
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { basename, join, resolve } from 'node:path'
import { validateConfig } from '../core/config/validate.ts'
import { toContractLine } from '../core/eval/contract.ts'
import { parseQuestions, scoreRun, type EvalQuestion, type QueryOutput } from '../core/eval/score.ts'
import { refusals, tuneGate, type GateSample, type Refusals } from '../core/eval/tune-gate.ts'
import type { FusionConfig } from '../core/retrieval/fusion.ts'
import { gateConfig } from '../core/retrieval/hybrid.ts'
import { openIndex, type DocIndex } from '../core/retrieval/search.ts'
import { SUBJECT_FLOOR, VOCABULARY_FLOOR } from '../core/retrieval/tuning.ts'
import { buildIndex } from '../indexer/build.ts'
import { fsPartLoader } from '../indexer/fs-parts.ts'
import { CORPORA as CANDIDATE_CORPORA, prefillOnnxCache } from './dense-candidates.ts'
import type { BenchOptions } from './run.ts'

const SHARED = process.env.DOCPILOT_SHARED ?? resolve(import.meta.dirname, '../../shared')

const CORPORA = [
  { name: 'hono', include: undefined, config: { anchors: { slugger: 'vitepress' } } },
  {
    name: 'astro',
    include: ['src/content/docs/en/**/*.md', 'src/content/docs/en/**/*.mdx'],
    config: { anchors: { slugger: 'starlight' }, urls: { stripPrefix: 'src/content/docs/en/', trailingSlash: true } },
  },
] as const

const SETS = ['dev', 'dev-2']
/** Lexical and coverage weights tried; the dense weight is what remains of 1. */
const LEXICAL_WEIGHTS = [0.1, 0.2, 0.3, 0.4, 0.6, 0.8, 1]
const COVERAGE_WEIGHTS = [0, 0.1, 0.2, 0.25, 0.3, 0.4]

type Figures = ReturnType<typeof retrieval>
/** How a blend ranks on a corpus's files: R@8 first, then paraphrase R@8, R@1 and MRR. */
const blendScore = (files: Figures[]) => files.reduce((s, f) => s + 2 * f.r8 + f.paraR8 + f.r1 + f.mrr, 0)

interface Asked {
  question: EvalQuestion
  set: string
  output: QueryOutput
  sample: GateSample
}

function embedConfig(): unknown {
  const raw = process.env.DOCPILOT_BENCH_EMBED
  if (!raw) return 'default'
  return raw.startsWith('hf:') || !raw.includes('/') ? raw : { model: resolve(process.env.INIT_CWD ?? process.cwd(), raw) }
}

/** Each question's vector, embedded once per index: the fusion grid asks every question dozens of times, and a transformer takes ~0.1 s a question. */
const questionVectors = new WeakMap<DocIndex, Map<string, Float32Array>>()

async function questionVector(index: DocIndex, question: string): Promise<Float32Array | undefined> {
  if (!index.dense) return undefined
  let vectors = questionVectors.get(index)
  if (!vectors) questionVectors.set(index, (vectors = new Map()))
  if (!vectors.has(question)) {
    const v = await index.dense.queryVector(question)
    if (!('vector' in v)) return undefined
    vectors.set(question, v.vector)
  }
  return vectors.get(question)
}

async function ask(index: DocIndex, corpus: string): Promise<Asked[]> {
  const asked: Asked[] = []
  for (const set of SETS) {
    const file = join(SHARED, `eval/${corpus}-${set}.jsonl`)
    for (const question of parseQuestions(readFileSync(file, 'utf8'), file)) {
      const queryVector = await questionVector(index, question.q)
      const result = await index.search(question.q, queryVector ? { queryVector } : {})
      asked.push({
        question,
        set: `${corpus}-${set}`,
        output: toContractLine(question.id, result),
        sample: { id: question.id, answerable: question.gold.length > 0, signals: result.gate.signals },
      })
    }
  }
  return asked
}

const show = (r: Refusals) => `answerable refused ${r.answerableRefused}/${r.answerable}, off-topic refused ${r.offTopicRefused}/${r.offTopic}`
const add = (a: Refusals, b: Refusals): Refusals => ({
  answerable: a.answerable + b.answerable,
  answerableRefused: a.answerableRefused + b.answerableRefused,
  offTopic: a.offTopic + b.offTopic,
  offTopicRefused: a.offTopicRefused + b.offTopicRefused,
})

function retrieval(asked: readonly Asked[]) {
  const report = scoreRun(asked.map((a) => a.question), asked.map((a) => a.output))
  const all = report.byKind.all!
  return { r1: all.recall[1], r8: all.recall[8], mrr: all.mrr, paraR8: report.byKind.paraphrase?.recall[8] ?? 0 }
}

export async function run(opts: BenchOptions & { workDir?: string; smoke?: boolean }): Promise<unknown> {
  const log = opts.log
  const embed = embedConfig()
  // One folder per embedder: an index left by another embedder's run would be rebuilt without the native vectors.
  const embedName = typeof embed === 'string' ? embed : basename((embed as { model: string }).model)
  const work = join(opts.workDir ?? join(import.meta.dirname, 'results/work'), 'gate', embedName.replace(/[^\w.-]+/g, '-'))
  mkdirSync(work, { recursive: true })
  log(`embedder: ${JSON.stringify(embed)}`)

  const byCorpus: Record<string, { index: DocIndex; asked: Asked[] }> = {}
  for (const c of opts.smoke ? CORPORA.slice(0, 1) : CORPORA) {
    const out = join(work, `${c.name}-index`)
    const cacheDir = join(work, 'cache')
    // A transformer embeds thousands of chunks slowly in WebAssembly: native onnxruntime fills the embedding cache first.
    // (A previous run's index means its cache is there already.)
    if (typeof embed === 'object' && existsSync(join((embed as { model: string }).model, 'model.onnx')) && !existsSync(join(out, 'manifest.json'))) {
      const corpus = CANDIDATE_CORPORA.find((k) => k.name === c.name)!
      await prefillOnnxCache({ name: c.name, what: 'gate bench', embed: embed as { model: string } }, corpus, out, cacheDir, work, log)
    }
    await buildIndex({
      root: join(SHARED, 'corpora', c.name),
      mode: 'source',
      out,
      ...(c.include ? { include: [...c.include] } : {}),
      config: validateConfig({ ...c.config, embed }, '(bench gate)'),
      docpilotVersion: 'bench',
      embed: { env: {}, configDir: process.cwd(), cacheDir },
    })
    const index = await openIndex(fsPartLoader(out))
    byCorpus[c.name] = { index, asked: await ask(index, c.name) }
    log(`${c.name}: ${byCorpus[c.name]!.asked.length} questions asked (embedder ${index.manifest.embedder.id})`)
  }
  const names = Object.keys(byCorpus)
  const samples = (name: string) => byCorpus[name]!.asked.map((a) => a.sample)

  // The gate: the shipped settings, then chosen on one corpus and checked on the other.
  const shipped = gateConfig(byCorpus[names[0]!]!.index.manifest)
  const gateRows: Record<string, unknown>[] = []
  let shippedPooled: Refusals | null = null
  for (const name of names) {
    const r = refusals(samples(name), shipped)
    shippedPooled = shippedPooled ? add(shippedPooled, r) : r
  }
  log(`\ngate as shipped ${JSON.stringify(shipped)}:\n  ${show(shippedPooled!)} (pooled)`)
  gateRows.push({ tuned: 'shipped', gate: shipped, pooled: shippedPooled })
  for (const [train, check] of names.length === 2 ? [[names[0]!, names[1]!], [names[1]!, names[0]!]] : []) {
    const tuned = tuneGate(samples(train!), { vocabularyFloor: VOCABULARY_FLOOR, subjectFloor: SUBJECT_FLOOR, meaningFrom: shipped.meaningFrom })
    const checked = refusals(samples(check!), tuned.gate)
    const lexicalChecked = refusals(samples(check!), tuned.gate, 'lexical')
    log(
      `tuned on ${train}: weights ${JSON.stringify(tuned.gate.weights)}, threshold ${tuned.gate.threshold}, lexical ${tuned.gate.lexicalThreshold}\n` +
        `  on ${train}: ${show(tuned.train)}\n  on ${check}: ${show(checked)}\n  lexical-only on ${check}: ${show(lexicalChecked)}`,
    )
    gateRows.push({ tuned: train, checked: check, gate: tuned.gate, train: tuned.train, check: checked, lexicalCheck: lexicalChecked })
  }
  if (names.length === 2) {
    const pooled = tuneGate([...samples(names[0]!), ...samples(names[1]!)], { vocabularyFloor: VOCABULARY_FLOOR, subjectFloor: SUBJECT_FLOOR, meaningFrom: shipped.meaningFrom })
    log(`tuned on both: ${JSON.stringify(pooled.gate)}\n  ${show(pooled.train)}; lexical-only ${show(pooled.lexicalTrain)}`)
    gateRows.push({ tuned: 'pooled', gate: pooled.gate, train: pooled.train, lexicalTrain: pooled.lexicalTrain })
    // What the subject check buys: the same tuning without it.
    const unchecked = tuneGate([...samples(names[0]!), ...samples(names[1]!)], { vocabularyFloor: VOCABULARY_FLOOR, meaningFrom: shipped.meaningFrom })
    log(`tuned on both without the subject check: ${JSON.stringify(unchecked.gate)}\n  ${show(unchecked.train)}; lexical-only ${show(unchecked.lexicalTrain)}`)
    gateRows.push({ tuned: 'pooled without the subject check', gate: unchecked.gate, train: unchecked.train, lexicalTrain: unchecked.lexicalTrain })
  }

  // Fusion: every blend on every file, then chosen on one corpus and checked on the other.
  const fusionRows: Array<{ fusion: FusionConfig; files: Record<string, Figures> }> = []
  log('\nfusion (linear: lexical / dense / coverage weights; R@1 / R@8 / MRR@8 / paraphrase R@8 per file):')
  const round2 = (x: number) => Math.round(x * 100) / 100
  for (const lexicalWeight of LEXICAL_WEIGHTS) {
    for (const coverageWeight of COVERAGE_WEIGHTS) {
      const denseWeight = round2(1 - lexicalWeight - coverageWeight)
      if (denseWeight < 0) continue
      const fusion: FusionConfig = { method: 'linear', lexicalWeight, denseWeight, coverageWeight }
      const files: Record<string, Figures> = {}
      for (const name of names) {
        const { index } = byCorpus[name]!
        const before = index.manifest.retrieval.fusion
        index.manifest.retrieval.fusion = fusion
        const asked = await ask(index, name)
        index.manifest.retrieval.fusion = before
        for (const set of SETS) files[`${name}-${set}`] = retrieval(asked.filter((a) => a.set === `${name}-${set}`))
      }
      log(`  ${lexicalWeight} / ${denseWeight} / ${coverageWeight}: ${Object.entries(files).map(([file, f]) => `${file} ${f.r1.toFixed(2)}/${f.r8.toFixed(2)}/${f.mrr.toFixed(2)}/${f.paraR8.toFixed(2)}`).join('  ')}`)
      fusionRows.push({ fusion, files })
    }
  }
  const filesOf = (row: (typeof fusionRows)[number], corpus: string) => SETS.map((set) => row.files[`${corpus}-${set}`]!)
  const blend = (f: FusionConfig) => (f.method === 'linear' ? `${f.lexicalWeight} / ${f.denseWeight} / ${f.coverageWeight ?? 0}` : JSON.stringify(f))
  const fusionChoices: Record<string, unknown>[] = []
  for (const [train, check] of names.length === 2 ? [[names[0]!, names[1]!], [names[1]!, names[0]!]] : []) {
    const best = [...fusionRows].sort((a, b) => blendScore(filesOf(b, train!)) - blendScore(filesOf(a, train!)))[0]!
    const shown = (corpus: string) => SETS.map((set) => { const f = best.files[`${corpus}-${set}`]!; return `${corpus}-${set} ${f.r1.toFixed(2)}/${f.r8.toFixed(2)}/${f.paraR8.toFixed(2)}` }).join('  ')
    log(`fusion tuned on ${train}: ${blend(best.fusion)}\n  on ${train}: ${shown(train!)}\n  on ${check}: ${shown(check!)}`)
    fusionChoices.push({ tuned: train, checked: check, fusion: best.fusion })
  }
  return { embed, embedder: byCorpus[names[0]!]!.index.manifest.embedder.id, gate: gateRows, fusion: fusionRows, fusionChoices }
}
