/**
 * Question sets for the comparison: the files given by `--questions` (any
 * file in the shared JSONL format), else each corpus's dev set. Each file is
 * matched to the corpus its gold paths live in, so an unseen set needs no flag.
 */
import { existsSync, readFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { parseQuestions, type EvalQuestion } from '../core/eval/score.ts'
import { CORPORA, DEFAULT_WORK_ROOT, type CorpusSpec } from './compare-corpora.ts'
import type { BenchOptions } from './harness.ts'

/** What the comparison benchmarks read from the harness's command line. */
export interface CompareOptions extends BenchOptions {
  /** `--questions FILE`, repeatable: question sets in the shared JSONL format. */
  questions?: string[]
  /** `--smoke`: the smallest run that proves the harness and every engine start (first corpus only, one round). */
  smoke?: boolean
  /** Where builds and bench pages go (default bench/results/work). */
  workDir?: string
  /** The corpora to measure (default: hono and astro); tests pass a small one. */
  corpora?: CorpusSpec[]
}

export const corporaOf = (opts: Pick<CompareOptions, 'corpora'>): CorpusSpec[] => opts.corpora ?? CORPORA
export const workRootOf = (opts: Pick<CompareOptions, 'workDir'>): string => opts.workDir ?? DEFAULT_WORK_ROOT

/** The question files a run uses: the ones given, else the dev sets (the first corpus's only in a smoke run). */
export function compareQuestions(opts: CompareOptions): string[] {
  if (opts.questions?.length) return opts.questions
  const corpora = corporaOf(opts)
  return (opts.smoke ? corpora.slice(0, 1) : corpora).map((c) => c.questions)
}

export interface QuestionSet {
  file: string
  name: string
  corpus: CorpusSpec
  questions: EvalQuestion[]
}

/** The corpus holding most of the set's gold files; for a gold-less set, the one its file name names. */
export function corpusFor(file: string, questions: EvalQuestion[], corpora: CorpusSpec[] = CORPORA): CorpusSpec {
  const golds = questions.flatMap((q) => q.gold.map((g) => g.path))
  if (golds.length) {
    const score = (c: CorpusSpec) => golds.filter((p) => existsSync(join(c.root, p))).length
    const best = [...corpora].sort((a, b) => score(b) - score(a))[0]
    if (best && score(best) > 0) return best
  }
  const named = corpora.find((c) => basename(file).toLowerCase().includes(c.name))
  if (named) return named
  throw new Error(
    `${file}: none of its gold paths exist in ${corpora.map((c) => c.root).join(' or ')}, ` +
      `and its name names no corpus (${corpora.map((c) => c.name).join(', ')}). ` +
      `Gold paths are relative to the corpus folder (e.g. docs/api/context.md).`,
  )
}

export function loadQuestionSets(files: string[], corpora: CorpusSpec[] = CORPORA): QuestionSet[] {
  return files.map((file) => {
    if (!existsSync(file)) throw new Error(`--questions ${file}: no such file.`)
    const questions = parseQuestions(readFileSync(file, 'utf8'), file)
    if (!questions.length) throw new Error(`--questions ${file}: the file holds no questions.`)
    return { file, name: basename(file), corpus: corpusFor(file, questions, corpora), questions }
  })
}
