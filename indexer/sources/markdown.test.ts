import { readFileSync } from 'node:fs'
import { beforeAll, describe, expect, it } from 'vitest'
import { textBlocks } from '../../core/text/blocks.ts'
import { parseMarkdown } from './markdown.ts'
import { loadHtmlParser } from './html-text.ts'
import { toSections, type Section } from '../sections.ts'

// parseMarkdown is called directly here, as the parsers call it once the HTML parser is loaded.
beforeAll(() => loadHtmlParser())

const snippet = (name: string) => readFileSync(new URL(`../../fixtures/snippets/${name}`, import.meta.url), 'utf8')
const sectionsOf = (name: string, slugger: 'vitepress' | 'starlight' | 'docusaurus' | 'github' = 'vitepress') => {
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
    const { title, sections } = sectionsOf('astro/build-with-ai-excerpt.mdx', 'starlight')
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

  it('reads MDX that strict MDX would reject (a stray brace, a bare <) as text, still cleaning it', () => {
    const { title, sections } = sectionsOf('broken/stray-brace.mdx', 'starlight')
    expect(title).toBe('Stray braces')
    const all = sections.map((s) => s.text).join('\n')
    expect(all).toContain('Set the option to {true to enable it.')
    expect(all).toContain('Keep the text of the aside.')
    expect(all).toContain('The value { is how MDX escapes a brace.')
    expect(all).not.toMatch(/import|Aside|an MDX comment/)
  })

  it('reads `{#custom-id}` in MDX headings (escaped the way Docusaurus does) and removes it from the text', () => {
    const page = parseMarkdown('---\ntitle: T\n---\n\n## Hello *there* {#hi}\n\nBody {1 + 1}.\n', { mdx: true })
    expect(page.nodes[0]).toEqual({ type: 'heading', depth: 2, text: 'Hello there', id: 'hi' })
  })
})

describe('titles and trails as readers see them (several generators)', () => {
  it('VitePress: badge text, with or without children, never reaches a trail', () => {
    const { title, sections } = sectionsOf('vitepress/default-theme-badge.md')
    expect(title).toBe('Badge')
    const trails = sections.map((s) => s.trail)
    expect(trails).toContainEqual(['Badge', 'Usage', 'Title'])
    expect(trails).toContainEqual(['Badge', 'Custom Children', 'Title'])
    expect(trails).toContainEqual(['Badge', '<Badge>'])
    expect(JSON.stringify(trails)).not.toMatch(/custom element|default|beta|deprecated|1\.9/)
    expect(find(sections, 'Custom Children')!.text).toContain('which will be displayed in the badge')
  })

  it('VitePress: a badge\'s children stay out of the trail but are in the anchor, as in the built page', () => {
    // VitePress 1.6 renders `### Title <Badge type="info">custom element</Badge>` as <h3 id="title-custom-element">.
    const { sections } = sectionsOf('vitepress/default-theme-badge.md')
    const custom = sections[sections.findIndex((s) => s.trail.at(-1) === 'Custom Children') + 1]!
    expect(custom).toMatchObject({ anchor: 'title-custom-element', trail: ['Badge', 'Custom Children', 'Title'] })
    expect(sections.filter((s) => s.trail.at(-2) === 'Usage').map((s) => s.anchor)).toEqual(['title', 'title-1', 'title-2', 'title-3'])
  })

  it('VitePress: a <Version> or <CRoot /> component in a heading is dropped, children and all', () => {
    const md = '---\ntitle: experimental | Config\n---\n\n# experimental <CRoot />\n\n## experimental.fsModuleCache <Version type="experimental">4.0.11</Version> {#experimental-fsmodulecache}\n\n- **Type:** `boolean`\n'
    const { title, sections } = toSections(parseMarkdown(md, { mdx: false }), 'vitepress', 'experimental')
    expect(title).toBe('experimental')
    expect(sections[1]).toMatchObject({ anchor: 'experimental-fsmodulecache', trail: ['experimental', 'experimental.fsModuleCache'] })
  })

  it('MDX: components in headings are dropped the same way (JSX elements, not raw HTML)', () => {
    const md = '---\ntitle: API\n---\n\n## render() <Badge variant="tip">New</Badge>\n\ntext\n\n## <code>hydrate()</code> <Since v="2.1" />\n\nmore\n'
    const { sections } = toSections(parseMarkdown(md, { mdx: true }), 'github', 'api')
    expect(sections.map((s) => s.trail)).toEqual([['API'], ['API', 'render()'], ['API', 'hydrate()']])
    // Astro's and Docusaurus's ids do count a component's children: `render() New`.
    expect(sections.map((s) => s.anchor)).toEqual(['', 'render-new', 'hydrate'])
  })

  it('Docusaurus: the H1 is the title, `{/* #id */}` comments and <APITable> wrappers stay out of trails', () => {
    const { title, sections } = sectionsOf('docusaurus/plugin-svgr.mdx', 'docusaurus')
    expect(title).toBe('📦 plugin-svgr')
    expect(sections.map((s) => s.trail)).toEqual([
      ['📦 plugin-svgr'],
      ['📦 plugin-svgr', 'Installation'],
      ['📦 plugin-svgr', 'Configuration'],
      ['📦 plugin-svgr', 'Configuration', 'Example configuration'],
    ])
    expect(find(sections, 'Configuration')!.text).toContain('svgrConfig')
    // `### Example configuration {/* #ex-config */}`: Docusaurus writes id="ex-config".
    expect(sections.map((s) => s.anchor)).toEqual(['', 'installation', 'configuration', 'ex-config'])
  })

  it('plain Markdown: with no # H1 and no frontmatter title, the first heading is the title (not the HTML banner, not the file name)', () => {
    const { title, sections } = toSections(parseMarkdown(snippet('plain/banner-readme.md'), { mdx: false }), 'github', 'banner-readme')
    expect(title).toBe('Reply')
    expect(sections.map((s) => [s.anchor, s.trail])).toEqual([
      ['', ['Reply']],
      ['options', ['Reply', 'Options']],
      ['reply-with-a-file', ['Reply', 'Reply with a file']],
    ])
    expect(sections[0]!.text).toContain('Send a message back to the conversation')
  })

  it('a frontmatter title repeated as the first heading is the title once, not a section under itself', () => {
    const { title, sections } = sectionsOf('plain/title-repeated.md', 'github')
    expect(title).toBe('Deploying')
    expect(sections.map((s) => s.trail)).toEqual([['Deploying'], ['Deploying', 'Deploying to a CDN']])
    expect(sections[0]!.text).toBe('Build the site, then upload the output folder.')
  })

  it('the file name is the title only when the page has no heading at all', () => {
    const { title, sections } = toSections(parseMarkdown('Just a paragraph.\n', { mdx: false }), 'github', 'notes')
    expect(title).toBe('notes')
    expect(sections[0]!.trail).toEqual(['notes'])
  })
})

