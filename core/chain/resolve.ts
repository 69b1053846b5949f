/**
 * Chain resolution: config + environment -> the ordered members a turn walks.
 *
 * The table (CHAIN) answers "which one provider"; ordering a *set* is done
 * here, in tiers: billed accounts, then the free pool, then servers of the
 * owner's own (ollama always last), CHAIN's order kept inside each tier.
 * The sort only fires on the zero-config path: a named model or a models list
 * flattens the tiers to CHAIN order, a named provider is never overridden,
 * and an explicit array is walked exactly as written.
 *
 * The environment is read where it lives (CLI, proxy). The browser only ever
 * sees `toPublicChain()`'s projection, via the manifest.
 */
import type { ChainEntry, ChatConfig } from '../config/schema.ts'
import { baseUrlProblem } from '../config/base-url.ts'
import { memberTwice } from '../config/refusals.ts'
import type { Manifest, PublicChainMember } from '../index/format.ts'
import { CHAIN, providerSpec, type MemberId, type ProviderSpec } from '../providers/table.ts'
import { FREE_POOL_KEYWORD, FREE_ROUTER, freePoolModels } from '../ladder/free-pool.ts'
import { rationing, type Rationing } from './rationing.ts'

export type Tier = PublicChainMember['tier']
export type Env = Record<string, string | undefined>

export interface ResolvedMember {
  provider: MemberId
  /** Models tried inside this member, in order (several only for a models list or the free pool). */
  models: string[]
  tier: Tier
  freePool: boolean
  /** Upstream base URL (env override, then config, then the table's default); null when none is known. */
  baseUrl: string | null
  /** Variable that holds the key; the value is never read into the result. */
  keyEnv?: string
  baseUrlEnv: string
}

export interface ResolvedChain {
  members: ResolvedMember[]
  head: MemberId | null
  rationing: Rationing
}

export interface ResolveOptions {
  budget?: { dailyLimit?: number }
}

/** A chain that cannot be walked as written; the message names the field and the fix. */
export class ChainConfigError extends Error {
  constructor(
    readonly field: string,
    message: string,
  ) {
    super(`${field}: ${message}`)
    this.name = 'ChainConfigError'
  }
}

const TIER_RANK: Record<Tier, number> = { billed: 0, free: 1, own: 2 }

function present(env: Env, v: string | undefined): boolean {
  return v !== undefined && env[v] !== undefined && env[v]!.trim() !== ''
}

/** The variable a member needs in the environment: a key for a hosted service, a base URL for an own server. */
export function neededVariable(spec: ProviderSpec): string | undefined {
  return spec.ownServer ? spec.baseUrlEnv : spec.keyEnv
}

/**
 * Why a member's base URL variable cannot be used: set, but not an http(s)
 * URL (`OLLAMA_URL=localhost:11434`, as Ollama's own OLLAMA_HOST is written),
 * which would fail every request as "fetch failed", or one holding a user
 * name or password, which fetch refuses. Names the variable and an
 * example, never the value: on a Worker the message reaches the browser, and
 * a URL may hold a credential. Undefined when unset or usable.
 */
export function badBaseUrl(spec: ProviderSpec, env: Env): string | undefined {
  const value = env[spec.baseUrlEnv]?.trim()
  const problem = value ? baseUrlProblem(spec.id, value) : undefined
  return problem && `${spec.baseUrlEnv} ${problem} (the value is not shown here).`
}

/** Whether the environment holds what this member needs (neededVariable). */
export function memberAvailable(spec: ProviderSpec, env: Env): boolean {
  return present(env, neededVariable(spec))
}

interface ModelChoice {
  model?: string
  models?: string[]
}

function modelsFor(spec: ProviderSpec, choice: ModelChoice, freeModels?: string[]): { models: string[]; freePool: boolean } {
  if (spec.id === 'openrouter' && choice.model === FREE_POOL_KEYWORD) return { models: freePoolModels(freeModels), freePool: true }
  if (choice.models?.length) return { models: [...choice.models], freePool: false }
  if (choice.model && choice.model !== FREE_POOL_KEYWORD) return { models: [choice.model], freePool: false }
  return { models: [spec.defaultModel], freePool: false }
}

function tierOf(spec: ProviderSpec, models: string[], freePool: boolean): Tier {
  if (spec.ownServer) return 'own'
  // The free tier is OpenRouter with no model named (its router) or the opted-in pool.
  if (spec.id === 'openrouter' && (freePool || (models.length === 1 && models[0] === FREE_ROUTER))) return 'free'
  return 'billed'
}

