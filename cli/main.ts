/**
 * The `docpilot` command. Commands are registered from the list below:
 * adding one is one import and one entry. Exit codes: 0 success,
 * 1 failure (bad input, bad config, a run that failed), 2 usage.
 */
import { Command, CommanderError, Help } from 'commander'
import { cacheCompiledModules } from './compile-cache.ts'
import { UsageError, type CliContext } from './context.ts'
import { fsErrorMessage } from './fs-error.ts'
import { PACKAGE_VERSION } from './package-root.ts'
import { tuneTieringForShortRuns } from './tiering.ts'

type DefineCommand = (program: Command, ctx: CliContext) => void

/**
 * Each command's module is imported only when that command runs (or for the
 * overview help): `dev` pulls in the widget build and the fake providers,
 * which `docpilot query` has no reason to load.
 */
export const COMMANDS: Record<string, () => Promise<DefineCommand>> = {
  index: async () => (await import('./commands/index.ts')).defineIndexCommand,
  widget: async () => (await import('./commands/widget.ts')).defineWidgetCommand,
  dev: async () => (await import('./commands/dev.ts')).defineDevCommand,
  preview: async () => (await import('./commands/preview.ts')).definePreviewCommand,
  doctor: async () => (await import('./commands/doctor.ts')).defineDoctorCommand,
  proxy: async () => (await import('./commands/proxy.ts')).defineProxyCommand,
  query: async () => (await import('./commands/query.ts')).defineQueryCommand,
  eval: async () => (await import('./commands/eval.ts')).defineEvalCommand,
  insights: async () => (await import('./commands/insights.ts')).defineInsightsCommand,
  mcp: async () => (await import('./commands/mcp.ts')).defineMcpCommand,
}

/** The commands to register for these arguments: none for the version, the one named, or all of them. */
function commandsFor(argv: readonly string[]): string[] {
  const [first, second] = argv
  if (first === '-v' || first === '--version') return []
  if (first && Object.hasOwn(COMMANDS, first)) return [first]
  if (first === 'help' && second && Object.hasOwn(COMMANDS, second)) return [second]
  return Object.keys(COMMANDS)
}

const VERSION = PACKAGE_VERSION

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

/**
 * Descriptions are written over several source lines; commander wraps them to
 * the terminal's width and keeps every line break, so a break inside a
 * sentence made ragged lines ("every question gets a" / "search answer.").
 * A break followed by a letter joins its line to the previous one; a blank
 * line and an indented or listed line keep theirs. Inherited by every command.
 */
const flowing = (text: string) => text.replace(/([^\n])\n(?=[\p{L}\p{N}(`'"])/gu, '$1 ')
const FLOWING_HELP: Partial<Help> = {
  commandDescription: (cmd) => flowing(cmd.description()),
  optionDescription(this: Help, option) {
    return flowing(Help.prototype.optionDescription.call(this, option))
  },
  argumentDescription(this: Help, argument) {
    return flowing(Help.prototype.argumentDescription.call(this, argument))
  },
}

/** Commands other tools have, too far from docpilot's names for commander's spelling suggestion to find. */
const SERVING = 'did you mean `docpilot dev ./docs` (your Markdown with the panel) or `docpilot preview dist` (your built site)?'
const SEARCHING = 'did you mean `docpilot query "your question"`?'
const OTHER_TOOLS_WORDS: Record<string, string> = {
  serve: SERVING,
  start: SERVING,
  build: 'did you mean `docpilot index` (the static index; your site generator builds the site)?',
  search: SEARCHING,
  ask: SEARCHING,
}

/** The program with the given commands registered (default: every command). */
export async function buildProgram(ctx: CliContext, names: readonly string[] = Object.keys(COMMANDS)): Promise<Command> {
  const program = new Command('docpilot')
    .description('Ask-the-docs for your site: a static index built from your docs, a panel that searches it in the reader\'s browser, and a small proxy that holds the provider keys for model answers.')
    .version(ctx.version, '-v, --version')
    .showHelpAfterError('(add --help for usage and examples)')
    .configureOutput({ writeOut: ctx.stdout, writeErr: ctx.stderr })
    .configureHelp(FLOWING_HELP)
    .exitOverride()
    .addHelpText(
      'after',
      `
Examples:
  $ docpilot index ./docs --out public/docpilot       build the static index from Markdown/MDX
  $ docpilot widget --out public/docpilot-assets      write the panel's files and print the script tag
  $ docpilot dev ./docs                               try it: your docs with the panel and the proxy
  $ docpilot preview dist                             your built site with the proxy, before you deploy
  $ docpilot doctor --proxy                           the proxy routes and keys your config needs

Run \`docpilot <command> --help\` for each command's options.`,
    )
  for (const define of await Promise.all(names.map((name) => COMMANDS[name]!()))) define(program, ctx)
  // Subcommands report through the same streams and exit codes.
  for (const cmd of program.commands) cmd.configureOutput({ writeOut: ctx.stdout, writeErr: ctx.stderr }).exitOverride()
  return program
}

let pipeGuarded = false

/** Commands whose work is the files they write: a reader that stops reading their report does not stop the work. */
const WRITES_FILES = new Set(['index', 'widget'])

/** What writing to a pipe the reader closed raises: the first write's EPIPE, then every later write's. */
const CLOSED_PIPE = new Set(['EPIPE', 'ERR_STREAM_DESTROYED'])

/**
 * A reader that stops early (`docpilot query --questions q.jsonl | head`)
 * closes the pipe; the next write fails with EPIPE. A command whose output
 * is what it does stops quietly, as Unix tools do, instead of dying with a
 * stack trace. One that writes files (`docpilot index … 2>&1 | head`) goes
 * on writing them, its report going nowhere: stopping there left no index,
 * and the exit code said all was well.
 */
function quietOnClosedPipe(command: string | undefined): void {
  if (pipeGuarded) return
  pipeGuarded = true
  const keepWorking = command !== undefined && WRITES_FILES.has(command)
  for (const stream of [process.stdout, process.stderr]) {
    stream.on('error', (err: NodeJS.ErrnoException) => {
      if (!CLOSED_PIPE.has(err.code ?? '')) throw err
      if (!keepWorking) process.exit(0)
    })
  }
}

export async function main(argv: string[], overrides: Partial<CliContext> = {}): Promise<number> {
  if (!overrides.stdout) {
    quietOnClosedPipe(argv[0])
    tuneTieringForShortRuns()
    cacheCompiledModules()
  }
  const ctx = { ...defaultContext(), ...overrides }
  // `docpilot help indx` and `docpilot indx --help` printed the overview and said nothing of the typo (the first
  // exiting 0): parsed as the bare name, commander names it and the nearest command, as for `docpilot indx`.
  const named = argv[0] === 'help' ? argv[1] : argv[0]
  if (named !== undefined && Object.hasOwn(OTHER_TOOLS_WORDS, named) && !Object.hasOwn(COMMANDS, named)) {
    ctx.stderr(`error: unknown command '${named}': ${OTHER_TOOLS_WORDS[named]}\n(add --help for usage and examples)\n`)
    return 2
  }
  if (named !== undefined && !named.startsWith('-') && named !== 'help' && !Object.hasOwn(COMMANDS, named)) argv = [named]
  const program = await buildProgram(ctx, commandsFor(argv))
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
    ctx.stderr(`${fsErrorMessage(err) ?? (err instanceof Error ? err.message : String(err))}\n`)
    if (ctx.env.DOCPILOT_DEBUG && err instanceof Error && err.stack) ctx.stderr(`${err.stack}\n`)
    return 1
  }
}