describe('text as readers read it', () => {
  it('keeps words joined by a colon (`JSON:API`, `:date`), which are not directives', () => {
    const page = parseMarkdown('## Drupal JSON:API URL structure\n\nThe URL "/entry/:date/:id" on localhost:4321.\n', { mdx: true })
    expect(page.nodes).toEqual([
      { type: 'heading', depth: 2, text: 'Drupal JSON:API URL structure' },
      { type: 'text', text: 'The URL "/entry/:date/:id" on localhost:4321.' },
    ])
  })

  it("indexes a Twoslash block as the page shows it (hono's docs): no hidden set-up, no cut marker; other blocks as written", () => {
    const fence = (info: string) => `\`\`\`${info}\nimport { Hono } from 'hono'\nconst app = new Hono()\n// ---cut---\napp.get('/', (c) => c.text('Hi'))\n\`\`\`\n`
    expect(parseMarkdown(`# A\n\n${fence('ts twoslash')}`, { mdx: false }).nodes.at(-1)).toEqual({ type: 'text', text: "app.get('/', (c) => c.text('Hi'))" })
    expect(parseMarkdown(`# A\n\n${fence('ts')}`, { mdx: false }).nodes.at(-1)!.text).toContain('// ---cut---')
  })

  it('reads Markdown inside a component that opens a line in MDX (it is JSX, not an HTML block)', () => {
    const page = parseMarkdown('<details>\n<summary>**Why use `.get()`?**</summary>\n\nBecause.\n</details>\n', { mdx: true })
    expect(page.nodes.map((n) => n.text)).toEqual(['Why use .get()?', 'Because.'])
  })

  it('keeps a Starlight aside title (`:::tip[Title]`) without its brackets', () => {
    const page = parseMarkdown(':::tip[What is MCP?]\nA protocol.\n:::\n', { mdx: true })
    expect(page.nodes).toEqual([{ type: 'text', text: 'What is MCP? A protocol.' }])
  })

  it('keeps a GFM footnote\'s text and drops its markers, not a `[^…]` in code', () => {
    const page = parseMarkdown('A claim[^1] about `[^a-z]`.\n\n[^1]: The source.\n', { mdx: false })
    expect(page.nodes).toEqual([
      { type: 'text', text: 'A claim about [^a-z].' },
      { type: 'text', text: 'The source.' },
    ])
  })

  it("keeps a one-word footnote's text (a URL), which is no link definition, and reads no `^1` where it is cited", () => {
    for (const mdx of [false, true]) {
      const page = parseMarkdown('## Title[^1]\n\nA claim[^1].\n\n[^1]: https://example.com/source\n', { mdx })
      expect(page.nodes.map((n) => n.text)).toEqual(['Title', 'A claim.', 'https://example.com/source'])
    }
  })

  it('decodes character references in text, not in code', () => {
    const page = parseMarkdown('a &lt;b&gt; &amp; &middot; `&lt;`\n', { mdx: false })
    expect(page.nodes).toEqual([{ type: 'text', text: 'a <b> & · &lt;' }])
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

  it('reads frontmatter with YAML 1.2 core types: a date or yes/no title stays the text written', () => {
    expect(parseMarkdown('---\ntitle: 2024-01-01\n---\n\nBody.\n', { mdx: false }).metaTitle).toBe('2024-01-01')
    expect(parseMarkdown('---\ntitle: yes\ndescription: |\n  Two\n  lines\n---\n\nBody.\n', { mdx: false })).toMatchObject({ metaTitle: 'yes', description: 'Two\nlines' })
  })

  it('makes runs of spaces and tabs one space, in headings, text and cells, and a paragraph one line', () => {
    const md = '# A  \t heading\n\nWide \t gaps,\nspace before a break \nand `code\tspan` after.\n\n| a  b | c\t\td |\n| - | - |\n'
    expect(parseMarkdown(md, { mdx: false }).nodes).toEqual([
      // The id keeps the spacing as written: Astro and Docusaurus make the heading #a---heading.
      { type: 'heading', depth: 1, text: 'A heading', parts: [{ kind: 'text', text: 'A  \t heading' }] },
      { type: 'text', text: 'Wide gaps, space before a break and code span after.' },
      { type: 'text', text: 'a b | c d' },
    ])
  })

  it("joins a paragraph's and a list item's wrapped lines, so a line that opens with a tag or a tool's name stays prose; code keeps its lines", () => {
    const md = 'The agent files keep what is inside a component: the code blocks of a\n`<TabItem>`, the text of an `<Aside>`.\n\n- A project made by\n  npm init -y is CommonJS,\n  whatever it says.\n\n```sh\nnpm init -y\nnpx docpilot index\n```\n'
    const texts = parseMarkdown(md, { mdx: false }).nodes.map((n) => n.text)
    expect(texts).toEqual([
      'The agent files keep what is inside a component: the code blocks of a <TabItem>, the text of an <Aside>.',
      'A project made by npm init -y is CommonJS, whatever it says.',
      'npm init -y\nnpx docpilot index',
    ])
    expect(texts.map((t) => textBlocks(t)[0]!.kind)).toEqual(['prose', 'prose', 'code'])
  })

  it("keeps a hard line break (two trailing spaces, a backslash) as the writer's own line; a heading or a table cell stays one line", () => {
    const md = 'Output:  \nServer listening on port 3000\\\nPress Ctrl+C to stop\n\n## A  \nheading\n\n| a | b |\n| - | - |\n| x | y |\n'
    expect(parseMarkdown(md, { mdx: false }).nodes.map((n) => n.text)).toEqual(['Output:\nServer listening on port 3000\nPress Ctrl+C to stop', 'A', 'heading', 'a | b\nx | y'])
  })

  it('reads <br> as a line break: in prose its own line, in a table cell or a heading a space, never words run together', () => {
    const md = '# Errors<br/>reference\n\n[UnknownCompilerError](/e/)<br/>Unknown compiler error.\n\n**Type:** `string`<br />\nAdded in v4\n\n| name | what |\n| - | - |\n| id<br>key | one<BR>two |\n'
    for (const mdx of [false, true]) {
      expect(parseMarkdown(md, { mdx }).nodes.map((n) => n.text)).toEqual(['Errors reference', 'UnknownCompilerError\nUnknown compiler error.', 'Type: string\nAdded in v4', 'name | what\nid key | one two'])
      // The heading's id is the generators': from its text content, where <br> is nothing (VitePress, Starlight, Docusaurus: #errorsreference).
      expect(toSections(parseMarkdown(`${md}\n## Line<br>break\n\ntext\n`, { mdx }), 'github', 'errors').sections.map((s) => s.anchor)).toEqual(['', 'linebreak'])
    }
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
