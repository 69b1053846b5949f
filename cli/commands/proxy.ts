/** `docpilot proxy`: the Node proxy on its own, for self-hosters behind nginx or Caddy. */
import { existsSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { Command } from 'commander'
import { MANIFEST_FILE } from '../../core/index/format.ts'
import { providerSpec } from '../../core/providers/table.ts'
import { keyOf, keyRequired } from '../../proxy/app.ts'
import { proxySettingsFromConfig } from '../../proxy/from-config.ts'
import { diskIndex, type DiskDocs } from '../../proxy/mcp-disk.ts'
import { parseProxySettings, type ProxySettings } from '../../proxy/settings.ts'
import { DEFAULT_DB_PATH, IN_MEMORY, resolveDbPath, serveProxy, sqliteInstalled } from '../../proxy/node.ts'
import { CONFIG_OPTION_HELP } from '../config-file.ts'
import { indexDirFor, loadConfigFor, portNumber, positiveInt, serveUntilStopped, UsageError, type CliContext } from '../context.ts'
import { unsearchable } from '../index-dir.ts'
import { siteOutFor } from '../site-out.ts'
import { manifestEmbedder } from './doctor.ts'

interface ProxyFlags {
  port: number
  host: string
  db?: string
  trustProxy?: number | true
  config?: string
  index?: string
  siteOut?: string
  settings?: string
}

/**
 * `doctor --proxy` prints the value as a wrangler.toml line, `DOCPILOT_PROXY = '<json>'`: an owner who saves
 * the whole line, or the value with its quotes, means the JSON inside (a TOML literal string holds no quote).
 */
function settingsJson(text: string): string {
  return /^\s*(?:DOCPILOT_PROXY\s*=\s*)?'([^']*)'\s*$/.exec(text)?.[1] ?? text
}

/** The DOCPILOT_PROXY value `doctor --proxy` prints, read from a file: the same routes a Worker would serve. */
function settingsFile(cwd: string, file: string): ProxySettings {
  const path = resolve(cwd, file)
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (err) {
    throw new UsageError(`--settings ${file}: cannot read ${path} (${(err as NodeJS.ErrnoException).code ?? (err as Error).message})`)
  }
  let settings: ProxySettings
  try {
    settings = parseProxySettings(settingsJson(text))
  } catch (err) {
    throw new UsageError(`--settings ${path}: ${(err as Error).message}. Use the DOCPILOT_PROXY JSON that \`docpilot doctor --proxy\` prints.`)
  }
  // The proxy's own check would say to set it in docpilot.config, which this run does not read.
  if (settings.proxy.siteOrigins.length === 0) {
    throw new UsageError(
      `--settings ${path}: proxy.siteOrigins is not set, and the proxy serves only pages from your own site. Add "proxy": { "siteOrigins": ["https://docs.example.com"] } ` +
        'to the file (scheme and host, the address readers open), or set proxy.siteOrigins in docpilot.config and copy what `docpilot doctor --proxy` prints again.',
    )
  }
  return settings
}

/**
 * Why /ai/mcp cannot search `docs`, or undefined: read through the index the
 * route keeps (diskIndex), so its first search reuses this open.
 */
export function mcpUnsearchable(docs: DiskDocs): Promise<string | undefined> {
  return unsearchable(docs.indexDir, diskIndex(docs))
}

