import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { parseMarkdown } from './markdown.ts'
import { toSections, type Section } from '../sections.ts'

const snippet = (name: string) => readFileSync(new URL(`../../fixtures/snippets/${name}`, import.meta.url), 'utf8')
const sectionsOf = (name: string, slugger: 'vitepress' | 'starlight' = 'vitepress') => {
  const page = parseMarkdown(snippet(name), { mdx: name.endsWith('.mdx') })
  return { page, ...toSections(page, slugger, 'fallback-title') }
}
const find = (sections: Section[], last: string) => sections.find((s) => s.trail.at(-1) === last)

describe('Markdown (hono, VitePress)', () => {
  it('strips Badge components from headings but keeps inline code text', () => {
    const { title, sections } = sectionsOf('hono/accepts.md')
    expect(title).toBe('Accepts Helper')
    const trails = sections.map((s) => s.trail)
    expect(trails).toContainEqual(['Accepts Helper', 'Options', 'header: AcceptHeader'])
    expect(trails).toContainEqual(['Accepts Helper', 'Options', 'match: (accepts: Accept[], config: acceptsConfig) => string'])
    expect(trails).toContainEqual(['Accepts Helper', 'accepts()'])
    expect(JSON.stringify(trails)).not.toMatch(/Badge|required|optional/)
    expect(find(sections, 'header: AcceptHeader')!.anchor).toBe('header-acceptheader')
  })

  it('gives VitePress anchors, keeps code, and keeps ::: container text without the fence', () => {
    const { sections } = sectionsOf('hono/context-excerpt.md')
    const setGet = find(sections, 'set() / get()')!
    expect(setGet.anchor).toBe('set-get')
    expect(setGet.text).toContain("c.set('message', 'Hono is cool!!')")
    const body = find(sections, 'body()')!
    expect(body.text).toContain('Note: When returning text or HTML, it is recommended to use c.text() or c.html().')
    expect(body.text).not.toContain(':::')
    // Text before the first h2 belongs to the page-title section.
    expect(sections[0]!.anchor).toBe('')
    expect(sections[0]!.trail).toEqual(['Context'])
    expect(sections[0]!.text).toMatch(/^The Context object is instantiated/)
  })
})

describe('MDX (astro, Starlight)', () => {
  it('takes the frontmatter title, drops imports and frontmatter, keeps JSX text without tags', () => {
    const { title, sections, page } = sectionsOf('astro/build-with-ai-excerpt.mdx', 'starlight')
    expect(page.fallback).toBeUndefined()
    expect(title).toBe('Building Astro sites with AI tools')
    const all = sections.map((s) => s.text).join('\n')
    expect(all).not.toMatch(/import |i18nReady|<\/?(Tabs|TabItem|Steps)|tableOfContents/)
    // :::tip[What is MCP?] keeps its label and its text.
    const mcp = find(sections, 'Astro Docs MCP Server')!
    expect(mcp.text).toContain('What is MCP?')
    expect(mcp.text).toContain('Model Context Protocol (MCP) is a standardized way')
    // Tab contents (code) are kept; Steps list items are kept.
    expect(find(sections, 'Manual setup')!.text).toContain('"url": "https://mcp.docs.astro.build/mcp"')
    expect(find(sections, 'Warp')!.text).toContain('Open your Warp settings and go to AI > MCP Servers')
    expect(find(sections, 'Manual setup')!.trail).toEqual([
      'Building Astro sites with AI tools', 'Astro Docs MCP Server', 'Installation', 'Manual setup',
    ])
  })

  it('keeps inline-code headings verbatim, with github-slugger anchors', () => {
    const { sections } = sectionsOf('astro/directives-excerpt.mdx', 'starlight')
    const root = find(sections, 'client:visible={{rootMargin}}')!
    expect(root.trail).toEqual(['Template directives reference', 'Client Directives', 'client:visible', 'client:visible={{rootMargin}}'])
    expect(root.anchor).toBe('clientvisiblerootmargin')
    expect(root.text).not.toContain('Since')
  })

  it('falls back to plain Markdown when strict MDX rejects the file, still cleaning it', () => {
    const { page, title, sections } = sectionsOf('broken/stray-brace.mdx', 'starlight')
    expect(page.fallback).toMatch(/not valid MDX/)
    expect(title).toBe('Stray braces')
    const all = sections.map((s) => s.text).join('\n')
    expect(all).toContain('Set the option to {true to enable it.')
    expect(all).toContain('Keep the text of the aside.')
    expect(all).toContain('The value { is how MDX escapes a brace.')
    expect(all).not.toMatch(/import|Aside|an MDX comment/)
  })

  it('reads `{#custom-id}` in MDX headings (escaped the way Docusaurus does) and removes it from the text', () => {
    const page = parseMarkdown('---\ntitle: T\n---\n\n## Hello *there* {#hi}\n\nBody {1 + 1}.\n', { mdx: true })
    expect(page.fallback).toBeUndefined()
    expect(page.nodes[0]).toEqual({ type: 'heading', depth: 2, text: 'Hello there', id: 'hi' })
  })
})

describe('edge cases', () => {
  it('a page of only frontmatter (VitePress home layout) still yields its visible text', () => {
    const page = parseMarkdown('---\ntitle: Home\nhero:\n  tagline: Fast and small\nfeatures:\n  - title: Ultrafast\n    details: Really fast.\n---\n', { mdx: false })
    const { title, sections } = toSections(page, 'vitepress', 'index')
    expect(title).toBe('Home')
    expect(sections[0]!.text).toBe('Fast and small\nUltrafast: Really fast.')
  })

  it('drops raw HTML tags, scripts, styles, comments and GitHub alert markers but keeps their text', () => {
    const md = '# T\n\n<script setup>\nconst x = 1\n</script>\n\n<!-- hidden -->\n\n<div class="x">\n\nInner **md** text\n\n</div>\n\n> [!NOTE]\n> Alert body\n\nPress <kbd>Ctrl</kbd> now.\n'
    expect(parseMarkdown(md, { mdx: false }).nodes.slice(1)).toEqual([
      { type: 'text', text: 'Inner md text' },
      { type: 'text', text: 'Alert body' },
      { type: 'text', text: 'Press Ctrl now.' },
    ])
  })

  it('reports malformed frontmatter as a note and keeps the body', () => {
    const page = parseMarkdown('---\ntitle: [unclosed\n---\n\n# Page\n\nBody text.\n', { mdx: false })
    expect(page.notes?.[0]).toMatch(/frontmatter is not valid YAML/)
    expect(page.nodes).toContainEqual({ type: 'text', text: 'Body text.' })
  })

  it('h5/h6 stay inside their section; a second h1 opens a top-level section', () => {
    const page = parseMarkdown('# Title\n\nintro\n\n## A\n\n##### small\n\nx\n\n# Other\n\ny\n', { mdx: false })
    const { sections } = toSections(page, 'github', 'f')
    expect(sections.map((s) => s.trail)).toEqual([['Title'], ['Title', 'A'], ['Title', 'Other']])
    expect(sections[1]!.text).toBe('small\n\nx')
  })
})
