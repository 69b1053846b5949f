import { describe, expect, it } from 'vitest'
import { hasLoneSurrogate } from './lone-surrogate.ts'

describe('hasLoneSurrogate', () => {
  it('passes whole characters, pairs included', () => {
    for (const text of ['', 'plain', 'café', '𝒳 and 😀 at the end 😀', '😀😀']) expect(hasLoneSurrogate(text)).toBe(false)
  })

  it('finds a high half without its low half, anywhere', () => {
    const high = '😀'.slice(0, 1)
    for (const text of [high, `a${high}b`, `ends in ${high}`, `${high}😀`]) expect(hasLoneSurrogate(text)).toBe(true)
  })

  it('finds a low half without its high half', () => {
    for (const text of ['\uDE00', 'x\uDE00', '\uDE00\uD83D\uDE00']) expect(hasLoneSurrogate(text)).toBe(true)
  })

  it('agrees with the platform where it has isWellFormed', () => {
    const samples = ['ok', '\uD83D', '😀', 'a\uDE00', '\uD83D\uDE00\uDE00']
    const wellFormed = (String.prototype as { isWellFormed?: (this: string) => boolean }).isWellFormed
    if (!wellFormed) return
    for (const text of samples) expect(hasLoneSurrogate(text)).toBe(!wellFormed.call(text))
  })
})
