import { describe, expect, it } from 'vitest'
import { cutText } from './cut.ts'

describe('cutText', () => {
  it('keeps the first n units, and never half of a surrogate pair', () => {
    expect(cutText('abcdef', 3)).toBe('abc')
    // '🎉' is two units: a cut between them keeps neither.
    expect(cutText('ab🎉cd', 3)).toBe('ab')
    expect(cutText('ab🎉cd', 4)).toBe('ab🎉')
    expect(cutText('ab', 5)).toBe('ab')
  })
})
