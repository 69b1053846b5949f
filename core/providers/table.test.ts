import { describe, expect, it } from 'vitest'
import { CHAIN, isMemberId, providerSpec } from './table.ts'

describe('provider table', () => {
  it('keeps openrouter at position 7, right after groq', () => {
    const ids = CHAIN.map((p) => p.id)
    expect(ids.indexOf('openrouter')).toBe(6)
    expect(ids[5]).toBe('groq')
  })

  it('lists embed-capable hosted services before the chat-only ones', () => {
    const hosted = CHAIN.filter((p) => !p.ownServer)
    const firstChatOnly = hosted.findIndex((p) => !p.embeds)
    expect(hosted.slice(firstChatOnly).every((p) => !p.embeds)).toBe(true)
  })

  it('puts the owner-run servers last, ollama at the very end', () => {
    const own = CHAIN.map((p, i) => (p.ownServer ? i : -1)).filter((i) => i >= 0)
    expect(own).toEqual([8, 9, 10])
    expect(CHAIN.at(-1)?.id).toBe('ollama')
  })

  it('gives every hosted member a key variable and a default upstream', () => {
    for (const p of CHAIN.filter((s) => !s.ownServer)) {
      expect(p.keyEnv, p.id).toMatch(/^[A-Z_]+_API_KEY$/)
      expect(p.defaultBaseUrl, p.id).toMatch(/^https:\/\//)
    }
  })

  it('looks members up by id and rejects unknown ones', () => {
    expect(providerSpec('anthropic').protocol).toBe('anthropic')
    expect(isMemberId('groq')).toBe(true)
    expect(isMemberId('grok')).toBe(false)
    expect(() => providerSpec('nope' as never)).toThrow(/Unknown provider/)
  })
})
