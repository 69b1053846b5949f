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
 *   DOCPILOT_BENCH_MEANING=lexical DOCPILOT_BENCH_VOCABULARY_FLOOR=0.6 DOCPILOT_BENCH_ANSWERABLE_CAP=0.025 \
 *     npm run bench -- --only gate                    the gate read and tuned another way than what ships
 *                                                     (the passage meaning reads, the floor, the tuning's
 *                                                     allowance): the rows docs/gate.md compares
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
import { SUBJECT_FLOOR } from '../core/retrieval/tuning.ts'
import { buildIndex } from '../indexer/build.ts'
import { fsPartLoader } from '../indexer/fs-parts.ts'
import { DEV_CORPORA, devSetFile } from '../fixtures/dev-corpora.ts'
import { prefillOnnxCache } from './dense-candidates.ts'
import type { BenchOptions } from './run.ts'

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
  /** The package version its questions were written on, for docs that come with a package. */
  pinned?: { packageJson: string; version: string }
}

/** A corpus's index and its questions as asked. */
interface CorpusRun {
  index: DocIndex
  asked: Asked[]
}

const CORPORA: readonly GateCorpus[] = [
  ...DEV_CORPORA.map((c): GateCorpus => ({ ...c, kind: 'dev', sets: c.sets.map((name) => ({ name, file: devSetFile(name) })), source: '../shared/corpora' })),
  // Plain-Markdown API reference (a dependency of wrangler's; the lockfile pins its version).
  {
    name: 'undici',
    kind: 'site',
    root: resolve(import.meta.dirname, '../node_modules/undici/docs/docs'),
    config: {},
    sets: [{ name: 'undici', file: join(SITES, 'undici.jsonl') }],
    source: 'npm ci (node_modules/undici)',
    pinned: { packageJson: resolve(import.meta.dirname, '../node_modules/undici/package.json'), version: '7.24.8' },
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

/** The gate read and tuned another way than what ships, to measure the alternatives (docs/gate.md). */
interface GateOverrides {
  meaningFrom?: GateConfig['meaningFrom']
  vocabularyFloor?: number
  answerableCap?: number
}

function gateOverrides(env = process.env): GateOverrides {
  const share = (name: string, value: string | undefined, min: number) => {
    if (value === undefined) return undefined
    const n = Number(value)
    if (value.trim() === '' || !(n >= min && n <= 1)) throw new Error(`${name} must be a number from ${min} to 1, not ${JSON.stringify(value)}`)
    return n
  }
  const meaning = env.DOCPILOT_BENCH_MEANING
  if (meaning !== undefined && meaning !== 'lexical' && meaning !== 'results') throw new Error(`DOCPILOT_BENCH_MEANING must be lexical or results, not ${JSON.stringify(meaning)}`)
  const floor = share('DOCPILOT_BENCH_VOCABULARY_FLOOR', env.DOCPILOT_BENCH_VOCABULARY_FLOOR, 0)
  const cap = share('DOCPILOT_BENCH_ANSWERABLE_CAP', env.DOCPILOT_BENCH_ANSWERABLE_CAP, 0.001)
  return { ...(meaning ? { meaningFrom: meaning } : {}), ...(floor !== undefined ? { vocabularyFloor: floor } : {}), ...(cap !== undefined ? { answerableCap: cap } : {}) }
}

/**
 * Asks questions, each embedded once per embedder: the fusion grid asks every question dozens of times, and a
 * transformer takes ~0.1 s a question. Every corpus's index has the same embedder, so the first index embeds for
 * all (an ONNX session per index ran WebAssembly out of memory at the fourth).
 */
function questionAsker() {
  const embedders = new Map<string, { index: DocIndex; vectors: Map<string, Float32Array> }>()
  async function questionVector(index: DocIndex, question: string): Promise<Float32Array | undefined> {
    if (!index.dense) return undefined
    const id = index.manifest.embedder.id
    let entry = embedders.get(id)
    if (!entry) embedders.set(id, (entry = { index, vectors: new Map() }))
    if (!entry.vectors.has(question)) {
      const v = await entry.index.dense!.queryVector(question)
      if (!('vector' in v)) throw new Error(`the embedder ${id} failed on "${question}": ${v.reason}`)
      entry.vectors.set(question, v.vector)
    }
    return entry.vectors.get(question)
  }
  return async function ask(index: DocIndex, corpus: GateCorpus): Promise<Asked[]> {
    const asked: Asked[] = []
    for (const set of corpus.sets) {
      for (const question of parseQuestions(readFileSync(set.file, 'utf8'), set.file)) {
        const queryVector = await questionVector(index, question.q)
        const result = await index.search(question.q, queryVector ? { queryVector } : {})
        // A search that fell back to lexical-only would count as a hybrid sample with no meaning signal.
        if (result.degraded) throw new Error(`${corpus.name}: "${question.q}" was searched lexical-only: ${result.degradedReason ?? 'the embedder failed'}`)
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
}

type Ask = ReturnType<typeof questionAsker>

const show = (r: Refusals) => `answerable refused ${r.answerableRefused}/${r.answerable}, off-topic refused ${r.offTopicRefused}/${r.offTopic}`
const noRefusals: Refusals = { answerable: 0, answerableRefused: 0, offTopic: 0, offTopicRefused: 0 }
const add = (a: Refusals, b: Refusals): Refusals => ({
  answerable: a.answerable + b.answerable,
  answerableRefused: a.answerableRefused + b.answerableRefused,
  offTopic: a.offTopic + b.offTopic,
  offTopicRefused: a.offTopicRefused + b.offTopicRefused,
})
const names = (cs: readonly GateCorpus[]) => cs.map((c) => c.name).join(' + ')

function retrieval(asked: readonly Asked[]) {
  const report = scoreRun(asked.map((a) => a.question), asked.map((a) => a.output))
  const all = report.byKind.all!
  return { r1: all.recall[1], r8: all.recall[8], mrr: all.mrr, paraR8: report.byKind.paraphrase?.recall[8] ?? 0 }
}

/**
 * Choose on some corpora, check on others: each dev corpus against the other(s), as docpilot's targets ask; then,
 * with further sites, each corpus left out in turn (tuned on the rest), the estimate for a site nobody tuned on.
 */
function splits(corpora: readonly GateCorpus[]): { train: GateCorpus[]; check: GateCorpus[]; leftOut: boolean }[] {
  const dev = corpora.filter((c) => c.kind === 'dev')
  const devPairs = dev.length > 1 ? dev.map((d) => ({ train: [d], check: dev.filter((c) => c !== d), leftOut: false })) : []
  const leftOut = corpora.length > 2 ? corpora.map((c) => ({ train: corpora.filter((k) => k !== c), check: [c], leftOut: true })) : []
  return [...devPairs, ...leftOut]
}

function presentCorpora(smoke: boolean, log: (line: string) => void): GateCorpus[] {
  const present = CORPORA.filter((c) => {
    if (existsSync(c.root)) return true
    log(`${c.name}: skipped, ${c.root} is not on this machine (it comes from ${c.source})`)
    return false
  })
  if (!present.length) throw new Error(`none of the corpora is on this machine (${CORPORA.map((c) => c.root).join(', ')})`)
  for (const { name, pinned } of present) {
    const version = pinned && (JSON.parse(readFileSync(pinned.packageJson, 'utf8')) as { version: string }).version
    if (pinned && version !== pinned.version) log(`${name}: ${pinned.packageJson} says ${version}, its questions were written on ${pinned.version}; check their gold sections`)
  }
  return smoke ? present.slice(0, 1) : present
}

async function buildCorpus(c: GateCorpus, embed: unknown, work: string, log: (line: string) => void): Promise<DocIndex> {
  const out = join(work, `${c.name}-index`)
  const cacheDir = join(work, 'cache')
  // A transformer embeds thousands of chunks slowly in WebAssembly: native onnxruntime fills the embedding cache first.
  // (A previous run's index means its cache is there already.)
  if (typeof embed === 'object' && existsSync(join((embed as { model: string }).model, 'model.onnx')) && !existsSync(join(out, 'manifest.json'))) {
    await prefillOnnxCache({ name: c.name, what: 'gate bench', embed: embed as { model: string } }, c, out, cacheDir, work, log)
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
  // Not warmed: warming loads the index's own embedder, and one index embeds for all (questionAsker).
  return openIndex(fsPartLoader(out), { warm: false })
}

export async function run(opts: BenchOptions & { workDir?: string; smoke?: boolean }): Promise<unknown> {
  const log = opts.log
  const embed = embedConfig()
  const overrides = gateOverrides()
  // One folder per embedder: an index left by another embedder's run would be rebuilt without the native vectors.
  const embedName = typeof embed === 'string' ? embed : basename((embed as { model: string }).model)
  const work = join(opts.workDir ?? join(import.meta.dirname, 'results/work'), 'gate', embedName.replace(/[^\w.-]+/g, '-'))
  mkdirSync(work, { recursive: true })
  log(`embedder: ${JSON.stringify(embed)}${Object.keys(overrides).length ? `; gate overrides ${JSON.stringify(overrides)}` : ''}`)

  const corpora = presentCorpora(opts.smoke ?? false, log)
  const ask = questionAsker()
  const asked = new Map<GateCorpus, CorpusRun>()
  for (const c of corpora) {
    const index = await buildCorpus(c, embed, work, log)
    const gate = index.manifest.retrieval.gate
    if (overrides.meaningFrom) gate.meaningFrom = overrides.meaningFrom
    if (overrides.vocabularyFloor !== undefined) gate.vocabularyFloor = overrides.vocabularyFloor
    asked.set(c, { index, asked: await ask(index, c) })
    log(`${c.name}: ${asked.get(c)!.asked.length} questions asked (embedder ${index.manifest.embedder.id})`)
  }
  const gate = gateReport(corpora, asked, overrides, log)
  const fusion = await fusionReport(corpora, asked, ask, log)
  return { embed, overrides, embedder: asked.get(corpora[0]!)!.index.manifest.embedder.id, gate, ...fusion }
}

function gateReport(corpora: readonly GateCorpus[], asked: Map<GateCorpus, CorpusRun>, overrides: GateOverrides, log: (line: string) => void) {
  const samples = (cs: readonly GateCorpus[]) => cs.flatMap((c) => asked.get(c)!.asked.map((a) => a.sample))
  const dev = corpora.filter((c) => c.kind === 'dev')
  const built = gateConfig(asked.get(corpora[0]!)!.index.manifest)
  const tune = (cs: readonly GateCorpus[], subjectCheck = true) =>
    tuneGate(samples(cs), {
      vocabularyFloor: built.vocabularyFloor,
      ...(subjectCheck ? { subjectFloor: SUBJECT_FLOOR } : {}),
      meaningFrom: built.meaningFrom,
      ...(overrides.answerableCap !== undefined ? { maxAnswerableRefused: overrides.answerableCap } : {}),
    })
  const perCorpus = (g: GateConfig, mode: 'hybrid' | 'lexical' = 'hybrid') => Object.fromEntries(corpora.map((c) => [c.name, refusals(samples([c]), g, mode)]))
  const pooled = (r: Record<string, Refusals>, cs: readonly GateCorpus[]) => cs.reduce((sum, c) => add(sum, r[c.name]!), noRefusals)
  const perCorpusLines = (r: Record<string, Refusals>) =>
    `${corpora.map((c) => `  ${c.name}: ${show(r[c.name]!)}`).join('\n')}\n  dev corpora pooled: ${show(pooled(r, dev))}\n  all pooled: ${show(pooled(r, corpora))}`

  const rows: Record<string, unknown>[] = []
  const label = Object.keys(overrides).length ? 'as built, read with the overrides' : 'as shipped'
  log(`\ngate ${label} ${JSON.stringify(built)}:\n${perCorpusLines(perCorpus(built))}`)
  rows.push({ tuned: label, gate: built, corpora: perCorpus(built), lexical: perCorpus(built, 'lexical') })

  let leftOut = noRefusals
  let lexicalLeftOut = noRefusals
  for (const split of splits(corpora)) {
    const tuned = tune(split.train)
    const check = refusals(samples(split.check), tuned.gate)
    const lexicalCheck = refusals(samples(split.check), tuned.gate, 'lexical')
    if (split.leftOut) {
      leftOut = add(leftOut, check)
      lexicalLeftOut = add(lexicalLeftOut, lexicalCheck)
    }
    log(
      `tuned on ${names(split.train)}: weights ${JSON.stringify(tuned.gate.weights)}, threshold ${tuned.gate.threshold}, lexical ${tuned.gate.lexicalThreshold}\n` +
        `  on ${names(split.train)}: ${show(tuned.train)}\n  on ${names(split.check)}: ${show(check)}; lexical-only ${show(lexicalCheck)}`,
    )
    rows.push({ tuned: names(split.train), checked: names(split.check), gate: tuned.gate, train: tuned.train, check, lexicalCheck })
  }
  if (corpora.length > 2) {
    log(`each corpus left out, summed: ${show(leftOut)}; lexical-only ${show(lexicalLeftOut)}`)
    rows.push({ tuned: 'each left out, summed', check: leftOut, lexicalCheck: lexicalLeftOut })
  }
  if (corpora.length > 1) {
    const all = tune(corpora)
    log(`tuned on all (what ships): ${JSON.stringify(all.gate)}\n${perCorpusLines(perCorpus(all.gate))}\n  lexical-only:\n${perCorpusLines(perCorpus(all.gate, 'lexical'))}`)
    rows.push({ tuned: 'all', gate: all.gate, corpora: perCorpus(all.gate), lexical: perCorpus(all.gate, 'lexical') })
    // What the subject check buys: the same tuning without it.
    const unchecked = tune(corpora, false)
    log(`tuned on all without the subject check: ${JSON.stringify(unchecked.gate)}\n  ${show(unchecked.train)}; lexical-only ${show(unchecked.lexicalTrain)}`)
    rows.push({ tuned: 'all without the subject check', gate: unchecked.gate, train: unchecked.train, lexicalTrain: unchecked.lexicalTrain })
  }
  return rows
}

/** Every blend on every file, then the blend chosen on some corpora, shown on the others. */
async function fusionReport(corpora: readonly GateCorpus[], asked: Map<GateCorpus, CorpusRun>, ask: Ask, log: (line: string) => void) {
  type Row = { fusion: FusionConfig; files: Record<string, Figures> }
  const fusion: Row[] = []
  log('\nfusion (linear: lexical / dense / coverage weights; R@1 / R@8 / MRR@8 / paraphrase R@8 per file):')
  const round2 = (x: number) => Math.round(x * 100) / 100
  for (const lexicalWeight of LEXICAL_WEIGHTS) {
    for (const coverageWeight of COVERAGE_WEIGHTS) {
      const denseWeight = round2(1 - lexicalWeight - coverageWeight)
      if (denseWeight < 0) continue
      const blend: FusionConfig = { method: 'linear', lexicalWeight, denseWeight, coverageWeight }
      const files: Record<string, Figures> = {}
      for (const c of corpora) {
        const { index } = asked.get(c)!
        const before = index.manifest.retrieval.fusion
        index.manifest.retrieval.fusion = blend
        const answers = await ask(index, c)
        index.manifest.retrieval.fusion = before
        for (const set of c.sets) files[set.name] = retrieval(answers.filter((a) => a.set === set.name))
      }
      log(`  ${lexicalWeight} / ${denseWeight} / ${coverageWeight}: ${Object.entries(files).map(([file, f]) => `${file} ${f.r1.toFixed(2)}/${f.r8.toFixed(2)}/${f.mrr.toFixed(2)}/${f.paraR8.toFixed(2)}`).join('  ')}`)
      fusion.push({ fusion: blend, files })
    }
  }
  const filesOf = (row: Row, cs: readonly GateCorpus[]) => cs.flatMap((c) => c.sets.map((set) => row.files[set.name]!))
  const blendName = (f: FusionConfig) => (f.method === 'linear' ? `${f.lexicalWeight} / ${f.denseWeight} / ${f.coverageWeight ?? 0}` : JSON.stringify(f))
  const shown = (row: Row, cs: readonly GateCorpus[]) =>
    cs.flatMap((c) => c.sets.map((set) => { const f = row.files[set.name]!; return `${set.name} ${f.r1.toFixed(2)}/${f.r8.toFixed(2)}/${f.paraR8.toFixed(2)}` })).join('  ')
  const dev = corpora.filter((c) => c.kind === 'dev')
  const sites = corpora.filter((c) => c.kind === 'site')
  // Fusion is chosen on the dev files (docpilot's targets are set there) and shown on the sites.
  const choices = [...splits(corpora).filter((s) => !s.leftOut), ...(dev.length && sites.length ? [{ train: dev, check: sites }] : [])]
  const fusionChoices: Record<string, unknown>[] = []
  for (const { train, check } of choices) {
    const best = [...fusion].sort((a, b) => blendScore(filesOf(b, train)) - blendScore(filesOf(a, train)))[0]!
    log(`fusion tuned on ${names(train)}: ${blendName(best.fusion)}\n  on ${names(train)}: ${shown(best, train)}\n  on ${names(check)}: ${shown(best, check)}`)
    fusionChoices.push({ tuned: names(train), checked: names(check), fusion: best.fusion })
  }
  return { fusion, fusionChoices }
}
