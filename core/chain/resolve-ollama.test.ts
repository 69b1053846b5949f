/**
 * "ollama answers last, whatever the table says": proven against a table that
 * lists ollama first, so the rule cannot pass merely because CHAIN happens to
 * end with it.
 */
import { describe, expect, it, vi } from 'vitest'
import { ChatSchema } from '../config/schema.ts'
import { CHAIN } from '../providers/table.ts'
import { resolveChain } from './resolve.ts'

// Hoisted above the imports by vitest: resolve.ts sees this table.
vi.mock('../providers/table.ts', async (importOriginal) => {
  const real = await importOriginal<typeof import('../providers/table.ts')>()
  const ollama = real.CHAIN.find((s) => s.id === 'ollama')!
  const CHAIN = [ollama, ...real.CHAIN.filter((s) => s.id !== 'ollama')]
  return { ...real, CHAIN, MEMBER_IDS: CHAIN.map((s) => s.id), providerSpec: (id: string) => CHAIN.find((s) => s.id === id)! }
})

describe('ollama last', () => {
  it("answers after every other member in 'auto', even when the table lists it first", () => {
    expect(CHAIN[0]!.id).toBe('ollama')
    const env = { OLLAMA_URL: 'http://127.0.0.1:9', LLAMACPP_URL: 'http://127.0.0.1:9', OPENROUTER_API_KEY: 'k', GROQ_API_KEY: 'k' }
    const order = resolveChain(ChatSchema.parse({ chain: 'auto' }), env).members.map((m) => m.provider)
    expect(order).toEqual(['groq', 'openrouter', 'llamacpp', 'ollama'])
  })

  it('is not the head of chain: false while another own server is set', () => {
    const env = { OLLAMA_URL: 'http://127.0.0.1:9', LLAMACPP_URL: 'http://127.0.0.1:9' }
    expect(resolveChain(ChatSchema.parse({}), env).head).toBe('llamacpp')
  })
})
