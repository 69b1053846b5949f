/**
 * The scoring rule of shared/eval/README.md: when a retrieved passage
 * counts as an answer to a question, and the figures reported over a set.
 */

export type QuestionKind = 'paraphrase' | 'keyword' | 'off-topic'

export interface GoldSection {
  path: string
  trail: string[]
}

export interface EvalQuestion {
  id: string
  q: string
  kind: QuestionKind
  gold: GoldSection[]
  /** Earlier questions of the same conversation, oldest first (optional): `q` is a follow-up to them. */
  context?: string[]
}

/** One line of `docpilot query` output (the retrieval contract). */
export interface QueryOutput {
  id: string
  mode: 'hybrid' | 'lexical'
  gate: { pass: boolean; score: number }
  results: Array<{ path: string; trail: string[] }>
}

/** Cut-offs reported; the last one also bounds MRR. */
export const RECALL_AT = [1, 3, 8] as const
const MRR_AT = 8

const norm = (s: string): string => s.toLowerCase().replace(/[^a-z0-9]/g, '')

function isPrefix(prefix: string[], of: string[]): boolean {
  return prefix.length <= of.length && prefix.every((p, i) => p === of[i])
}

/**
 * A result answers a gold section when the paths are equal and the trails
 * agree: the result is a parent section of the answer (prefix, at least two
 * elements), a piece inside it (the gold trail is its prefix), or both are
 * the page title alone.
 */
export function matchesGold(result: { path: string; trail: string[] }, gold: GoldSection): boolean {
  if (result.path !== gold.path) return false
  const r = result.trail.map(norm)
  const g = gold.trail.map(norm)
  if (r.length >= 2 && isPrefix(r, g)) return true
  if (isPrefix(g, r)) return true
  return r.length === 1 && g.length === 1 && r[0] === g[0]
}

/** Zero-based rank of the first result that answers the question, or -1. */
export function firstHit(question: EvalQuestion, output: QueryOutput, within = MRR_AT): number {
  const results = output.results.slice(0, within)
  return results.findIndex((r) => question.gold.some((g) => matchesGold(r, g)))
}

export interface KindFigures {
  count: number
  recall: Record<(typeof RECALL_AT)[number], number>
  mrr: number
}

export interface EvalReport {
  /** Answerable questions by kind, plus 'all' over every answerable one. */
  byKind: Record<string, KindFigures>
  gate: {
    offTopic: number
    /** Share of off-topic questions the gate refused. */
    offTopicRefused: number
    answerable: number
    /** Share of answerable questions the gate refused. */
    answerableRefused: number
  }
  /** Questions with no output line (counted as misses). */
  missing: string[]
  /** Answerable questions not found in the top results (ids). */
  misses: string[]
}

export function scoreRun(questions: readonly EvalQuestion[], outputs: readonly QueryOutput[]): EvalReport {
  const byId = new Map(outputs.map((o) => [o.id, o]))
  const missing: string[] = []
  const misses: string[] = []
  const ranks = new Map<string, number[]>()
  let offTopic = 0
  let offTopicRefused = 0
  let answerable = 0
  let answerableRefused = 0

  for (const q of questions) {
    const out = byId.get(q.id)
    if (!out) missing.push(q.id)
    const refused = out ? !out.gate.pass : true
    if (q.kind === 'off-topic' || q.gold.length === 0) {
      offTopic++
      if (refused) offTopicRefused++
      continue
    }
    answerable++
    if (refused) answerableRefused++
    const rank = out ? firstHit(q, out) : -1
    if (rank < 0) misses.push(q.id)
    for (const kind of [q.kind, 'all']) {
      const list = ranks.get(kind) ?? []
      list.push(rank)
      ranks.set(kind, list)
    }
  }

  const byKind: Record<string, KindFigures> = {}
  for (const [kind, list] of ranks) {
    const share = (k: number) => list.filter((r) => r >= 0 && r < k).length / list.length
    byKind[kind] = {
      count: list.length,
      recall: { 1: share(1), 3: share(3), 8: share(8) },
      mrr: list.reduce((s, r) => s + (r >= 0 && r < MRR_AT ? 1 / (r + 1) : 0), 0) / list.length,
    }
  }
  const ratio = (a: number, b: number) => (b ? a / b : 0)
  return {
    byKind,
    gate: {
      offTopic,
      offTopicRefused: ratio(offTopicRefused, offTopic),
      answerable,
      answerableRefused: ratio(answerableRefused, answerable),
    },
    missing,
    misses,
  }
}

const EVAL_LINE = '{"id","q","kind","gold"}'

/**
 * Parses a question set (JSONL), naming the line of any bad entry. `shape` is the line the reader's
 * command expects: `docpilot query` reads only {"id","q"}, and "kind"/"gold" there would send them astray.
 */
export function parseQuestions(text: string, file: string, shape = EVAL_LINE): EvalQuestion[] {
  const out: EvalQuestion[] = []
  text.split('\n').forEach((line, i) => {
    if (!line.trim()) return
    let parsed: unknown
    try {
      parsed = JSON.parse(line)
    } catch {
      throw new Error(`${file}:${i + 1}: not valid JSON. Each line must be one object ${shape}.`)
    }
    // Valid JSON that is no object (null, a list, a bare string) is no question either.
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new Error(`${file}:${i + 1}: not an object. Each line must be one object ${shape}.`)
    }
    const q = parsed as Partial<EvalQuestion>
    if (typeof q.id !== 'string' || typeof q.q !== 'string') {
      throw new Error(`${file}:${i + 1}: each line needs a string "id" and a string "q".`)
    }
    if (q.context !== undefined && !(Array.isArray(q.context) && q.context.every((c) => typeof c === 'string'))) {
      throw new Error(`${file}:${i + 1}: "context" must be a list of earlier questions, oldest first, e.g. "context": ["How do I deploy to Cloudflare?"].`)
    }
    out.push({ id: q.id, q: q.q, kind: q.kind ?? 'paraphrase', gold: Array.isArray(q.gold) ? q.gold : [], ...(q.context ? { context: q.context } : {}) })
  })
  return out
}
