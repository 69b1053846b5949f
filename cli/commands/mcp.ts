/**
 * `docpilot mcp`: the docs as an MCP server over stdio, for editors and
 * coding agents on the owner's machine (Claude Desktop, Cursor, VS Code).
 * The same server as the proxy's /ai/mcp route (core/mcp/docs-server.ts),
 * reading the index and the site output folder from disk. Standard output
 * is the protocol channel: everything for people goes to standard error.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { PassThrough } from 'node:stream'
import type { Transport } from '@modelcontextprotocol/server'
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio'
import type { Command } from 'commander'
import type { Env } from '../../core/chain/resolve.ts'
import type { DocpilotConfig } from '../../core/config/schema.ts'
import { createDocsMcpServer, type DocsSite } from '../../core/mcp/docs-server.ts'
import { LLMS_TXT } from '../../core/site-files.ts'
import { envEmbedTransport } from '../../indexer/embed.ts'
import { diskSite, type DiskDocs } from '../../proxy/mcp-disk.ts'
import { mcpSettingsFor } from '../../proxy/mcp-settings.ts'
import { indexDirFor, loadConfigFor, type CliContext } from '../context.ts'
import { checkIndexDir, unsearchable } from '../index-dir.ts'
import { DEFAULT_SITE_OUT, siteOutFor } from '../site-out.ts'
import { docsPage } from '../package-root.ts'

interface McpFlags {
  index?: string
  siteOut?: string
  config?: string
}

export function defineMcpCommand(program: Command, ctx: CliContext): void {
  program
    .command('mcp')
    .summary('serve the docs to coding agents over MCP (stdio)')
    .description(
      'An MCP server on standard input and output with two tools, search_docs (the panel\'s search, the same results as\n' +
        '`docpilot query`) and get_page (a page\'s Markdown), and llms.txt as a resource. Your editor starts it;\n' +
        `the config snippets for Claude Desktop, Cursor and VS Code are in docpilot's docs:\n  ${docsPage(ctx.cwd, 'agents.md')}`,
    )
    .option('--index <dir>', 'index folder (default: `out` from the config, .docpilot/index)')
    .option('--site-out <dir>', `the folder \`docpilot index\` wrote llms.txt and the page copies to (default: llms.siteOut from the config, ${DEFAULT_SITE_OUT})`)
    .option('--config <file>', 'config file (default: docpilot.config.* in the working directory)')
    .addHelpText(
      'after',
      `
Examples:
  $ docpilot mcp                                   the config's index and .docpilot/site, from this folder
  $ docpilot mcp --index /abs/site/dist/docpilot --site-out /abs/site/dist

An editor starts it from its MCP server entry, e.g.
  {"command": "npx", "args": ["docpilot", "mcp", "--index", "/abs/site/.docpilot/index", "--site-out", "/abs/site/.docpilot/site"]}
Editors start servers in a folder of their choosing: give absolute folders (or --config).`,
    )
    .action(async (flags: McpFlags) => {
      const loaded = await loadConfigFor(ctx, flags.config)
      const indexDir = indexDirFor(ctx, loaded, flags.index)
      const siteDir = siteOutFor(ctx, loaded, flags.siteOut)
      const site = await openMcpSite({ indexDir, siteDir }, loaded.config, ctx.env)
      const server = createDocsMcpServer(site, { version: ctx.version })
      // The SDK's transport closes itself when its input ends, dropping the requests still running; a client that
      // writes its requests and closes stdin (`printf ... | docpilot mcp`) is owed every answer. So the transport
      // reads a stream that stays open, and the server closes once stdin has ended and every request is answered.
      const input = new PassThrough()
      process.stdin.pipe(input, { end: false })
      const transport = new StdioServerTransport(input, process.stdout)
      await server.connect(transport)
      const requests = trackRequests(transport)
      // Listening before saying the server is ready: a signal sent on that line is handled, not fatal. A signal also
      // cuts short the wait for answers after stdin ends (a client closes stdin, then sends SIGTERM, then SIGKILL).
      let onSignal = () => {}
      const signalled = new Promise<'signal'>((done) => (onSignal = () => done('signal')))
      process.once('SIGINT', onSignal)
      process.once('SIGTERM', onSignal)
      const ended = new Promise<'end'>((done) => {
        // Input piped in whole may have ended while the server connected.
        if (process.stdin.readableEnded) done('end')
        process.stdin.once('end', () => done('end'))
        process.stdin.once('close', () => done('end'))
      })
      ctx.stderr(`docpilot mcp: serving ${indexDir} (pages from ${siteDir}) over stdio\n`)
      // Search works without the page copies, so this is a warning; without it every get_page says "There is no
      // page at ...", which reads as a wrong URL rather than a wrong folder (an editor starts us in a folder of its own).
      if (!existsSync(join(siteDir, LLMS_TXT))) {
        ctx.stderr(
          `docpilot mcp: no ${LLMS_TXT} in ${siteDir}, so get_page and the ${LLMS_TXT} resource find nothing (search_docs works). ` +
            'Pass --site-out with the folder `docpilot index` wrote the page copies to (the "Agents:" line of its summary), as an absolute path.\n',
        )
      }
      let unanswered = 0
      let why = await Promise.race([ended, signalled])
      if (why === 'end') {
        // What stdin delivered last may still sit in the stream the transport reads: let it arrive first.
        while (input.readableLength > 0) await new Promise((next) => setImmediate(next))
        const drained = await Promise.race([requests.answered(DRAIN_MS), signalled])
        if (drained === 'signal') why = drained
        else if (!drained) unanswered = requests.pending()
      }
      // From here a signal does what it does to any process.
      process.off('SIGINT', onSignal)
      process.off('SIGTERM', onSignal)
      await server.close()
      // Stop reading stdin, as the transport does when it reads stdin itself, so the process can exit; after a signal,
      // also drop replies a client that stopped reading never took (they would hold the process until its SIGKILL).
      process.stdin.unpipe(input)
      process.stdin.pause()
      if (why === 'signal') process.stdout.destroy()
      if (unanswered) throw new Error(`docpilot mcp: stdin closed; ${unanswered} request(s) still unanswered after ${DRAIN_MS / 1000} s, closed anyway`)
    })
}

/**
 * The docs `docpilot mcp` serves, their index opened once: a missing folder,
 * a damaged manifest or lexical head stops it here, naming the file, before
 * the editor sees a server with nothing behind it. The check opens the
 * site's own kept index, so the first question reuses what it read.
 */
