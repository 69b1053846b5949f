/**
 * The proxy's whole configuration as one JSON-serialisable value: the routes it
 * serves (one per member of the resolved chain, plus the hosted embedder) and
 * the owner's `proxy`, `budget`, `feedback` and `insights` config sections, verbatim.
 *
 * Node builds it from the config file at start; the Worker receives it bundled
 * through the `DOCPILOT_PROXY` var in wrangler.toml (which `docpilot doctor
 * --proxy` prints), because a Worker cannot read the config file at runtime.
 */
import * as z from 'zod'
import { BudgetSchema, ChatSchema, FeedbackSchema, InsightsSchema, ProxySchema, type DocpilotConfig } from '../core/config/schema.ts'
import type { Rationing } from '../core/chain/rationing.ts'
import type { EmbedderIdentity, PublicChainMember } from '../core/index/format.ts'
import { MEMBER_IDS, type MemberId } from '../core/providers/table.ts'
import { McpSettingsSchema, mcpSettingsFor } from './mcp-settings.ts'

const RouteSchema = z.strictObject({
  member: z.enum(MEMBER_IDS as [MemberId, ...MemberId[]]),
  /** Models the chat route may serve; empty means the member has no chat route. */
  chatModels: z.array(z.string().min(1)).default([]),
  /** Models the embeddings route may serve; empty means no embeddings route. */
  embedModels: z.array(z.string().min(1)).default([]),
  /** Upstream base URL from the config (a chain entry's baseURL); the member's base-URL env var still wins. */
  baseUrl: z.string().url().optional(),
})
export type ProxyRoute = z.output<typeof RouteSchema>

export const ProxySettingsSchema = z.strictObject({
  routes: z.array(RouteSchema),
  proxy: ProxySchema.default(ProxySchema.parse({})),
  budget: BudgetSchema.default({}),
  feedback: FeedbackSchema.default(FeedbackSchema.parse({})),
  /** Whether /ai/events stores anything, and for how long. */
  insights: InsightsSchema.default(InsightsSchema.parse({})),
  /** Upstream time limits: the panel's own (chat.timeouts), so the proxy never holds a reader longer than the panel waits. */
  timeouts: ChatSchema.shape.timeouts,
  mcp: McpSettingsSchema.default(McpSettingsSchema.parse({})),
})
export type ProxySettings = z.output<typeof ProxySettingsSchema>
export type ProxySettingsInput = z.input<typeof ProxySettingsSchema>

export function parseProxySettings(value: unknown): ProxySettings {
  const raw = typeof value === 'string' ? (JSON.parse(value) as unknown) : value
  const parsed = ProxySettingsSchema.safeParse(raw)
  if (!parsed.success) {
    const first = parsed.error.issues[0]
    const where = first?.path.join('.') || '(root)'
    throw new Error(`Invalid proxy settings at ${where}: ${first?.message ?? 'unknown problem'}`)
  }
  return parsed.data
}

/**
 * Routes from the public chain (what the manifest carries) plus the hosted
 * embedder. Several entries for one member merge into one route.
 */
export function routesFor(
  chain: readonly Pick<PublicChainMember, 'provider' | 'models'>[],
  embedder?: Pick<EmbedderIdentity, 'kind' | 'model' | 'provider'>,
  baseUrls: Partial<Record<MemberId, string>> = {},
): ProxyRoute[] {
  const byMember = new Map<MemberId, ProxyRoute>()
  const routeOf = (member: MemberId): ProxyRoute => {
    let route = byMember.get(member)
    if (!route) {
      route = { member, chatModels: [], embedModels: [] }
      const baseUrl = baseUrls[member]
      if (baseUrl) route.baseUrl = baseUrl
      byMember.set(member, route)
    }
    return route
  }
  for (const m of chain) {
    const route = routeOf(m.provider)
    for (const model of m.models) if (!route.chatModels.includes(model)) route.chatModels.push(model)
  }
  if (embedder?.kind === 'hosted' && embedder.provider) {
    const route = routeOf(embedder.provider)
    if (!route.embedModels.includes(embedder.model)) route.embedModels.push(embedder.model)
  }
  return [...byMember.values()]
}

/**
 * The proxy's settings for these routes. The daily ceiling is the one the
 * chain's rationing defends: budget.dailyLimit, else a free-tier-only chain's own day.
 */
export function settingsFor(
  routes: ProxyRoute[],
  config: Pick<DocpilotConfig, 'proxy' | 'budget' | 'feedback' | 'insights' | 'chat' | 'mcp' | 'urls'>,
  rationing: Pick<Rationing, 'dailyLimit'>,
): ProxySettings {
  const budget = { ...config.budget, ...(rationing.dailyLimit !== undefined ? { dailyLimit: rationing.dailyLimit } : {}) }
  return {
    routes,
    proxy: config.proxy,
    budget,
    feedback: config.feedback,
    insights: config.insights,
    timeouts: config.chat.timeouts,
    mcp: mcpSettingsFor(config),
  }
}