export function defineProxyCommand(program: Command, ctx: CliContext): void {
  program
    .command('proxy')
    .summary('serve the key-holding /ai/... proxy with Node')
    .description(
      'Serve the same-origin /ai/... routes your chain needs, attaching keys from this process\'s environment.\n' +
        'Put it behind your site\'s reverse proxy (`docpilot doctor --proxy` prints nginx and Caddy snippets).\n' +
        'The daily ceiling and feedback live in a SQLite file; several processes may share it.',
    )
    .option('-p, --port <port>', 'port to listen on (0: any free port)', portNumber, 8787)
    .option('--host <addr>', 'address to bind', '127.0.0.1')
    .option('--db <file>', `SQLite file for the daily counter and feedback, shared by every process given it (default: ${DEFAULT_DB_PATH}; needs the better-sqlite3 package); :memory: keeps them in this process`)
    .option(
      '--trust-proxy [hops]',
      'behind your own reverse proxies (default 1): take the client address from X-Forwarded-For, the entry that many from the right (what the nearest proxy appended; entries further left are whatever the client sent)',
      positiveInt('--trust-proxy'),
    )
    .option('--config <file>', CONFIG_OPTION_HELP)
    .option('--index <dir>', 'built index whose embedder the proxy must serve, and that /ai/mcp searches (default: `out` from the config)')
    .option('--site-out <dir>', 'where `docpilot index` wrote llms.txt and the page copies, for /ai/mcp (default: llms.siteOut from the config, .docpilot/site)')
    .option('--settings <file>', 'serve exactly these routes and limits: a JSON file holding the DOCPILOT_PROXY value `doctor --proxy` prints (instead of the config)')
    .addHelpText(
      'after',
      `
Examples:
  $ OPENAI_API_KEY=... docpilot proxy                        routes for the config's chain on 127.0.0.1:8787
  $ docpilot proxy --port 9000 --trust-proxy --db /var/lib/docpilot/proxy.sqlite
  $ docpilot proxy --settings proxy-settings.json           the routes \`docpilot doctor --proxy\` printed`,
    )
    .action(async (flags: ProxyFlags) => {
      const loaded = await loadConfigFor(ctx, flags.config)
      const indexDir = indexDirFor(ctx, loaded, flags.index)
      const settings = flags.settings ? settingsFile(ctx.cwd, flags.settings) : proxySettingsFromConfig(loaded.config, ctx.env, manifestEmbedder(indexDir)).settings
      const dbPath = resolveDbPath(ctx.cwd, flags.db ?? DEFAULT_DB_PATH)
      if (dbPath !== IN_MEMORY && !sqliteInstalled()) {
        throw new Error(
          `docpilot proxy keeps its daily counter and feedback in ${flags.db ?? DEFAULT_DB_PATH}, which needs SQLite: install it with ` +
            '`npm install better-sqlite3`, or pass `--db :memory:` to keep them in this process only (lost on restart).',
        )
      }
      const trustedHops = flags.trustProxy === true ? 1 : (flags.trustProxy ?? 0)
      // Agents get /ai/mcp when there is an index to search (docs/agents.md).
      const mcp = existsSync(join(indexDir, MANIFEST_FILE)) ? { indexDir, siteDir: siteOutFor(ctx, loaded, flags.siteOut) } : undefined
      // A damaged index keeps its route (the route re-reads the index within a minute, so a rebuild mends it), but not silently.
      const problem = mcp && settings.mcp.enabled ? await mcpUnsearchable(mcp) : undefined
      if (problem) ctx.stderr(`docpilot proxy: ${problem} Until then /ai/mcp answers every search with that error.\n`)
      for (const line of startupWarnings(settings, ctx.env)) ctx.stderr(`docpilot proxy: ${line}\n`)
      const served = await serveProxy({ settings, env: ctx.env, dbPath, trustedHops, port: flags.port, hostname: flags.host, ...(mcp ? { mcp } : {}) })
      ctx.stdout(`docpilot proxy on ${served.url}/ai/ (${settings.routes.map((r) => r.member).join(', ') || 'no routes: set a provider key'})\n`)
      ctx.stdout(mcp && settings.mcp.enabled ? `MCP for agents on ${served.url}/ai/mcp (index ${indexDir})\n` : 'No MCP route: no index at ' + indexDir + (settings.mcp.enabled ? '' : ' (and mcp.enabled is false)') + '\n')
      await serveUntilStopped(served.close)
    })
}

/**
 * What an owner should hear before the first reader does: a route that will refuse every request, and
 * a billed account with no daily ceiling (the origin check stops other sites' pages, not a script that
 * sends no Origin: only the ceiling bounds what it can spend).
 */
export function startupWarnings(settings: ProxySettings, env: Record<string, string | undefined>): string[] {
  const lines: string[] = []
  for (const route of settings.routes) {
    const spec = providerSpec(route.member)
    // The proxy's own reading of the key: the warning names exactly the routes that refuse with key_not_set.
    if (keyRequired(spec) && !keyOf(spec, env)) lines.push(`${spec.keyEnv} is not set, so /ai/${route.member}/ refuses every request (key_not_set) until it is.`)
  }
  const hosted = settings.routes.filter((r) => !providerSpec(r.member).ownServer && r.chatModels.length)
  if (hosted.length && settings.budget.dailyLimit === undefined) {
    lines.push(
      `no daily ceiling (budget.dailyLimit): ${hosted.map((r) => r.member).join(', ')} answer${hosted.length === 1 ? 's' : ''} up to ${settings.proxy.rateLimit.perMinute} requests a minute per client address, ` +
        'and a client that sends no Origin (a script, not a page) is one too. Set budget.dailyLimit to bound what a day can cost.',
    )
  }
  return lines
}

