import { describe, expect, it } from 'vitest'
import { citedNumbers, markerNumbers } from './cited.ts'

describe('citedNumbers', () => {
  it('reads [n], [n, m] and [n][m], within range, never a Markdown link', () => {
    expect(citedNumbers('[2] and [1, 3] and [4](/link) and [9]', 3)).toEqual([1, 2, 3])
    expect(citedNumbers('see [3][1]', 3)).toEqual([1, 3])
    expect(markerNumbers('1, 2')).toEqual([1, 2])
  })
})
