import { describe, expect, it } from 'vitest'
import { ChatSchema, type ChatConfig } from '../config/schema.ts'
import { CHAIN, providerSpec, type MemberId } from '../providers/table.ts'
import { FREE_ROUTER, DEFAULT_FREE_MODELS } from '../ladder/free-pool.ts'
import { autoEmbedMember } from './embed.ts'
import { badBaseUrl, ChainConfigError, resolveChain, toPublicChain } from './resolve.ts'
import { FREE_ONLY_NOTE, MIXED_CHAIN_NOTE } from './rationing.ts'

const chat = (input: Record<string, unknown> = {}): ChatConfig => ChatSchema.parse(input)

/** An environment holding a key (hosted) or a base URL (own server) for each named member. */
function envFor(...ids: MemberId[]): Record<string, string> {
  const env: Record<string, string> = {}
  for (const id of ids) {
    const spec = CHAIN.find((s) => s.id === id)!
    if (spec.ownServer) env[spec.baseUrlEnv] = `http://127.0.0.1:9/${id}`
    else env[spec.keyEnv!] = `secret-${id}`
  }
  return env
}

const ALL = CHAIN.map((s) => s.id)
const order = (c: ChatConfig, env: Record<string, string>) => resolveChain(c, env).members.map((m) => m.provider)

describe('chain: false (the default)', () => {
  it('resolves to one provider even when the environment holds several', () => {
    expect(chat().chain).toBe(false)
    expect(order(chat(), envFor('openai', 'anthropic', 'groq'))).toEqual(['openai'])
  })

  it('with one key resolves byte-identically to chain: auto, for every member of the table', () => {
    for (const id of ALL) {
      const env = envFor(id)
      const a = JSON.stringify(resolveChain(chat({ chain: false }), env))
      const b = JSON.stringify(resolveChain(chat({ chain: 'auto' }), env))
      expect(b, id).toBe(a)
      expect(JSON.parse(a).members).toHaveLength(1)
    }
  })

  it('picks the head from the tiered list: a billed key leads a free OpenRouter key', () => {
    // openrouter sits above deepseek in the table, but the free tier answers below every billed account.
    expect(order(chat(), envFor('openrouter', 'deepseek'))).toEqual(['deepseek'])
    expect(order(chat(), envFor('openrouter', 'ollama'))).toEqual(['openrouter'])
  })

  it('resolves to no member when the environment holds nothing', () => {
    const r = resolveChain(chat(), {})
    expect(r.members).toEqual([])
    expect(r.head).toBeNull()
  })
})

