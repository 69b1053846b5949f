/** Reads a question file (JSONL), or standard input for '-'. */
import { readFile } from 'node:fs/promises'
import { resolve } from 'node:path'
import { parseQuestions, type EvalQuestion } from '../core/eval/score.ts'
import type { CliContext } from './context.ts'

async function readStdin(): Promise<string> {
  const chunks: Buffer[] = []
  for await (const chunk of process.stdin) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks).toString('utf8')
}

/** `shape`: the line the command expects, for the message about a bad one (default: an eval question). */
export async function readQuestions(ctx: CliContext, file: string, shape?: string): Promise<EvalQuestion[]> {
  if (file === '-') return parseQuestions(await readStdin(), '(stdin)', shape)
  const path = resolve(ctx.cwd, file)
  let text: string
  try {
    text = await readFile(path, 'utf8')
  } catch (err) {
    throw new Error(`cannot read question file ${file} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message}). Check the --questions path.`)
  }
  return parseQuestions(text, file, shape)
}
