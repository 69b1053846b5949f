import { fromHtml } from 'hast-util-from-html'
import { selectAll } from 'hast-util-select'
import { toText } from 'hast-util-to-text'
import { describe, expect, it } from 'vitest'
import { ConfigSchema } from '../core/config/schema.ts'
import type { ChunkRecord } from '../core/index/format.ts'
import { sharedPath } from '../fixtures/shared-data.ts'
import { collectChunks } from '../indexer/collect.ts'
import { fileForUrl, overlapWords, renderPages, sectionKey, sectionKeyOfHref, sectionsByUrl } from './render-html.ts'

const HONO = sharedPath('corpora/hono')

async function honoChunks(include: string[]): Promise<ChunkRecord[]> {
  const config = ConfigSchema.parse({ anchors: { slugger: 'vitepress' } })
  const { chunks } = await collectChunks({
    root: HONO,
    mode: 'source',
    include,
    slugger: config.anchors.slugger,
    urls: config.urls,
    chunks: config.chunks,
  })
  return chunks
}

const chunk = (over: Partial<ChunkRecord>): ChunkRecord => ({
  id: 'x',
  path: 'docs/a.md',
  url: '/docs/a',
  anchor: '',
  title: 'A',
  trail: ['A'],
  text: '',
  ...over,
})

describe('renderPages', () => {
  it('gives every chunk of real pages its heading id, and every page its title', async () => {
    const chunks = await honoChunks(['docs/api/exception.md', 'docs/helpers/cookie.md'])
    const pages = renderPages(chunks)
    expect(pages.map((p) => p.path).sort()).toEqual(['docs/api/exception.md', 'docs/helpers/cookie.md'])
    for (const page of pages) {
      const tree = fromHtml(page.html)
      const ids = new Set(selectAll('[id]', tree).map((el) => String(el.properties.id)))
      const mine = chunks.filter((c) => c.path === page.path)
      for (const c of mine.filter((c) => c.anchor)) expect(ids).toContain(c.anchor)
      expect(toText(selectAll('h1', tree)[0]!)).toBe(mine[0]!.title)
    }
  })

  it('writes each heading once and the heading text from the trail', () => {
    const [page] = renderPages([
      chunk({ anchor: 'set-get', trail: ['A', 'set() / get()'], text: 'first window words here' }),
      chunk({ anchor: 'set-get', trail: ['A', 'set() / get()'], text: 'words here then more' }),
      chunk({ anchor: 'deep', trail: ['A', 'set() / get()', 'Deep'], text: 'deep text' }),
    ])
    const tree = fromHtml(page!.html)
    const headings = selectAll('h2, h3', tree).map((h) => [h.tagName, h.properties.id, toText(h)])
    expect(headings).toEqual([
      ['h2', 'set-get', 'set() / get()'],
      ['h3', 'deep', 'Deep'],
    ])
    // The window overlap ("words here") is written once.
    expect(toText(tree).match(/words here/g)).toHaveLength(1)
    expect(toText(tree)).toContain('then more')
  })

  it('escapes markup in chunk text instead of rendering it', () => {
    const [page] = renderPages([chunk({ text: '<script>alert(1)</script> & <b>x</b>' })])
    const tree = fromHtml(page!.html)
    expect(selectAll('script, b', tree)).toHaveLength(0)
    expect(toText(tree)).toContain('<script>alert(1)</script> & <b>x</b>')
  })
})

describe('mapping a peer hit back to path and trail', () => {
  it('resolves pretty URLs with or without trailing slash, index.html and encoded anchors', () => {
    const table = sectionsByUrl([
      chunk({ anchor: 'set-get', trail: ['A', 'set() / get()'] }),
      chunk({ path: 'index.md', url: '/', title: 'Home', trail: ['Home'] }),
    ])
    expect(table.get(sectionKeyOfHref('/docs/a/#set-get'))).toEqual({ path: 'docs/a.md', trail: ['A', 'set() / get()'] })
    expect(table.get(sectionKeyOfHref('/docs/a/index.html#set-get'))?.path).toBe('docs/a.md')
    expect(table.get(sectionKeyOfHref('/docs/a'))).toEqual({ path: 'docs/a.md', trail: ['A'] })
    expect(table.get(sectionKeyOfHref('/'))).toEqual({ path: 'index.md', trail: ['Home'] })
    expect(sectionKeyOfHref('/x/#caf%C3%A9')).toBe(sectionKey('/x', 'café'))
  })

  it('puts each page where a static host serves its URL', () => {
    expect(fileForUrl('/docs/api/context')).toBe('docs/api/context/index.html')
    expect(fileForUrl('/guides/')).toBe('guides/index.html')
    expect(fileForUrl('/')).toBe('index.html')
  })

  it('counts the overlap between consecutive windows', () => {
    expect(overlapWords('a b c d', 'c d e')).toBe(2)
    expect(overlapWords('a b', 'c d')).toBe(0)
  })
})
