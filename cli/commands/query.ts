/** `docpilot query`: ask the index, as a person (readable) or a tool (JSONL contract). */
import type { Command } from 'commander'
import { toContractLine } from '../../core/eval/contract.ts'
import { refusalReason, type GateConfig } from '../../core/retrieval/gate.ts'
import { oneLineClipped } from '../../core/text/one-line.ts'
import { gateConfig } from '../../core/retrieval/hybrid.ts'
import { DEFAULT_K, type SearchResult } from '../../core/retrieval/search.ts'
import { indexDirFor, loadConfigFor, positiveInt, UsageError, type CliContext } from '../context.ts'
import { envEmbedTransport } from '../../indexer/embed.ts'
import { openIndexDir } from '../index-dir.ts'
import { readQuestions } from '../questions.ts'

interface QueryFlags {
  index?: string
  questions?: string
  k: number
  lexicalOnly?: boolean
  json?: boolean
  config?: string
  context: string[]
}

export function defineQueryCommand(program: Command, ctx: CliContext): void {
  program
    .command('query')
    .summary('search the index (one question, or a JSONL file of them)')
    .description(
      'Rank passages for a question with the same code the browser runs.\n' +
        'With --questions, reads lines {"id","q"} and writes one JSON line per question:\n' +
        '  {"id","mode","gate":{"pass","score"},"results":[{"path","anchor","url","title","trail","score"}]}\n' +
        'A line may add "context": the earlier questions of a conversation, oldest first,\n' +
        'and is then searched as a follow-up to them (the output stays the same).',
    )
    .argument('[question...]', 'a question, for reading the results yourself')
    .option('--index <dir>', 'index folder (default: `out` from the config, .docpilot/index)')
    .option('--questions <file>', "JSONL questions for tools ('-' reads standard input)")
    .option('--k <n>', 'passages per question', positiveInt('--k'), DEFAULT_K)
    .option('--lexical-only', 'search with BM25 alone, as when the embedder is unavailable')
    .option('--json', 'print the single question\'s result as one contract line')
    .option('--context <question>', 'an earlier question of the conversation (repeat for several, oldest first)', collect, [])
    .option('--config <file>', 'config file (default: docpilot.config.* in the working directory)')
    .addHelpText(
      'after',
      `
Examples:
  $ docpilot query "how do I set a cookie?"
  $ docpilot query --index dist/docpilot --questions questions.jsonl --k 8 > results.jsonl
  $ echo '{"id":"1","q":"signed cookies"}' | docpilot query --questions - --lexical-only
  $ docpilot query --context "How do I deploy to Cloudflare Workers?" "And on Deno?"`,
    )
    .action(async (words: string[], flags: QueryFlags) => {
      const question = words.join(' ').trim()
      if (question && flags.questions) throw new UsageError('give either a question or --questions FILE, not both')
      if (flags.context.length && flags.questions) throw new UsageError('--context is for a single question; in a --questions file give each line its own "context"')
      if (!question && !flags.questions) throw new UsageError('ask a question (docpilot query "how do I ...?") or pass --questions FILE.jsonl')
      const loaded = await loadConfigFor(ctx, flags.config)
      const index = await openIndexDir(indexDirFor(ctx, loaded, flags.index), { transport: envEmbedTransport(ctx.env) })
      const opts = { k: flags.k, lexicalOnly: flags.lexicalOnly }

      if (flags.questions) {
        for (const q of await readQuestions(ctx, flags.questions, '{"id","q"}')) {
          ctx.stdout(JSON.stringify(toContractLine(q.id, await index.search(q.q, { ...opts, context: q.context }))) + '\n')
        }
        return
      }
      const result = await index.search(question, { ...opts, context: flags.context })
      if (flags.json) ctx.stdout(JSON.stringify(toContractLine('q', result)) + '\n')
      else ctx.stdout(readable(result, gateConfig(index.manifest)))
    })
}

const collect = (value: string, previous: string[]) => [...previous, value]

/** What the gate decided and on what: the refusal reason, the score against its threshold, the signals. */
function gateLine(verdict: SearchResult['gate'], config: GateConfig, mode: SearchResult['mode']): string {
  const s = verdict.signals
  const signals = [`vocabulary ${s.vocabulary.toFixed(2)}`, ...(s.subject !== undefined ? [`subject ${s.subject.toFixed(2)}`] : []), `cooccurrence ${s.cooccurrence.toFixed(2)}`]
  if (s.meaning !== undefined) signals.push(`meaning ${s.meaning.toFixed(2)}`)
  if (verdict.refusedFor === 'vocabulary') {
    return `gate refused: ${refusalReason('vocabulary')} (vocabulary ${s.vocabulary.toFixed(2)}, floor ${config.vocabularyFloor})`
  }
  if (verdict.refusedFor === 'subject') {
    return `gate refused: ${refusalReason('subject')} (subject ${s.subject!.toFixed(2)}, floor ${config.subjectFloor})`
  }
  const threshold = mode === 'hybrid' ? config.threshold : config.lexicalThreshold
  return `gate ${verdict.pass ? 'passed' : 'refused'} (score ${verdict.score.toFixed(2)}, threshold ${threshold}; ${signals.join(', ')})`
}

function readable(result: SearchResult, config: GateConfig): string {
  const lines = [
    `${result.mode} search${result.degraded ? ` (degraded: ${result.degradedReason ?? 'embedder unavailable'})` : ''}; ` +
      gateLine(result.gate, config, result.mode),
  ]
  if (!result.results.length) lines.push('No passage matches this question.')
  result.results.forEach((p, i) => {
    const link = p.anchor ? `${p.url}#${p.anchor}` : p.url
    lines.push('', `${i + 1}. ${p.trail.join(' › ')}   [${p.score.toFixed(3)}]`, `   ${p.path}  ${link}`, `   ${oneLineClipped(p.text, 200)}`)
  })
  return lines.join('\n') + '\n'
}
