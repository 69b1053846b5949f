/** `docpilot eval`: score retrieval against a question set (shared/eval format). */
import { readFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import type { Command } from 'commander'
import { toContractLine } from '../../core/eval/contract.ts'
import { matchesGold, RECALL_AT, scoreRun, type EvalQuestion, type EvalReport, type GoldSection, type QueryOutput } from '../../core/eval/score.ts'
import { DEFAULT_K } from '../../core/retrieval/search.ts'
import { indexDirFor, loadConfigFor, positiveInt, UsageError, type CliContext } from '../context.ts'
import { envEmbedTransport } from '../../indexer/embed.ts'
import { openIndexDir } from '../index-dir.ts'
import { readQuestions } from '../questions.ts'

interface EvalFlags {
  questions: string
  index?: string
  results?: string
  k: number
  lexicalOnly?: boolean
  json?: boolean
  misses?: boolean
  config?: string
}

export function defineEvalCommand(program: Command, ctx: CliContext): void {
  program
    .command('eval')
    .summary('measure retrieval: recall@1/3/8 and MRR@8 by kind, plus the gate')
    .description(
      'Runs every question of a set through the index (or reads `docpilot query` output with --results)\n' +
        'and scores it: a result counts when its path matches a gold entry and its heading trail is the gold\n' +
        "section, a part of it, or a parent section of at least two levels. Off-topic questions score the gate.",
    )
    .requiredOption('--questions <file>', 'question set, JSONL lines {"id","q","kind","gold":[{"path","trail"}]}')
    .option('--index <dir>', 'index folder (default: `out` from the config, .docpilot/index)')
    .option('--results <file>', 'score this `docpilot query --questions` output instead of searching')
    .option('--k <n>', 'passages per question', positiveInt('--k'), DEFAULT_K)
    .option('--lexical-only', 'search with BM25 alone')
    .option('--misses', 'list the answerable questions not found in the top 8 (the top --k, when that is fewer)')
    .option('--json', 'print the report as JSON')
    .option('--config <file>', 'config file (default: docpilot.config.* in the working directory)')
    .addHelpText(
      'after',
      `
Examples:
  $ docpilot eval --questions eval/dev.jsonl
  $ docpilot eval --index dist/docpilot --questions eval/dev.jsonl --misses
  $ docpilot query --questions q.jsonl > out.jsonl && docpilot eval --questions q.jsonl --results out.jsonl`,
    )
    .action(async (flags: EvalFlags) => {
      const questions = await readQuestions(ctx, flags.questions)
      if (!questions.length) throw new UsageError(`${flags.questions} holds no questions`)
      const file = flags.questions === '-' ? '(stdin)' : flags.questions
      checkGold(questions, file)
      const ungraded = questions.filter((q) => q.kind !== 'off-topic' && !q.gold.length)
      if (ungraded.length) {
        ctx.stderr(
          `warning: ${file}: ${ungraded.length} question(s) of kind paraphrase or keyword have no gold section (${ungraded.slice(0, 5).map((q) => JSON.stringify(q.id)).join(', ')}${ungraded.length > 5 ? ', …' : ''}), ` +
            'so they are scored as off-topic (the gate should refuse them); fill in their "gold" or mark them "kind":"off-topic"\n',
        )
      }
      let outputs: QueryOutput[]
      if (flags.results) {
        if (flags.index) throw new UsageError('give either --results (score saved output) or --index (search now), not both')
        outputs = await readResults(resolve(ctx.cwd, flags.results))
      } else {
        const loaded = await loadConfigFor(ctx, flags.config)
        const index = await openIndexDir(indexDirFor(ctx, loaded, flags.index), { transport: envEmbedTransport(ctx.env) })
        const sections = await index.chunks([...Array(index.size).keys()])
        for (const line of unknownGold(questions, sections, file)) ctx.stderr(`${line}\n`)
        outputs = []
        for (const q of questions) outputs.push(toContractLine(q.id, await index.search(q.q, { k: flags.k, lexicalOnly: flags.lexicalOnly, context: q.context })))
      }
      const report = scoreRun(questions, outputs)
      const mode = outputs[0]?.mode ?? 'lexical'
      const k = flags.results ? undefined : flags.k
      ctx.stdout(flags.json ? JSON.stringify({ mode, ...report }, null, 2) + '\n' : table(report, mode, flags.misses ? questions : undefined, k))
    })
}

/**
 * Every gold entry is a section the scoring can match: a path and a heading trail. Without this, an entry
 * missing its trail stopped the run with "Cannot read properties of undefined (reading 'map')", and one
 * missing its path was never matched, a miss nobody could explain.
 */
function checkGold(questions: readonly EvalQuestion[], file: string): void {
  for (const q of questions) {
    if (!KINDS.includes(q.kind)) {
      throw new Error(`${file}: question ${JSON.stringify(q.id)}: "kind" is ${JSON.stringify(q.kind)}; it must be one of ${KINDS.map((k) => JSON.stringify(k)).join(', ')} (left out: "paraphrase")`)
    }
    q.gold.forEach((g: Partial<GoldSection> | null, i) => {
      if (typeof g?.path === 'string' && Array.isArray(g.trail) && g.trail.every((t) => typeof t === 'string')) return
      throw new Error(
        `${file}: question ${JSON.stringify(q.id)}: gold[${i}] must be {"path","trail"}: the page's path relative to the indexed folder, ` +
          'and its heading trail from the page title down, e.g. {"path":"helpers/cookie.md","trail":["Cookie Helper","Usage","Signed cookies"]}',
      )
    })
  }
}

/**
 * A gold path no page of the index has can never be found: written from another folder than the one
 * indexed ("docs/guide/config.mdx" for an index of ./docs), every such question scored 0 with no word of why.
 */
function unknownGold(questions: readonly EvalQuestion[], sections: readonly { path: string; trail: string[] }[], file: string): string[] {
  const paths = new Set(sections.map((s) => s.path))
  const askedBy = new Map<string, string[]>()
  const lines: string[] = []
  for (const q of questions) {
    for (const g of q.gold) {
      if (!paths.has(g.path)) askedBy.set(g.path, [...(askedBy.get(g.path) ?? []), q.id])
      // A heading misspelt in the trail ("Signed cookie") is as unfindable as a wrong path.
      else if (!sections.some((s) => matchesGold(s, g))) lines.push(unknownTrail(file, q.id, g, sections))
    }
  }
  return [
    ...[...askedBy].map(([path, ids]) => {
      const near = [...paths].find((p) => path.endsWith(`/${p}`) || p.endsWith(`/${path}`))
      return (
        `warning: ${file}: no page of the index has the gold path ${JSON.stringify(path)} (${ids.map((id) => JSON.stringify(id)).join(', ')}), so it is never found; ` +
        `gold paths are relative to the folder that was indexed${near ? `: did you mean ${JSON.stringify(near)}?` : ''}`
      )
    }),
    ...lines,
  ]
}

function unknownTrail(file: string, id: string, gold: GoldSection, sections: readonly { path: string; trail: string[] }[]): string {
  // Of the page's trails, the one sharing the most headings with the gold trail is the likeliest meant.
  const sharedStart = (trail: string[]) => trail.filter((h, i) => h === gold.trail[i]).length
  const near = sections.filter((s) => s.path === gold.path).reduce<string[] | undefined>((best, s) => (!best || sharedStart(s.trail) > sharedStart(best) ? s.trail : best), undefined)
  return (
    `warning: ${file}: question ${JSON.stringify(id)}: no section of ${gold.path} has the heading trail ${JSON.stringify(gold.trail)}, so it is never found` +
    (near ? `; did you mean ${JSON.stringify(near)}?` : '')
  )
}

const KINDS: readonly string[] = ['paraphrase', 'keyword', 'off-topic'] satisfies EvalQuestion['kind'][]

async function readResults(file: string): Promise<QueryOutput[]> {
  const text = await readFile(file, 'utf8').catch((err: NodeJS.ErrnoException) => {
    throw new Error(`cannot read results file ${file} (${err.code ?? err.message})`)
  })
  return text
    .split('\n')
    .filter((l) => l.trim())
    .map((line, i) => {
      let parsed: unknown
      try {
        parsed = JSON.parse(line)
      } catch {
        throw new Error(`${file}:${i + 1}: not valid JSON; expected one \`docpilot query\` output line`)
      }
      if (!isQueryOutput(parsed)) {
        throw new Error(`${file}:${i + 1}: not a \`docpilot query --questions\` output line; each holds {"id","mode","gate":{"pass","score"},"results":[{"path","trail",...}]}`)
      }
      return parsed
    })
}

/** The fields scoring reads; a line missing one stopped eval with a TypeError naming no line. */
function isQueryOutput(v: unknown): v is QueryOutput {
  const o = v as Partial<QueryOutput> | null
  return (
    typeof o?.id === 'string' &&
    typeof o.gate?.pass === 'boolean' &&
    Array.isArray(o.results) &&
    o.results.every((r) => typeof r?.path === 'string' && Array.isArray(r.trail))
  )
}

const pct = (x: number) => x.toFixed(2)

function table(report: EvalReport, mode: string, questions?: { id: string; q: string }[], k?: number): string {
  const kinds = Object.keys(report.byKind).sort((a, b) => (a === 'all' ? 1 : b === 'all' ? -1 : a.localeCompare(b)))
  const lines = [`mode: ${mode}`, `${'kind'.padEnd(12)} ${'n'.padStart(3)}  ${RECALL_AT.map((k) => `R@${k}`.padStart(5)).join(' ')}  MRR@8`]
  for (const kind of kinds) {
    const f = report.byKind[kind]!
    lines.push(`${kind.padEnd(12)} ${String(f.count).padStart(3)}  ${RECALL_AT.map((k) => pct(f.recall[k]).padStart(5)).join(' ')}  ${pct(f.mrr).padStart(5)}`)
  }
  const g = report.gate
  lines.push(
    `gate: off-topic refused ${pct(g.offTopicRefused)} (${Math.round(g.offTopicRefused * g.offTopic)}/${g.offTopic}); ` +
      `answerable wrongly refused ${pct(g.answerableRefused)} (${Math.round(g.answerableRefused * g.answerable)}/${g.answerable})`,
  )
  // With --k 1, R@3 and R@8 repeated R@1 under headers that promise more.
  const cut = k === undefined ? [] : RECALL_AT.filter((n) => n > k)
  if (cut.length) lines.push(`note: --k ${k} keeps the top ${k} of each question, so ${[...cut.map((n) => `R@${n}`), 'MRR@8'].join(', ')} see only those`)
  if (report.missing.length) lines.push(`no output for: ${report.missing.join(', ')}`)
  if (questions && report.misses.length) {
    const byId = new Map(questions.map((q) => [q.id, q.q]))
    lines.push('misses:', ...report.misses.map((id) => `  ${id}  ${byId.get(id) ?? ''}`))
  }
  return lines.join('\n') + '\n'
}
