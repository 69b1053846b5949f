import { describe, expect, it } from 'vitest'
import { CITATION_MARKER, citedNumbers, markerNumbers, matchNumbers, withoutMarkers } from './cited.ts'

describe('citedNumbers', () => {
  it('reads [n], [n, m] and [n][m], within range, never a Markdown link', () => {
    expect(citedNumbers('[2] and [1, 3] and [4](/link) and [9]', 3)).toEqual([1, 2, 3])
    expect(citedNumbers('see [3][1]', 3)).toEqual([1, 3])
    expect(markerNumbers('1, 2')).toEqual([1, 2])
  })

  it('reads the forms models write besides [n]: ranges, footnotes, CJK brackets, semicolons', () => {
    expect(citedNumbers('Both work [2-4].', 8)).toEqual([2, 3, 4])
    expect(citedNumbers('Both work [1–2].', 8)).toEqual([1, 2])
    expect(citedNumbers('Set it first[^5].', 8)).toEqual([5])
    expect(citedNumbers('使用 c.set()【1】【3】。', 8)).toEqual([1, 3])
    expect(citedNumbers('c.set()【2, 6】', 8)).toEqual([2, 6])
    expect(citedNumbers('see [1; 7]', 8)).toEqual([1, 7])
    expect(citedNumbers('see [1, 3-4]', 8)).toEqual([1, 3, 4])
    // A range no one means is read as its two ends, not as a thousand citations.
    expect(markerNumbers('1-999')).toEqual([1, 999])
    expect(markerNumbers('5-2')).toEqual([5, 2])
  })

  it('a marker at the start of text reads the same in every form (the renderer tokenizes there)', () => {
    const leading = new RegExp(`^(?:${CITATION_MARKER.source})`)
    expect(matchNumbers(leading.exec('【2】 rest')!)).toEqual([2])
    expect(matchNumbers(leading.exec('[^3] rest')!)).toEqual([3])
    expect(leading.exec('text 【2】')).toBeNull()
  })

  it('brackets inside code are code, not citations', () => {
    expect(citedNumbers('Read `args[2]` first [1].', 3)).toEqual([1])
    expect(citedNumbers('Like this [3]:\n\n```js\nconst x = list[1] + list[2]\n```\n', 3)).toEqual([3])
    expect(citedNumbers('~~~\nm[2]\n~~~\nand [1]', 3)).toEqual([1])
  })
})

describe('withoutMarkers', () => {
  it('takes every marker form out, and leaves code and Markdown links alone', () => {
    expect(withoutMarkers('Set it [1][2], read it 【3】 [1-2] [^4]. See [docs](/d).')).toBe('Set it, read it. See [docs](/d).')
    expect(withoutMarkers('Use `arr[1]` [2]:\n\n```\nx[3]\n```')).toBe('Use `arr[1]`:\n\n```\nx[3]\n```')
  })
})
