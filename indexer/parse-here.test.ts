import { describe, expect, it } from 'vitest'
import { parseHere } from './parse-here.ts'
import { overTime } from './parse-pool.ts'

describe('parseHere', () => {
  it('parses a page on this thread as the parse thread does', async () => {
    const outcome = await parseHere({ file: 'a.mdx', source: '---\ntitle: A\n---\n# Hello\n\nSome <Badge text="new" /> text.', mode: 'source', maxNesting: 64 }, 60_000)
    expect(outcome).toEqual({ ok: true, page: { metaTitle: 'A', nodes: [{ type: 'heading', depth: 1, text: 'Hello' }, { type: 'text', text: 'Some text.' }] } })
  })

  it('stops a parse that outlives its time limit, skips the page for this run only, and parses the next page normally', async () => {
    // Many one-item lists, each closed by a paragraph: seconds of tokenizing, no limit but the clock catches it.
    const manyLists = `# Lists\n\n${'- a\n\nb\n\n'.repeat(200 * 1024)}`
    expect(await parseHere({ file: 'many-lists.md', source: manyLists, mode: 'source', maxNesting: 64 }, 1000)).toEqual({ ok: false, reason: overTime(1000), transient: true })
    expect(await parseHere({ file: 'b.md', source: '# B\n\n- one\n- two\n', mode: 'source', maxNesting: 64 }, 60_000)).toEqual({
      ok: true,
      page: { nodes: [{ type: 'heading', depth: 1, text: 'B' }, { type: 'text', text: 'one' }, { type: 'text', text: 'two' }] },
    })
  })

  it('loads the HTML parser for a page whose HTML holds text, and parses it whole', async () => {
    const outcome = await parseHere({ file: 'c.md', source: '# C\n\n<div class="note">\n  <p>Inside <b>HTML</b>.</p>\n</div>\n\nAfter.\n', mode: 'source', maxNesting: 64 }, 60_000)
    expect(outcome).toEqual({ ok: true, page: { nodes: [{ type: 'heading', depth: 1, text: 'C' }, { type: 'text', text: 'Inside HTML.' }, { type: 'text', text: 'After.' }] } })
  })

  it('refuses a page nesting past the limit before parsing it', async () => {
    const outcome = await parseHere({ file: 'deep.md', source: `${'>'.repeat(100)} deep`, mode: 'source', maxNesting: 64 }, 60_000)
    expect(outcome).toEqual({ ok: false, reason: expect.stringMatching(/^nests 100 levels deep/) })
  })
})
