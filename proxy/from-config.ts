/**
 * Proxy settings for a docpilot config and environment: one route per member
 * of the resolved chain, plus the hosted embedder's member. The index's
 * manifest is the authority on the embedder when one exists (every reader is
 * bound to it); without an index the config's `embed` choice is read.
 */
import { autoEmbedMember } from '../core/chain/embed.ts'
import { resolveChain, type Env, type ResolvedChain } from '../core/chain/resolve.ts'
import type { DocpilotConfig, EmbedConfig } from '../core/config/schema.ts'
import type { EmbedderIdentity } from '../core/index/format.ts'
import { isMemberId, providerSpec, type MemberId } from '../core/providers/table.ts'
import { routesFor, settingsFor, type ProxySettings } from './settings.ts'

export type HostedEmbedder = Pick<EmbedderIdentity, 'kind' | 'model' | 'provider'>

/** The hosted embedder a config selects, or undefined for a local or absent one. */
export function hostedEmbedderOf(embed: EmbedConfig, resolved: ResolvedChain): HostedEmbedder | undefined {
  const hosted = (provider: MemberId, model?: string): HostedEmbedder | undefined => {
    const spec = providerSpec(provider)
    const m = model ?? spec.defaultEmbedModel
    return spec.embeds && m ? { kind: 'hosted', provider, model: m } : undefined
  }
  if (embed === 'auto') {
    const head = autoEmbedMember(resolved)
    return head ? { kind: 'hosted', provider: head.provider, model: head.model } : undefined
  }
  if (typeof embed === 'string') return isMemberId(embed) ? hosted(embed) : undefined
  if (embed && typeof embed === 'object' && 'provider' in embed) return hosted(embed.provider, embed.model)
  return undefined
}

export interface ConfigProxySettings {
  settings: ProxySettings
  resolved: ResolvedChain
  embedder?: HostedEmbedder
}

/**
 * `manifestEmbedder`: the embedder of the built index, or null when the index
 * is bound to a local one (the offline model, an ONNX folder, none), which
 * needs no route whatever the config's `embed` would pick today; undefined
 * when there is no index yet, and the config decides.
 */
export function proxySettingsFromConfig(config: DocpilotConfig, env: Env, manifestEmbedder?: HostedEmbedder | null): ConfigProxySettings {
  const resolved = resolveChain(config.chat, env, { budget: config.budget })
  const embedder = manifestEmbedder === undefined ? hostedEmbedderOf(config.embed, resolved) : manifestEmbedder
  const baseUrls: Partial<Record<MemberId, string>> = {}
  // Only a base URL the config itself wrote is kept: the environment's is read by the proxy at
  // request time, and baking today's env into a deployed Worker would pin it.
  for (const m of resolved.members) {
    const spec = providerSpec(m.provider)
    if (m.baseUrl && m.baseUrl !== env[spec.baseUrlEnv]?.trim() && m.baseUrl !== spec.defaultBaseUrl) baseUrls[m.provider] = m.baseUrl
  }
  const routes = routesFor(resolved.members, embedder?.kind === 'hosted' ? embedder : undefined, baseUrls)
  const out: ConfigProxySettings = { settings: settingsFor(routes, config, resolved.rationing), resolved }
  if (embedder?.kind === 'hosted') out.embedder = embedder
  return out
}
