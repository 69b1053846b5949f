/**
 * The `docpilot` command. Commands are registered from the list below:
 * adding one is one import and one entry. Exit codes: 0 success,
 * 1 failure (bad input, bad config, a run that failed), 2 usage.
 */
import { readFileSync } from 'node:fs'
import { Command, CommanderError } from 'commander'
import { UsageError, type CliContext } from './context.ts'
import { defineIndexCommand } from './commands/index.ts'
import { defineQueryCommand } from './commands/query.ts'
import { defineEvalCommand } from './commands/eval.ts'
import { defineDevCommand } from './commands/dev.ts'
import { defineDoctorCommand } from './commands/doctor.ts'
import { defineProxyCommand } from './commands/proxy.ts'

type DefineCommand = (program: Command, ctx: CliContext) => void

const COMMANDS: DefineCommand[] = [defineIndexCommand, defineQueryCommand, defineEvalCommand, defineDevCommand, defineDoctorCommand, defineProxyCommand]

const VERSION = (JSON.parse(readFileSync(new URL('../package.json', import.meta.url), 'utf8')) as { version: string }).version

function defaultContext(): CliContext {
  return {
    cwd: process.cwd(),
    env: process.env,
    stdout: (t) => void process.stdout.write(t),
    stderr: (t) => void process.stderr.write(t),
    stderrIsTTY: Boolean(process.stderr.isTTY),
    version: VERSION,
  }
}

export function buildProgram(ctx: CliContext): Command {
  const program = new Command('docpilot')
    .description('Ask-the-docs for your site: build the static index, query it, measure retrieval.')
    .version(ctx.version, '-v, --version')
    .showHelpAfterError('(add --help for usage and examples)')
    .configureOutput({ writeOut: ctx.stdout, writeErr: ctx.stderr })
    .exitOverride()
    .addHelpText(
      'after',
      `
Examples:
  $ docpilot index ./docs                      build .docpilot/index from Markdown/MDX
  $ docpilot query "how do I set a cookie?"    see what the panel would retrieve
  $ docpilot eval --questions dev.jsonl        recall@k and MRR by question kind

Run \`docpilot <command> --help\` for each command's options.`,
    )
  for (const define of COMMANDS) define(program, ctx)
  // Subcommands report through the same streams and exit codes.
  for (const cmd of program.commands) cmd.configureOutput({ writeOut: ctx.stdout, writeErr: ctx.stderr }).exitOverride()
  return program
}

export async function main(argv: string[], overrides: Partial<CliContext> = {}): Promise<number> {
  const ctx = { ...defaultContext(), ...overrides }
  const program = buildProgram(ctx)
  if (argv.length === 0) {
    program.outputHelp()
    return 2
  }
  try {
    await program.parseAsync(argv, { from: 'user' })
    return 0
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help and version are successes; every other commander error is a usage error it already printed.
      return err.code === 'commander.helpDisplayed' || err.code === 'commander.help' || err.code === 'commander.version' ? 0 : 2
    }
    if (err instanceof UsageError) {
      ctx.stderr(`error: ${err.message}\n(add --help for usage and examples)\n`)
      return 2
    }
    ctx.stderr(`${err instanceof Error ? err.message : String(err)}\n`)
    if (ctx.env.DOCPILOT_DEBUG && err instanceof Error && err.stack) ctx.stderr(`${err.stack}\n`)
    return 1
  }
}
