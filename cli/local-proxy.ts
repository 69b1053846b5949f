/**
 * The proxy `docpilot dev` and `docpilot preview` run on the page's own
 * origin: built from the config exactly as `docpilot proxy` and
 * `doctor --proxy` build it, with the fake providers standing in for every
 * member when asked, and its state in SQLite when better-sqlite3 is installed
 * (in memory otherwise).
 */
import { publicChat } from '../core/chain/resolve.ts'
import type { DocpilotConfig } from '../core/config/schema.ts'
import type { Manifest } from '../core/index/format.ts'
import { CHAIN } from '../core/providers/table.ts'
import type { FakeProviders } from '../fixtures/providers/index.ts'
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
export function describeChain(chain: Manifest['chat']['chain']): string {
  if (chain.length === 0) {
    return 'No chat provider: every question gets a search answer (set a provider key such as OPENAI_API_KEY, or pass --fake-providers).'
  }
  return `Answering with: ${chain.map((m) => `${m.provider} (${m.models.join(', ')})`).join(' → ')}`
}