describe("chain: 'auto'", () => {
  it('takes every member the environment holds, in tiers: billed, free pool, own server (ollama last)', () => {
    expect(order(chat({ chain: 'auto' }), envFor(...ALL))).toEqual([
      'openai',
      'gemini',
      'mistral',
      'together',
      'anthropic',
      'groq',
      'deepseek',
      'openrouter',
      'custom',
      'llamacpp',
      'ollama',
    ])
  })

  it('keeps CHAIN order inside each tier and ignores members without a key or base URL', () => {
    expect(order(chat({ chain: 'auto' }), envFor('ollama', 'groq', 'openrouter', 'gemini'))).toEqual([
      'gemini',
      'groq',
      'openrouter',
      'ollama',
    ])
    const env = { ...envFor('anthropic'), OPENAI_BASE_URL: 'http://x' } // a base URL alone is no key
    expect(order(chat({ chain: 'auto' }), env)).toEqual(['anthropic'])
  })

  it('labels the tiers and gives OpenRouter its router id when no model is named', () => {
    const r = resolveChain(chat({ chain: 'auto' }), envFor('openai', 'openrouter', 'llamacpp'))
    expect(r.members.map((m) => [m.provider, m.tier, m.models])).toEqual([
      ['openai', 'billed', ['gpt-4o-mini']],
      ['openrouter', 'free', [FREE_ROUTER]],
      ['llamacpp', 'own', ['default']],
    ])
  })

  it('naming a model flattens the tiers to CHAIN order and the model reaches the head only', () => {
    const r = resolveChain(chat({ chain: 'auto', model: 'anthropic/claude-sonnet-4' }), envFor('openrouter', 'deepseek', 'ollama'))
    expect(r.members.map((m) => m.provider)).toEqual(['openrouter', 'deepseek', 'ollama'])
    expect(r.members.map((m) => m.models)).toEqual([['anthropic/claude-sonnet-4'], ['deepseek-chat'], ['llama3.2']])
    // A model you named keeps its provider billed.
    expect(r.members[0]!.tier).toBe('billed')
  })

  it('a chat.models list flattens the tiers too, and reaches the head only', () => {
    const r = resolveChain(chat({ chain: 'auto', models: ['m1', 'm2'] }), envFor('openrouter', 'groq'))
    expect(r.members.map((m) => [m.provider, m.models])).toEqual([
      ['groq', ['m1', 'm2']],
      ['openrouter', [FREE_ROUTER]],
    ])
  })

  it('a named provider is never overridden and does not rotate, whatever the environment holds', () => {
    const r = resolveChain(chat({ chain: 'auto', provider: 'groq' }), envFor(...ALL))
    expect(r.members.map((m) => m.provider)).toEqual(['groq'])
    // Even with no key for it in this environment.
    expect(order(chat({ provider: 'mistral' }), envFor('openai'))).toEqual(['mistral'])
  })

  it('the head is chain[0], and embed: auto follows it (or the offline default when it cannot embed)', () => {
    const r = resolveChain(chat({ chain: 'auto' }), envFor('anthropic', 'ollama', 'openrouter'))
    expect(r.head).toBe('anthropic')
    expect(r.head).toBe(r.members[0]!.provider)
    expect(autoEmbedMember(r)).toBeNull() // anthropic has no embeddings
    const g = resolveChain(chat({ chain: 'auto' }), envFor('groq', 'gemini', 'openai'))
    expect(autoEmbedMember(g)?.provider).toBe('openai')
    // The sort moved openrouter past nothing embeddable; ollama embeds but sits last: auto does not chase it.
    expect(autoEmbedMember(resolveChain(chat({ chain: 'auto' }), envFor('groq', 'ollama')))).toBeNull()
  })
})

describe('an explicit chain array', () => {
  it('is walked exactly as written, each entry with its own model, baseURL and models', () => {
    const c = chat({
      chain: [
        { provider: 'ollama', baseURL: 'http://localhost:11434' },
        { provider: 'openai', models: ['gpt-4o-mini', 'gpt-4o'] },
        'openrouter',
        { provider: 'groq', model: 'llama-3.3-70b-versatile' },
      ],
    })
    const r = resolveChain(c, {})
    expect(r.members.map((m) => [m.provider, m.models, m.tier])).toEqual([
      ['ollama', ['llama3.2'], 'own'],
      ['openai', ['gpt-4o-mini', 'gpt-4o'], 'billed'],
      ['openrouter', [FREE_ROUTER], 'free'],
      ['groq', ['llama-3.3-70b-versatile'], 'billed'],
    ])
    expect(r.members[0]!.baseUrl).toBe('http://localhost:11434')
  })

  it('gives chat.model to the first entry only', () => {
    const r = resolveChain(chat({ model: 'gpt-4o', chain: ['openai', 'groq'] }), {})
    expect(r.members.map((m) => m.models)).toEqual([['gpt-4o'], ['llama-3.3-70b-versatile']])
  })

  it('refuses a member listed twice, naming the entry: in the schema, and in a config built in code that skipped it', () => {
    expect(() => chat({ chain: ['openai', 'groq', { provider: 'openai', model: 'x' }] })).toThrow(/appears twice/)
    const unchecked = { ...chat(), chain: ['openai', 'groq', { provider: 'openai', model: 'x' }] } as ChatConfig
    expect(() => resolveChain(unchecked, {})).toThrow(ChainConfigError)
    expect(() => resolveChain({ ...chat(), chain: ['openai', 'openai'] } as ChatConfig, {})).toThrow(/chat\.chain\[1\]/)
  })
})

