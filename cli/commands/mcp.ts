/**
 * `docpilot mcp`: the docs as an MCP server over stdio, for editors and
 * coding agents on the owner's machine (Claude Desktop, Cursor, VS Code).
 * The same server as the proxy's /ai/mcp route (core/mcp/docs-server.ts),
 * reading the index and the site output folder from disk. Standard output
 * is the protocol channel: everything for people goes to standard error.
 */
import { StdioServerTransport } from '@modelcontextprotocol/server/stdio'
import type { Command } from 'commander'
import { createDocsMcpServer } from '../../core/mcp/docs-server.ts'
import { envEmbedTransport } from '../../indexer/embed.ts'
import { diskSite } from '../../proxy/mcp-disk.ts'
import { mcpSettingsFor } from '../../proxy/mcp-settings.ts'
import { indexDirFor, loadConfigFor, type CliContext } from '../context.ts'
import { openIndexDir } from '../index-dir.ts'
import { DEFAULT_SITE_OUT, siteOutFor } from '../site-out.ts'

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
        'the config snippets for Claude Desktop, Cursor and VS Code are in docs/agents.md.',
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
  {"command": "npx", "args": ["docpilot", "mcp", "--index", "/abs/site/.docpilot/index"]}
Editors start servers in a folder of their choosing: give absolute folders (or --config).`,
    )
    .action(async (flags: McpFlags) => {
      const loaded = await loadConfigFor(ctx, flags.config)
      const indexDir = indexDirFor(ctx, loaded, flags.index)
      // A missing or unreadable index is reported here, before the editor sees a server with nothing behind it.
      await openIndexDir(indexDir)
      const siteDir = siteOutFor(ctx, loaded, flags.siteOut)
      const site = diskSite({ indexDir, siteDir }, mcpSettingsFor(loaded.config), { index: { transport: envEmbedTransport(ctx.env) } })
      const server = createDocsMcpServer(site, { version: ctx.version })
      const transport = new StdioServerTransport()
      await server.connect(transport)
      ctx.stderr(`docpilot mcp: serving ${indexDir} (pages from ${siteDir}) over stdio\n`)
      await new Promise<void>((done) => {
        process.stdin.once('end', done)
        process.stdin.once('close', done)
        process.once('SIGINT', done)
        process.once('SIGTERM', done)
      })
      await server.close()
    })
}
