import { afterAll, describe, expect, it } from 'vitest'
import { ParsePool } from './parse-pool.ts'

describe('the parse thread', () => {
  const pool = new ParsePool(1)
  afterAll(() => pool.close())

  it('parses Markdown, loading the HTML parser for the first page whose HTML holds text', async () => {
    expect(await pool.parse({ file: 'a.md', source: '# A\n\nPlain text.\n', mode: 'source', maxNesting: 64 }, 60_000)).toEqual({
      ok: true,
      page: { nodes: [{ type: 'heading', depth: 1, text: 'A' }, { type: 'text', text: 'Plain text.' }] },
    })
    expect(await pool.parse({ file: 'c.md', source: '# C\n\n<div class="note">\n  <p>Inside <b>HTML</b>.</p>\n</div>\n\nAfter.\n', mode: 'source', maxNesting: 64 }, 60_000)).toEqual({
      ok: true,
      page: { nodes: [{ type: 'heading', depth: 1, text: 'C' }, { type: 'text', text: 'Inside HTML.' }, { type: 'text', text: 'After.' }] },
    })
  })

  it('parses a built HTML page in a thread started for Markdown', async () => {
    const html = '<html><head><title>Guide</title></head><body><main><h1 id="guide">Guide</h1><p>Read me.</p></main></body></html>'
    expect(await pool.parse({ file: 'guide.html', source: html, mode: 'site', maxNesting: 64 }, 60_000)).toMatchObject({
      ok: true,
      page: { metaTitle: 'Guide', nodes: [{ type: 'heading', depth: 1, text: 'Guide', id: 'guide' }, { type: 'text', text: 'Read me.' }] },
    })
  })
})
