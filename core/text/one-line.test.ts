import { describe, expect, it } from 'vitest'
import { oneLine, oneLineClipped } from './one-line.ts'

describe('oneLine', () => {
  it('makes every run of white space, line breaks and tabs included, one space, and trims the ends', () => {
    expect(oneLine('  Install\n\tthe   package\r\n now  ')).toBe('Install the package now')
  })
})

describe('oneLineClipped', () => {
  it('keeps a text that fits as it is, on one line', () => {
    expect(oneLineClipped('a\nb', 3)).toBe('a b')
  })
  it('cuts a longer text to the limit, the ellipsis counted', () => {
    const clipped = oneLineClipped('abcdef', 4)
    expect(clipped).toBe('abc…')
    expect(clipped).toHaveLength(4)
  })
  it('never cuts inside an emoji: the ellipsis follows whole characters', () => {
    expect(oneLineClipped('abc🎉def', 5)).toBe('abc…')
  })
})
