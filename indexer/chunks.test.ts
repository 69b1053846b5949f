import { describe, expect, it } from 'vitest'
import { toChunks, windowText } from './chunks.ts'
import { toSections } from './sections.ts'
import { parseHtmlPage } from './sources/html.ts'

const chunking = { maxWords: 4, overlapWords: 1 }

describe('toChunks', () => {
  it('gives sections that share an anchor (headings a built page left without id) distinct ids, each citing that anchor', () => {
    const html = '<main><h1>Guide</h1><h2 id="setup">Setup</h2><p>one</p><h3>Step</h3><p>two</p><h3>Other step</h3><p>three</p></main>'
    const chunks = toChunks(toSections(parseHtmlPage(html), 'github', 'guide'), { path: 'guide.html', url: '/guide/' }, chunking)
    expect(chunks.map((c) => c.anchor)).toEqual(['setup', 'setup', 'setup'])
    expect(new Set(chunks.map((c) => c.id)).size).toBe(3)
    expect(chunks[0]!.id).toBe('guide.html#setup')
  })

  it('cuts a long section into overlapping windows that keep its anchor', () => {
    expect(windowText('a b c d e f g', chunking)).toEqual(['a b c d', 'd e f g'])
    const html = '<main><h1>T</h1><h2 id="s">S</h2><p>a b c d e f g</p></main>'
    const chunks = toChunks(toSections(parseHtmlPage(html), 'github', 't'), { path: 't.html', url: '/t/' }, chunking)
    expect(chunks.map((c) => [c.id, c.anchor])).toEqual([['t.html#s~0', 's'], ['t.html#s~1', 's']])
  })
})