describe('the free pool', () => {
  it("model: 'free' opts OpenRouter into the ordered pool of ten: the router first, then nine free ids", () => {
    const r = resolveChain(chat({ provider: 'openrouter', model: 'free' }), envFor('openrouter'))
    const m = r.members[0]!
    expect(m.freePool).toBe(true)
    expect(m.models).toHaveLength(10)
    expect(m.models[0]).toBe(FREE_ROUTER)
    expect(m.models.slice(1)).toEqual(DEFAULT_FREE_MODELS)
  })

  it('chat.freeModels replaces the explicit ids behind the router', () => {
    const r = resolveChain(chat({ provider: 'openrouter', model: 'free', freeModels: ['a:free', 'b:free'] }), {})
    expect(r.members[0]!.models).toEqual([FREE_ROUTER, 'a:free', 'b:free'])
  })

  it("OpenRouter with no model named is one id (openrouter/free), not the pool", () => {
    const m = resolveChain(chat({ provider: 'openrouter' }), {}).members[0]!
    expect(m.models).toEqual([FREE_ROUTER])
    expect(m.freePool).toBe(false)
  })
})

describe('rationing', () => {
  it('a mixed chain turns per-day rationing off and says so in words', () => {
    const r = resolveChain(chat({ chain: 'auto' }), envFor('openai', 'openrouter'))
    expect(r.rationing).toEqual({ enabled: false, note: MIXED_CHAIN_NOTE })
    expect(MIXED_CHAIN_NOTE).toContain("once the free tier's day is spent, questions rotate to the billed member and are billed")
  })

  it('budget.dailyLimit brings rationing back with one ceiling; an unmixed chain keeps it', () => {
    const env = envFor('openai', 'openrouter')
    expect(resolveChain(chat({ chain: 'auto' }), env, { budget: { dailyLimit: 200 } }).rationing).toEqual({ enabled: true, dailyLimit: 200 })
    expect(resolveChain(chat({ chain: 'auto' }), envFor('openrouter', 'ollama')).rationing).toEqual({ enabled: true })
  })

  it("a free tier alone rations the site to the free tier's day, which budget.dailyLimit overrides", () => {
    const env = envFor('openrouter')
    expect(resolveChain(chat({ chain: 'auto' }), env).rationing).toEqual({ enabled: true, dailyLimit: 50, note: FREE_ONLY_NOTE })
    expect(resolveChain(chat({ provider: 'openrouter', model: 'free' }), env).rationing.dailyLimit).toBe(50)
    expect(resolveChain(chat({ chain: 'auto' }), env, { budget: { dailyLimit: 1000 } }).rationing).toEqual({ enabled: true, dailyLimit: 1000 })
    // A model named on OpenRouter is billed: no free-tier ceiling.
    expect(resolveChain(chat({ provider: 'openrouter', model: 'anthropic/claude-sonnet-4' }), env).rationing).toEqual({ enabled: true })
  })
})

describe('the public projection', () => {
  it('carries members, models, tiers and same-origin routes, never a key or an upstream URL', () => {
    const env = envFor(...ALL)
    const pub = toPublicChain(resolveChain(chat({ chain: 'auto' }), env))
    expect(pub.map((m) => m.route)).toEqual(pub.map((m) => `/ai/${m.provider}`))
    const text = JSON.stringify(pub)
    for (const value of Object.values(env)) expect(text).not.toContain(value)
    expect(text).not.toMatch(/_API_KEY|_URL|https?:/)
  })
})

describe('a base URL variable that cannot be used', () => {
  it('names the variable and the fix, never the value: no scheme, or a user name and password (fetch will not send those, and its error would show them)', () => {
    expect(badBaseUrl(providerSpec('ollama'), { OLLAMA_URL: 'localhost:11434' })).toBe(
      'OLLAMA_URL is not an http(s) URL; write it with its scheme, e.g. http://127.0.0.1:11434 (the value is not shown here).',
    )
    const custom = badBaseUrl(providerSpec('custom'), { DOCPILOT_CUSTOM_URL: 'https://admin:s3cret-pw@llm.internal/v1' })
    expect(custom).toBe('DOCPILOT_CUSTOM_URL holds a user name or password, which fetch will not send from a URL: remove it, and put the key in DOCPILOT_CUSTOM_KEY (the value is not shown here).')
    expect(badBaseUrl(providerSpec('ollama'), { OLLAMA_URL: 'http://admin@10.0.0.5:11434' })).toBe('OLLAMA_URL holds a user name or password, which fetch will not send from a URL: remove it (the value is not shown here).')
    expect(badBaseUrl(providerSpec('custom'), { DOCPILOT_CUSTOM_URL: 'https://llm.internal/v1' })).toBeUndefined()
  })
})
