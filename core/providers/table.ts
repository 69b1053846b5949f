/**
 * The provider table (CHAIN). Its order answers "what does one key cover":
 * embed-capable services first. It is the order for choosing one provider;
 * ordering a set of them is the chain resolver's job (tiers), not this table's.
 *
 * Everything that needs to know a provider (the chain resolver, the adapters,
 * the proxy, `doctor`, the fake providers in tests) reads it from here.
 */

import type { WireProtocol } from '../protocols/types.ts'

export type MemberId =
  | 'openai'
  | 'gemini'
  | 'mistral'
  | 'together'
  | 'anthropic'
  | 'groq'
  | 'openrouter'
  | 'deepseek'
  | 'custom'
  | 'llamacpp'
  | 'ollama'

export interface ProviderSpec {
  id: MemberId
  /** Environment variable holding the key; own servers may have none. */
  keyEnv?: string
  /** Environment variable that overrides (or, for own servers, supplies) the upstream base URL. */
  baseUrlEnv: string
  /** Upstream base URL when the environment names none; own servers have no default. */
  defaultBaseUrl?: string
  /** The wire protocol it speaks (core/protocols): paths, key header, body fields. */
  protocol: WireProtocol
  /** Whether the service offers an embeddings endpoint we can use. */
  embeds: boolean
  /** Chat model used when the config names none. */
  defaultModel: string
  /** Embedding model used when this member embeds and the config names none. */
  defaultEmbedModel?: string
  /** A server the site owner runs: sorts into the last tier. */
  ownServer: boolean
}

export const CHAIN: readonly ProviderSpec[] = [
  {
    id: 'openai',
    keyEnv: 'OPENAI_API_KEY',
    baseUrlEnv: 'OPENAI_BASE_URL',
    defaultBaseUrl: 'https://api.openai.com/v1',
    protocol: 'openai',
    embeds: true,
    defaultModel: 'gpt-4o-mini',
    defaultEmbedModel: 'text-embedding-3-small',
    ownServer: false,
  },
  {
    id: 'gemini',
    keyEnv: 'GEMINI_API_KEY',
    baseUrlEnv: 'GEMINI_BASE_URL',
    defaultBaseUrl: 'https://generativelanguage.googleapis.com/v1beta',
    protocol: 'gemini',
    embeds: true,
    defaultModel: 'gemini-2.0-flash',
    defaultEmbedModel: 'text-embedding-004',
    ownServer: false,
  },
  {
    id: 'mistral',
    keyEnv: 'MISTRAL_API_KEY',
    baseUrlEnv: 'MISTRAL_BASE_URL',
    defaultBaseUrl: 'https://api.mistral.ai/v1',
    protocol: 'openai',
    embeds: true,
    defaultModel: 'mistral-small-latest',
    defaultEmbedModel: 'mistral-embed',
    ownServer: false,
  },
  {
    id: 'together',
    keyEnv: 'TOGETHER_API_KEY',
    baseUrlEnv: 'TOGETHER_BASE_URL',
    defaultBaseUrl: 'https://api.together.xyz/v1',
    protocol: 'openai',
    embeds: true,
    defaultModel: 'meta-llama/Llama-3.3-70B-Instruct-Turbo',
    defaultEmbedModel: 'BAAI/bge-base-en-v1.5',
    ownServer: false,
  },
  {
    id: 'anthropic',
    keyEnv: 'ANTHROPIC_API_KEY',
    baseUrlEnv: 'ANTHROPIC_BASE_URL',
    defaultBaseUrl: 'https://api.anthropic.com/v1',
    protocol: 'anthropic',
    embeds: false,
    defaultModel: 'claude-3-5-haiku-latest',
    ownServer: false,
  },
  {
    id: 'groq',
    keyEnv: 'GROQ_API_KEY',
    baseUrlEnv: 'GROQ_BASE_URL',
    defaultBaseUrl: 'https://api.groq.com/openai/v1',
    protocol: 'openai',
    embeds: false,
    defaultModel: 'llama-3.3-70b-versatile',
    ownServer: false,
  },
  {
    id: 'openrouter',
    keyEnv: 'OPENROUTER_API_KEY',
    baseUrlEnv: 'OPENROUTER_BASE_URL',
    defaultBaseUrl: 'https://openrouter.ai/api/v1',
    protocol: 'openai',
    embeds: false,
    // OpenRouter's own router over its free tier: one id, one request.
    defaultModel: 'openrouter/free',
    ownServer: false,
  },
  {
    id: 'deepseek',
    keyEnv: 'DEEPSEEK_API_KEY',
    baseUrlEnv: 'DEEPSEEK_BASE_URL',
    defaultBaseUrl: 'https://api.deepseek.com/v1',
    protocol: 'openai',
    embeds: false,
    defaultModel: 'deepseek-chat',
    ownServer: false,
  },
  {
    id: 'custom',
    keyEnv: 'DOCPILOT_CUSTOM_KEY',
    baseUrlEnv: 'DOCPILOT_CUSTOM_URL',
    protocol: 'openai',
    embeds: true,
    defaultModel: 'default',
    ownServer: true,
  },
  {
    id: 'llamacpp',
    baseUrlEnv: 'LLAMACPP_URL',
    protocol: 'openai',
    embeds: false,
    defaultModel: 'default',
    ownServer: true,
  },
  {
    id: 'ollama',
    baseUrlEnv: 'OLLAMA_URL',
    protocol: 'ollama',
    embeds: true,
    defaultModel: 'llama3.2',
    defaultEmbedModel: 'nomic-embed-text',
    ownServer: true,
  },
] as const

export const MEMBER_IDS: readonly MemberId[] = CHAIN.map((p) => p.id)

export function providerSpec(id: MemberId): ProviderSpec {
  const spec = CHAIN.find((p) => p.id === id)
  if (!spec) throw new Error(`Unknown provider "${id}"`)
  return spec
}

export function isMemberId(value: string): value is MemberId {
  return (MEMBER_IDS as readonly string[]).includes(value)
}
