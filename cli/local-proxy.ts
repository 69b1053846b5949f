/**
 * The proxy `docpilot dev` and `docpilot preview` run on the page's own
 * origin: built from the config exactly as `docpilot proxy` and
 * `doctor --proxy` build it, with the fake providers standing in for every
 * member when asked, and its state in SQLite when better-sqlite3 is installed
 * (in memory otherwise).
 */
import { neededVariable, publicChat } from '../core/chain/resolve.ts'
import type { DocpilotConfig } from '../core/config/schema.ts'
import type { Manifest } from '../core/index/format.ts'
import { CHAIN, providerSpec, type MemberId } from '../core/providers/table.ts'
import type { FakeProviders } from '../fixtures/providers/index.ts'
import { keyRequired, upstreamBase } from '../proxy/app.ts'
import { proxySettingsFromConfig } from '../proxy/from-config.ts'
import { createNodeProxy, IN_MEMORY, resolveDbPath, sqliteInstalled, type NodeProxy } from '../proxy/node.ts'
import type { ProxySettings } from '../proxy/settings.ts'
import type { DiskDocs } from '../proxy/mcp-disk.ts'

type Env = Record<string, string | undefined>

/** Every provider variable removed: a fake-provider demo must never reach a real service with a real key. */
export function withoutProviderVars(env: Env): Env {
  const out = { ...env }
  for (const spec of CHAIN) {
    if (spec.keyEnv) delete out[spec.keyEnv]
    delete out[spec.baseUrlEnv]
  }
  return out
}

/** The fake providers a command asked for: started here (and owned), or the running instance passed in. */
export async function fakeProvidersFor(option: boolean | FakeProviders | undefined): Promise<{ fakes?: FakeProviders; own: boolean }> {
  if (!option) return { own: false }
  if (option !== true) return { fakes: option, own: false }
  const { startFakeProviders } = await import('../fixtures/providers/index.ts')
  return { fakes: await startFakeProviders(), own: true }
}

/** The environment the proxy reads: the fakes' keys and URLs in place of every provider variable, when there are fakes. */
export function proxyEnv(env: Env, fakes: FakeProviders | undefined): Env {
  return fakes ? { ...withoutProviderVars(env), ...fakes.env() } : env
}

/** The proxy's state file, or memory (with a note) when better-sqlite3 is not installed. */
export function localStatePath(cwd: string, path: string, log: (line: string) => void): string {
  const resolved = resolveDbPath(cwd, path)
  if (resolved === IN_MEMORY || sqliteInstalled()) return resolved
  log('better-sqlite3 is not installed: the proxy keeps its daily counter and feedback in memory until you stop it (npm install better-sqlite3 to keep them in a file).')
  return IN_MEMORY
}

export interface LocalProxy {
  proxy: NodeProxy
  /** The chat chain this config and environment resolve, as a manifest carries it. */
  chat: Manifest['chat']
  settings: ProxySettings
}

/**
 * The pages a local server's proxy answers: its own port on 127.0.0.1 and on
 * localhost (the two names a browser on this machine uses), the host it was
 * bound to when that is a name of its own, and nothing else. A page on any
 * other origin, a DNS-rebinding page that calls itself 127.0.0.1 in its Host
 * header included, is refused.
 */
export function localOrigins(host: string, port: number): string[] {
  const origins = [`http://127.0.0.1:${port}`, `http://localhost:${port}`]
  const wildcard = host === '0.0.0.0' || host === '::'
  if (!wildcard && host !== '127.0.0.1' && host !== 'localhost') origins.push(`http://${host.includes(':') ? `[${host}]` : host}:${port}`)
  return origins
}

/**
 * The proxy for a config, an environment and the embedder a built index is
 * bound to, and the chain it serves, in the manifest's terms. `origins`
 * names the local server's own origins once it listens (with the config's
 * proxy.siteOrigins, if any). With `mcp`, it also serves that index and site
 * folder to agents on /ai/mcp.
 */
export function localProxy(config: DocpilotConfig, env: Env, embedder: Manifest['embedder'], dbPath: string, origins: () => string[], mcp?: DiskDocs): LocalProxy {
  const { settings, resolved } = proxySettingsFromConfig(config, env, embedder)
  const siteOrigins = () => [...settings.proxy.siteOrigins, ...origins()]
  return { proxy: createNodeProxy({ settings, env, dbPath, siteOrigins, ...(mcp ? { mcp } : {}) }), chat: publicChat(resolved, config.chat), settings }
}

/** One line on who answers the panel's questions. */
function describeChain(chain: Manifest['chat']['chain'], fake: boolean): string {
  if (chain.length === 0) {
    return 'No chat provider: every question gets a search answer (set a provider key such as OPENAI_API_KEY, or pass --fake-providers).'
  }
  const members = chain.map((m) => `${m.provider} (${m.models.join(', ')})`).join(' → ')
  // "Answering with: openai" alone read as a real, billed provider: the page says demo, the terminal must too.
  return fake ? `Answering with: docpilot's fake providers in place of ${members}; no real service is called.` : `Answering with: ${members}`
}

/** The variable this environment lacks for the proxy to serve a member, if any. */
function unservedVariable(member: MemberId, settings: ProxySettings, env: Env): string | undefined {
  const spec = providerSpec(member)
  const route = settings.routes.find((r) => r.member === member)
  if (!route || !upstreamBase(spec, route, env)) return neededVariable(spec)
  return keyRequired(spec) && !env[spec.keyEnv!]?.trim() ? spec.keyEnv : undefined
}

/**
 * Who answers questions on a local server, in words: the members of the chain
 * (named by `source`, 'index' or 'config') this environment can serve, not
 * every member named. Each member it cannot serve gets a line in `log`, saying
 * which variable is missing; a chain of which none can answer says readers get
 * search answers, rather than naming a provider that will never reply.
 */
export function whoAnswers(
  chain: Manifest['chat']['chain'],
  settings: ProxySettings,
  env: Env,
  source: 'index' | 'config',
  log: (line: string) => void,
  fakes?: FakeProviders,
): string {
  const answering: Manifest['chat']['chain'] = []
  const unserved: string[] = []
  for (const member of chain) {
    const missing = unservedVariable(member.provider, settings, env)
    if (!missing) answering.push(member)
    else {
      log(`The ${source} names ${member.provider}, but ${missing} is not set here: its turns fall through to the next member, or to a search answer.`)
      unserved.push(missing)
    }
  }
  if (answering.length || !chain.length) return describeChain(answering, fakes !== undefined)
  return `No member of the ${source}'s chain can answer here (${[...new Set(unserved)].join(', ')} not set): every question gets a search answer. Set the variable in this environment, or pass --fake-providers.`
}
