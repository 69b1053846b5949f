/**
 * Question sets for the comparison: the files given by `--questions` (any
 * file in the shared JSONL format), else both dev sets. Each file is matched
 * to the corpus its gold paths live in, so an unseen set needs no flag.
 */
import { existsSync, readFileSync } from 'node:fs'
import { basename, join } from 'node:path'
import { parseQuestions, type EvalQuestion } from '../core/eval/score.ts'
import { CORPORA, type CorpusSpec } from './compare-corpora.ts'
import type { BenchOptions } from './run.ts'

/** What the comparison benchmarks read from the harness's command line. */
export interface CompareOptions extends BenchOptions {
  /** `--questions FILE`, repeatable: question sets in the shared JSONL format. */
  questions?: string[]
  /** `--smoke`: the smallest run that proves the harness and every engine start (hono only, one round). */
  smoke?: boolean
}

/** The question files a run uses: the ones given, else the dev sets (hono only in a smoke run). */
export function compareQuestions(opts: CompareOptions): string[] | undefined {
  if (opts.questions?.length) return opts.questions
  return opts.smoke ? [CORPORA[0]!.questions] : undefined
}

export interface QuestionSet {
  file: string
  name: string
  corpus: CorpusSpec
  questions: EvalQuestion[]
}

/** The corpus holding most of the set's gold files; for a gold-less set, the one its file name names. */
export function corpusFor(file: string, questions: EvalQuestion[]): CorpusSpec {
  const golds = questions.flatMap((q) => q.gold.map((g) => g.path))
  if (golds.length) {
    const score = (c: CorpusSpec) => golds.filter((p) => existsSync(join(c.root, p))).length
    const best = [...CORPORA].sort((a, b) => score(b) - score(a))[0]!
    if (score(best) > 0) return best
  }
  const named = CORPORA.find((c) => basename(file).toLowerCase().includes(c.name))
  if (named) return named
  throw new Error(
    `${file}: none of its gold paths exist in ${CORPORA.map((c) => c.root).join(' or ')}, ` +
      `and its name names no corpus. Gold paths are relative to the corpus folder (e.g. docs/api/context.md).`,
  )
}

export function loadQuestionSets(files: string[] | undefined): QuestionSet[] {
  const list = files?.length ? files : CORPORA.map((c) => c.questions)
  return list.map((file) => {
    if (!existsSync(file)) throw new Error(`--questions ${file}: no such file.`)
    const questions = parseQuestions(readFileSync(file, 'utf8'), file)
    if (!questions.length) throw new Error(`--questions ${file}: the file holds no questions.`)
    return { file, name: basename(file), corpus: corpusFor(file, questions), questions }
  })
}
