/**
 * The gate and fusion, tuned and checked across docs sites (the tables in
 * docs/gate.md): for one embedder, index every corpus below, ask every
 * question of its sets, then
 * - gate: the settings that ship (tuning.ts), per corpus; weights and
 *   thresholds chosen on one dev corpus and counted on the other, both ways;
 *   chosen on all corpora but one and counted on the one left out, for each
 *   (what a site nobody tuned on can expect); and chosen on all of them, which
 *   is what ships. Every choice refuses at most ANSWERABLE_REFUSED_CAP
 *   (tune-gate.ts) of the answerable questions it is chosen on;
 * - fusion: R@1, R@8 and MRR@8 per file for each blend of the lexical score,
 *   the dense cosine and the question's coverage (fusion.ts), the blend
 *   chosen on one dev corpus and checked on the other, both ways, and the
 *   blend chosen on both dev corpora checked on the further sites.
 *
 *   npm run bench -- --only gate                      the shipped default model
 *   DOCPILOT_BENCH_EMBED=.cache/models/minilm-l6-v2-int8 npm run bench -- --only gate
 *                                                     an ONNX folder (or any `embed` config string)
 *   DOCPILOT_BENCH_MEANING=lexical DOCPILOT_BENCH_VOCABULARY_FLOOR=0.6 npm run bench -- --only gate
 *                                                     the gate read another way (the shipped index's
 *                                                     meaningFrom, the floor tuning.ts gives)
 */
import { existsSync, mkdirSync, readFileSync } from 'node:fs'
import { basename, join, resolve } from 'node:path'
import { validateConfig } from '../core/config/validate.ts'
import { toContractLine } from '../core/eval/contract.ts'
import { parseQuestions, scoreRun, type EvalQuestion, type QueryOutput } from '../core/eval/score.ts'
import { refusals, tuneGate, type GateSample, type Refusals } from '../core/eval/tune-gate.ts'
import type { FusionConfig } from '../core/retrieval/fusion.ts'
import type { GateConfig } from '../core/retrieval/gate.ts'
import { gateConfig } from '../core/retrieval/hybrid.ts'
import { openIndex, type DocIndex } from '../core/retrieval/search.ts'
import { SUBJECT_FLOOR, VOCABULARY_FLOOR } from '../core/retrieval/tuning.ts'
import { buildIndex } from '../indexer/build.ts'
import { fsPartLoader } from '../indexer/fs-parts.ts'
import { prefillOnnxCache } from './dense-candidates.ts'
import type { BenchOptions } from './run.ts'

const SHARED = process.env.DOCPILOT_SHARED ?? resolve(import.meta.dirname, '../../shared')
const SITES = join(import.meta.dirname, 'fixtures/sites')

interface GateCorpus {
  name: string
  /** dev: the shared corpora the retrieval targets are set on; site: a further docs site with its own questions (bench/fixtures/sites). */
  kind: 'dev' | 'site'
  root: string
  include?: readonly string[]
  config: Record<string, unknown>
  sets: readonly { name: string; file: string }[]
  /** Where the docs come from, said when they are not on this machine. */
  source: string
}

const devSets = (corpus: string) => ['dev', 'dev-2'].map((s) => ({ name: `${corpus}-${s}`, file: join(SHARED, `eval/${corpus}-${s}.jsonl`) }))

const CORPORA: readonly GateCorpus[] = [
  { name: 'hono', kind: 'dev', root: join(SHARED, 'corpora/hono'), config: { anchors: { slugger: 'vitepress' } }, sets: devSets('hono'), source: '../shared/corpora' },
  {
    name: 'astro',
    kind: 'dev',
    root: join(SHARED, 'corpora/astro'),
    include: ['src/content/docs/en/**/*.md', 'src/content/docs/en/**/*.mdx'],
    config: { anchors: { slugger: 'starlight' }, urls: { stripPrefix: 'src/content/docs/en/', trailingSlash: true } },
    sets: devSets('astro'),
    source: '../shared/corpora',
  },
  // Plain-Markdown API reference (a dependency of wrangler's; the lockfile pins its version).
  {
    name: 'undici',
    kind: 'site',
    root: resolve(import.meta.dirname, '../node_modules/undici/docs/docs'),
    config: {},
    sets: [{ name: 'undici', file: join(SITES, 'undici.jsonl') }],
    source: 'npm ci (node_modules/undici, undici 7.24.8)',
  },
  // Node's own API reference, as Debian's nodejs package installs it beside the HTML.
  {
    name: 'node',
    kind: 'site',
    root: '/usr/share/doc/nodejs/api',
    include: ['*.md'],
    config: {},
    sets: [{ name: 'node', file: join(SITES, 'node.jsonl') }],
    source: "Debian's nodejs package (/usr/share/doc/nodejs/api, Node 20.20)",
  },
]

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