export async function openMcpSite(docs: DiskDocs, config: Pick<DocpilotConfig, 'mcp' | 'urls'>, env: Env): Promise<DocsSite> {
  await checkIndexDir(docs.indexDir)
  const site = diskSite(docs, mcpSettingsFor(config), { index: { transport: envEmbedTransport(env) } })
  const problem = await unsearchable(docs.indexDir, site.index)
  if (problem) throw new Error(`docpilot mcp: ${problem}`)
  return site
}

/** How long requests still running when stdin ends may take to answer before the server closes anyway. */
const DRAIN_MS = 60_000

/** Counts the requests a transport has received and not yet answered (a cancelled one is never answered). */
function trackRequests(transport: Transport): { pending(): number; answered(timeoutMs: number): Promise<boolean> } {
  const open = new Set<string | number>()
  let wake: (() => void) | undefined
  const settle = (id: unknown) => {
    open.delete(id as string | number)
    if (open.size === 0) wake?.()
  }
  const receive = transport.onmessage
  transport.onmessage = (message, ...rest) => {
    if ('method' in message && 'id' in message) open.add(message.id)
    else if ('method' in message && message.method === 'notifications/cancelled') settle(message.params?.requestId)
    receive?.call(transport, message, ...rest)
  }
  const send = transport.send.bind(transport)
  transport.send = async (message, ...rest) => {
    try {
      await send(message, ...rest)
    } finally {
      if (!('method' in message) && 'id' in message) settle(message.id)
    }
  }
  return {
    pending: () => open.size,
    answered(timeoutMs) {
      if (open.size === 0) return Promise.resolve(true)
      return new Promise<boolean>((done) => {
        // Unref'd: a wait cut short by a signal must not hold the process open.
        const timer = setTimeout(() => done(false), timeoutMs).unref()
        wake = () => {
          clearTimeout(timer)
          done(true)
        }
      })
    },
  }
}
