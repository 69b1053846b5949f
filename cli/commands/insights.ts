/** `docpilot insights`: what readers asked, what the docs did not answer, how the ladder held. */
import { existsSync } from 'node:fs'
import { mkdir, writeFile } from 'node:fs/promises'
import { join, relative, resolve } from 'node:path'
import type { Command } from 'commander'
import { MANIFEST_FILE } from '../../core/index/format.ts'
import { DEFAULT_DB_PATH } from '../../proxy/node.ts'
import { indexDirFor, loadConfigFor, positiveInt, UsageError, type CliContext } from '../context.ts'
import { openIndexDir } from '../index-dir.ts'
import { docsPage } from '../package-root.ts'
import { renderHtml } from '../insights/html.ts'
import { renderMarkdown } from '../insights/markdown.ts'
import { buildReport, gapQuestions, parseEvents } from '../insights/report.ts'
import { readD1Events, readSqliteEvents } from '../insights/store.ts'

interface InsightsFlags {
  db?: string
  d1?: string
  remote?: boolean
  wranglerConfig?: string
  persistTo?: string
  index?: string
  out: string
  since?: number
  export?: string
  config?: string
}

export function defineInsightsCommand(program: Command, ctx: CliContext): void {
  program
    .command('insights')
    .summary('report what readers asked, the gaps in the docs and how the answer ladder held')
    .description(
      'Reads the events the proxy stored (insights.enabled in the config) from its SQLite file, or from D1\n' +
        'through wrangler, and writes a Markdown report (for a pull-request comment) and one self-contained\n' +
        'HTML page with charts: outcomes over time, gaps (refused and thumbs-down turns grouped by the section\n' +
        'they landed nearest), answers per rung of the ladder and cooling, the sections cited most and the\n' +
        'pages never cited, and the gate score distribution.',
    )
    .option('--db <file>', `the Node proxy's SQLite file (default: ${DEFAULT_DB_PATH})`)
    .option('--d1 <database>', "read the Worker's D1 database through wrangler instead (its database_name)")
    .option('--remote', 'with --d1: the deployed database, not wrangler dev\'s local copy')
    .option('--wrangler-config <file>', 'with --d1: the wrangler.toml to use (default: the one in the working directory)')
    .option('--persist-to <dir>', "with --d1: the folder wrangler dev was given with --persist-to")
    .option('--index <dir>', 'index folder, for titles of pages never cited (default: `out` from the config; skipped when absent)')
    .option('--out <dir>', 'folder for insights.md and insights.html', '.docpilot/insights')
    .option('--since <days>', 'only turns of the last N days', positiveInt('--since'))
    .option('--export <file>', 'also write the gap questions as JSONL in the eval question format (gold empty, for you to fill)')
    .option('--config <file>', 'config file (default: docpilot.config.* in the working directory)')
    .addHelpText(
      'after',
      `
Examples:
  $ docpilot insights                                   read .docpilot/proxy.sqlite, write .docpilot/insights/
  $ docpilot insights --db .docpilot/dev-proxy.sqlite --index .docpilot/dev-index
                                                        what readers asked under docpilot dev
  $ docpilot insights --d1 docpilot-feedback --remote   the deployed Worker's events
  $ docpilot insights --export gaps.jsonl               then fill "gold" and run docpilot eval --questions gaps.jsonl`,
    )
    .action(async (flags: InsightsFlags) => {
      if (flags.d1 && flags.db) throw new UsageError('give either --db (a SQLite file) or --d1 (a D1 database), not both')
      if (!flags.d1 && (flags.remote || flags.wranglerConfig || flags.persistTo)) throw new UsageError('--remote, --wrangler-config and --persist-to go with --d1 <database>')
      // Validated first, as every command does: a typo in insights.enabled is the likeliest reason for an empty report.
      const loaded = await loadConfigFor(ctx, flags.config)
      const rows = flags.d1
        ? await readD1Events(
            { database: flags.d1, ...(flags.remote ? { remote: true } : {}), ...(flags.wranglerConfig ? { config: flags.wranglerConfig } : {}), ...(flags.persistTo ? { persistTo: flags.persistTo } : {}) },
            ctx.cwd,
            { ...process.env, ...ctx.env },
          )
        : readSqliteEvents(resolve(ctx.cwd, flags.db ?? DEFAULT_DB_PATH))
      const since = flags.since ? new Date(Date.now() - flags.since * 86_400_000).toISOString() : ''
      const { events, skipped } = parseEvents(rows.filter((r) => r.createdAt >= since))
      if (skipped.length) ctx.stderr(`Skipped ${skipped.length} event(s) whose record is not JSON (ids: ${skipped.slice(0, 5).join(', ')}).\n`)

      const pages = await indexPages(ctx, indexDirFor(ctx, loaded, flags.index), flags.index)
      const report = buildReport(events, pages ? { pages } : {})
      const out = resolve(ctx.cwd, flags.out)
      await mkdir(out, { recursive: true })
      await writeFile(join(out, 'insights.md'), renderMarkdown(report))
      await writeFile(join(out, 'insights.html'), renderHtml(report, new Date()))
      const shown = (p: string) => (relative(ctx.cwd, p).startsWith('..') ? p : relative(ctx.cwd, p))
      ctx.stdout(
        `${report.turns} turns: ${report.outcomes.answered} answered, ${report.outcomes.refused} refused, ${report.ratings.down} thumbs down; ${report.gaps.length} gap group(s).\n` +
          `Wrote ${shown(join(out, 'insights.md'))} and ${shown(join(out, 'insights.html'))}\n`,
      )
      if (report.turns === 0 && !loaded.config.insights.enabled) {
        ctx.stdout(
          `insights.enabled is off in ${loaded.file ? shown(loaded.file) : 'the config (there is no config file)'}, so the panel sends no records and the proxy stores none. ` +
            `Set insights: { enabled: true }, run docpilot index again and restart the proxy (${docsPage(ctx.cwd, 'insights.md')}).\n`,
        )
      }
      if (flags.export) {
        const questions = gapQuestions(report)
        await writeFile(resolve(ctx.cwd, flags.export), questions.map((q) => JSON.stringify(q)).join('\n') + (questions.length ? '\n' : ''))
        ctx.stdout(`Wrote ${questions.length} gap question(s) to ${flags.export}\n`)
        if (questions.length === 0 && report.gaps.length > 0) {
          ctx.stdout('The gaps have no stored question text: set feedback.storeText to true to keep readers\' questions (say so in your privacy policy).\n')
        }
      }
    })
}

/** Every page of the index with its title, or undefined when there is no index to read. */
async function indexPages(ctx: CliContext, dir: string, flag: string | undefined): Promise<{ path: string; title: string }[] | undefined> {
  if (!existsSync(join(dir, MANIFEST_FILE))) {
    if (flag) throw new UsageError(`No index at ${flag} (manifest.json is missing).`)
    ctx.stderr(`No index at ${relative(ctx.cwd, dir) || dir}: the report leaves out pages never cited (pass --index).\n`)
    return undefined
  }
  const index = await openIndexDir(dir)
  const chunks = await index.chunks([...Array(index.size).keys()])
  const pages = new Map<string, string>()
  for (const c of chunks) if (!pages.has(c.path)) pages.set(c.path, c.trail[0] ?? c.title)
  return [...pages].map(([path, title]) => ({ path, title }))
}