/**
 * Each question's vector, embedded once per embedder: the fusion grid asks every question dozens of times, and a
 * transformer takes ~0.1 s a question. Every corpus's index has the same embedder, so one of them embeds for all:
 * an ONNX session per index ran WebAssembly out of memory at the fourth.
 */
const questionVectors = new Map<string, { embedder: DocIndex; vectors: Map<string, Float32Array> }>()

async function questionVector(index: DocIndex, question: string): Promise<Float32Array | undefined> {
  if (!index.dense) return undefined
  const id = index.manifest.embedder.id
  let entry = questionVectors.get(id)
  if (!entry) questionVectors.set(id, (entry = { embedder: index, vectors: new Map() }))
  if (!entry.vectors.has(question)) {
    const v = await entry.embedder.dense!.queryVector(question)
    if (!('vector' in v)) return undefined
    entry.vectors.set(question, v.vector)
  }
  return entry.vectors.get(question)
}

async function ask(index: DocIndex, corpus: GateCorpus): Promise<Asked[]> {
  const asked: Asked[] = []
  for (const set of corpus.sets) {
    for (const question of parseQuestions(readFileSync(set.file, 'utf8'), set.file)) {
      const queryVector = await questionVector(index, question.q)
      const result = await index.search(question.q, queryVector ? { queryVector } : {})
      asked.push({
        question,
        set: set.name,
        output: toContractLine(question.id, result),
        sample: { id: question.id, answerable: question.gold.length > 0, signals: result.gate.signals },
      })
    }
  }
  return asked
}