function member(spec: ProviderSpec, choice: ModelChoice, env: Env, chat: ChatConfig, baseURL?: string): ResolvedMember {
  const { models, freePool } = modelsFor(spec, choice, chat.freeModels)
  const fromEnv = present(env, spec.baseUrlEnv) ? env[spec.baseUrlEnv]!.trim() : undefined
  const out: ResolvedMember = {
    provider: spec.id,
    models,
    tier: tierOf(spec, models, freePool),
    freePool,
    baseUrl: fromEnv ?? baseURL ?? spec.defaultBaseUrl ?? null,
    baseUrlEnv: spec.baseUrlEnv,
  }
  if (spec.keyEnv) out.keyEnv = spec.keyEnv
  return out
}

/** A model name, or a models list, that the owner typed (the pool keyword is not a model name). */
function namesModel(chat: ChatConfig): boolean {
  return Boolean(chat.models?.length) || (chat.model !== undefined && chat.model !== FREE_POOL_KEYWORD)
}

/** The chat-level model choice, which reaches the head member and no other. */
function headChoice(chat: ChatConfig): ModelChoice {
  return { model: chat.model, models: chat.models }
}

/**
 * Every member the environment holds, in walking order. Tiered on the
 * zero-config path; CHAIN order when a model was named.
 */
function sortedAvailable(chat: ChatConfig, env: Env): ResolvedMember[] {
  const specs = CHAIN.filter((s) => memberAvailable(s, env))
  const flatten = namesModel(chat)
  // First pass with the head's choice unknown: tiers depend on each member's own models.
  const poolChoice: ModelChoice = chat.model === FREE_POOL_KEYWORD ? { model: FREE_POOL_KEYWORD } : {}
  let members = specs.map((s) => member(s, s.id === 'openrouter' ? poolChoice : {}, env, chat))
  if (!flatten) {
    members = members
      .map((m, i) => ({ m, i }))
      .sort((a, b) => rank(a.m) - rank(b.m) || a.i - b.i)
      .map(({ m }) => m)
  }
  if (flatten && members[0]) {
    // The named model reaches the head only; the head keeps the tier its model earns.
    members[0] = member(providerSpec(members[0].provider), headChoice(chat), env, chat)
  }
  return members
}

function rank(m: ResolvedMember): number {
  // ollama answers last whatever the table says; the rest keep CHAIN order inside their tier.
  return TIER_RANK[m.tier] * 10 + (m.provider === 'ollama' ? 1 : 0)
}

function fromArray(entries: ChainEntry[], chat: ChatConfig, env: Env): ResolvedMember[] {
  const seen = new Set<MemberId>()
  return entries.map((entry, i) => {
    const e = typeof entry === 'string' ? { provider: entry } : entry
    if (seen.has(e.provider)) {
      // Validation refuses this already; a config built in code reaches here unchecked.
      throw new ChainConfigError(`chat.chain[${i}]`, memberTwice(e.provider))
    }
    seen.add(e.provider)
    const own: ModelChoice = { model: 'model' in e ? e.model : undefined, models: 'models' in e ? e.models : undefined }
    const named = own.model !== undefined || own.models !== undefined
    // A model name never crosses providers: chat.model / chat.models reach entry 0 only.
    const choice = named ? own : i === 0 ? headChoice(chat) : {}
    return member(providerSpec(e.provider), choice, env, chat, 'baseURL' in e ? e.baseURL : undefined)
  })
}

export function resolveChain(chat: ChatConfig, env: Env, opts: ResolveOptions = {}): ResolvedChain {
  let members: ResolvedMember[]
  if (Array.isArray(chat.chain)) {
    members = fromArray(chat.chain, chat, env)
  } else if (chat.provider) {
    // A named provider is never overridden, whatever the environment holds, and does not rotate.
    members = [member(providerSpec(chat.provider), headChoice(chat), env, chat)]
  } else {
    const sorted = sortedAvailable(chat, env)
    // false: one provider, chosen once — the head of the very list 'auto' would walk.
    members = chat.chain === 'auto' ? sorted : sorted.slice(0, 1)
  }
  return { members, head: members[0]?.provider ?? null, rationing: rationing(members, opts.budget) }
}

/** The part of the chain the browser may see: no keys, no upstream URLs, one same-origin route per member. */
export function toPublicChain(resolved: ResolvedChain): PublicChainMember[] {
  return resolved.members.map((m) => ({
    provider: m.provider,
    models: [...m.models],
    tier: m.tier,
    route: memberRoute(m.provider),
    freePool: m.freePool,
  }))
}

/** The manifest's chat block: the public chain, its rationing and the answer settings. */
export function publicChat(resolved: ResolvedChain, chat: ChatConfig): Manifest['chat'] {
  return {
    chain: toPublicChain(resolved),
    rationing: resolved.rationing,
    settings: { maxTokens: chat.maxTokens, temperature: chat.temperature, timeouts: { ...chat.timeouts } },
  }
}

/** The same-origin route prefix the proxy serves a member under; adapters append their protocol path. */
export function memberRoute(provider: MemberId): string {
  return `/ai/${provider}`
}