const show = (r: Refusals) => `answerable refused ${r.answerableRefused}/${r.answerable}, off-topic refused ${r.offTopicRefused}/${r.offTopic}`
const none: Refusals = { answerable: 0, answerableRefused: 0, offTopic: 0, offTopicRefused: 0 }
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
  // The two gate choices not tuned here, measured by running again with the other value.
  const meaningFrom = process.env.DOCPILOT_BENCH_MEANING as GateConfig['meaningFrom'] | undefined
  const vocabularyFloor = Number(process.env.DOCPILOT_BENCH_VOCABULARY_FLOOR ?? VOCABULARY_FLOOR)
  if (meaningFrom || process.env.DOCPILOT_BENCH_VOCABULARY_FLOOR) log(`gate measured with meaningFrom ${meaningFrom ?? '(as shipped)'}, vocabulary floor ${vocabularyFloor}`)

  const corpora = (opts.smoke ? CORPORA.slice(0, 1) : CORPORA).filter((c) => {
    if (existsSync(c.root)) return true
    log(`${c.name}: skipped, ${c.root} is not on this machine (it comes from ${c.source})`)
    return false
  })
  const byCorpus = new Map<GateCorpus, { index: DocIndex; asked: Asked[] }>()
  for (const c of corpora) {
    const out = join(work, `${c.name}-index`)
    const cacheDir = join(work, 'cache')
    // A transformer embeds thousands of chunks slowly in WebAssembly: native onnxruntime fills the embedding cache first.
    // (A previous run's index means its cache is there already.)
    if (typeof embed === 'object' && existsSync(join((embed as { model: string }).model, 'model.onnx')) && !existsSync(join(out, 'manifest.json'))) {
      const corpus = { name: c.name, root: () => c.root, include: c.include }
      await prefillOnnxCache({ name: c.name, what: 'gate bench', embed: embed as { model: string } }, corpus, out, cacheDir, work, log)
    }
    await buildIndex({
      root: c.root,
      mode: 'source',
      out,
      ...(c.include ? { include: [...c.include] } : {}),
      config: validateConfig({ ...c.config, embed }, '(bench gate)'),
      docpilotVersion: 'bench',
      embed: { env: {}, configDir: process.cwd(), cacheDir },
    })
    // Not warmed: warming loads the index's own embedder, and one index embeds for all (questionVector).
    const index = await openIndex(fsPartLoader(out), { warm: false })
    if (meaningFrom) index.manifest.retrieval.gate.meaningFrom = meaningFrom
    byCorpus.set(c, { index, asked: await ask(index, c) })
    log(`${c.name}: ${byCorpus.get(c)!.asked.length} questions asked (embedder ${index.manifest.embedder.id})`)
  }
  const samples = (...cs: GateCorpus[]) => cs.flatMap((c) => byCorpus.get(c)!.asked.map((a) => a.sample))
  const dev = corpora.filter((c) => c.kind === 'dev')
  const tune = (cs: GateCorpus[], subjectCheck = true) =>
    tuneGate(samples(...cs), { vocabularyFloor, ...(subjectCheck ? { subjectFloor: SUBJECT_FLOOR } : {}), meaningFrom: shipped.meaningFrom })
  const perCorpus = (g: Parameters<typeof refusals>[1], mode: 'hybrid' | 'lexical' = 'hybrid') =>
    Object.fromEntries(corpora.map((c) => [c.name, refusals(samples(c), g, mode)]))
  const pooled = (r: Record<string, Refusals>, cs: readonly GateCorpus[]) => cs.reduce((sum, c) => add(sum, r[c.name]!), none)
  const perCorpusLine = (r: Record<string, Refusals>) =>
    `${corpora.map((c) => `  ${c.name}: ${show(r[c.name]!)}`).join('\n')}\n  dev corpora pooled: ${show(pooled(r, dev))}\n  all pooled: ${show(pooled(r, corpora))}`

  // The gate: the shipped settings, then chosen on some corpora and counted on others.
  const shipped = gateConfig(byCorpus.get(corpora[0]!)!.index.manifest)
  const gateRows: Record<string, unknown>[] = []
  const shippedRefusals = perCorpus(shipped)
  log(`\ngate as shipped ${JSON.stringify(shipped)}:\n${perCorpusLine(shippedRefusals)}`)
  gateRows.push({ tuned: 'shipped', gate: shipped, corpora: shippedRefusals, lexical: perCorpus(shipped, 'lexical') })
  for (const [train, check] of dev.length === 2 ? [[dev[0]!, dev[1]!], [dev[1]!, dev[0]!]] : []) {
    const tuned = tune([train!])
    const checked = refusals(samples(check!), tuned.gate)
    const lexicalChecked = refusals(samples(check!), tuned.gate, 'lexical')
    log(
      `tuned on ${train!.name}: weights ${JSON.stringify(tuned.gate.weights)}, threshold ${tuned.gate.threshold}, lexical ${tuned.gate.lexicalThreshold}\n` +
        `  on ${train!.name}: ${show(tuned.train)}\n  on ${check!.name}: ${show(checked)}\n  lexical-only on ${check!.name}: ${show(lexicalChecked)}`,
    )
    gateRows.push({ tuned: train!.name, checked: check!.name, gate: tuned.gate, train: tuned.train, check: checked, lexicalCheck: lexicalChecked })
  }
  if (corpora.length > 2) {
    // Each corpus as the site nobody tuned on: what the others' choice refuses there.
    let heldOut = none
    let lexicalHeldOut = none
    for (const left of corpora) {
      const tuned = tune(corpora.filter((c) => c !== left))
      const checked = refusals(samples(left), tuned.gate)
      const lexicalChecked = refusals(samples(left), tuned.gate, 'lexical')
      heldOut = add(heldOut, checked)
      lexicalHeldOut = add(lexicalHeldOut, lexicalChecked)
      log(`tuned without ${left.name}: weights ${JSON.stringify(tuned.gate.weights)}, threshold ${tuned.gate.threshold}, lexical ${tuned.gate.lexicalThreshold}\n  on ${left.name}: ${show(checked)}; lexical-only ${show(lexicalChecked)}`)
      gateRows.push({ tuned: `all but ${left.name}`, checked: left.name, gate: tuned.gate, train: tuned.train, check: checked, lexicalCheck: lexicalChecked })
    }
    log(`each corpus left out, summed: ${show(heldOut)}; lexical-only ${show(lexicalHeldOut)}`)
    gateRows.push({ tuned: 'each left out, summed', check: heldOut, lexicalCheck: lexicalHeldOut })
  }
  if (corpora.length > 1) {
    const all = tune([...corpora])
    log(`tuned on all (what ships): ${JSON.stringify(all.gate)}\n${perCorpusLine(perCorpus(all.gate))}\n  lexical-only:\n${perCorpusLine(perCorpus(all.gate, 'lexical'))}`)
    gateRows.push({ tuned: 'all', gate: all.gate, corpora: perCorpus(all.gate), lexical: perCorpus(all.gate, 'lexical') })
    // What the subject check buys: the same tuning without it.
    const unchecked = tune([...corpora], false)
    log(`tuned on all without the subject check: ${JSON.stringify(unchecked.gate)}\n  ${show(unchecked.train)}; lexical-only ${show(unchecked.lexicalTrain)}`)
    gateRows.push({ tuned: 'all without the subject check', gate: unchecked.gate, train: unchecked.train, lexicalTrain: unchecked.lexicalTrain })
  }

  // Fusion: every blend on every file, then chosen on one corpus and checked on the others.
  const fusionRows: Array<{ fusion: FusionConfig; files: Record<string, Figures> }> = []
  log('\nfusion (linear: lexical / dense / coverage weights; R@1 / R@8 / MRR@8 / paraphrase R@8 per file):')
  const round2 = (x: number) => Math.round(x * 100) / 100
  for (const lexicalWeight of LEXICAL_WEIGHTS) {
    for (const coverageWeight of COVERAGE_WEIGHTS) {
      const denseWeight = round2(1 - lexicalWeight - coverageWeight)
      if (denseWeight < 0) continue
      const fusion: FusionConfig = { method: 'linear', lexicalWeight, denseWeight, coverageWeight }
      const files: Record<string, Figures> = {}
      for (const c of corpora) {
        const { index } = byCorpus.get(c)!
        const before = index.manifest.retrieval.fusion
        index.manifest.retrieval.fusion = fusion
        const asked = await ask(index, c)
        index.manifest.retrieval.fusion = before
        for (const set of c.sets) files[set.name] = retrieval(asked.filter((a) => a.set === set.name))
      }
      log(`  ${lexicalWeight} / ${denseWeight} / ${coverageWeight}: ${Object.entries(files).map(([file, f]) => `${file} ${f.r1.toFixed(2)}/${f.r8.toFixed(2)}/${f.mrr.toFixed(2)}/${f.paraR8.toFixed(2)}`).join('  ')}`)
      fusionRows.push({ fusion, files })
    }
  }
  const filesOf = (row: (typeof fusionRows)[number], cs: readonly GateCorpus[]) => cs.flatMap((c) => c.sets.map((set) => row.files[set.name]!))
  const blend = (f: FusionConfig) => (f.method === 'linear' ? `${f.lexicalWeight} / ${f.denseWeight} / ${f.coverageWeight ?? 0}` : JSON.stringify(f))
  const shown = (row: (typeof fusionRows)[number], cs: readonly GateCorpus[]) =>
    cs.flatMap((c) => c.sets.map((set) => { const f = row.files[set.name]!; return `${set.name} ${f.r1.toFixed(2)}/${f.r8.toFixed(2)}/${f.paraR8.toFixed(2)}` })).join('  ')
  const fusionChoices: Record<string, unknown>[] = []
  const sites = corpora.filter((c) => c.kind === 'site')
  const choices: Array<[GateCorpus[], GateCorpus[]]> = [
    ...(dev.length === 2 ? ([[[dev[0]!], [dev[1]!]], [[dev[1]!], [dev[0]!]]] as Array<[GateCorpus[], GateCorpus[]]>) : []),
    ...(sites.length ? ([[dev, sites]] as Array<[GateCorpus[], GateCorpus[]]>) : []),
  ]
  for (const [train, check] of choices) {
    const best = [...fusionRows].sort((a, b) => blendScore(filesOf(b, train)) - blendScore(filesOf(a, train)))[0]!
    const names = (cs: GateCorpus[]) => cs.map((c) => c.name).join(' + ')
    log(`fusion tuned on ${names(train)}: ${blend(best.fusion)}\n  on ${names(train)}: ${shown(best, train)}\n  on ${names(check)}: ${shown(best, check)}`)
    fusionChoices.push({ tuned: names(train), checked: names(check), fusion: best.fusion })
  }
  return { embed, embedder: byCorpus.get(corpora[0]!)!.index.manifest.embedder.id, gate: gateRows, fusion: fusionRows, fusionChoices }
}
