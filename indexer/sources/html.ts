/**
 * A page of a built HTML site -> ParsedPage, like Pagefind reads it: only the
 * main content region, headings with the ids the generator really emitted.
 */
import { fromHtml } from 'hast-util-from-html'
import { select, selectAll } from 'hast-util-select'
import { toText } from 'hast-util-to-text'
import type { Element, Nodes, Root } from 'hast'
import { oneLine } from '../../core/text/one-line.ts'
import type { PageNode, ParsedPage } from './page.ts'
import { htmlNesting, NestingLimitError } from './nesting.ts'
import { PAGEFIND_BODY } from './regions.ts'

// [role="main"] is <main> by another name: Sphinx's themes (alabaster) have no <main>, only <div class="body" role="main">, beside the sidebar.
const DEFAULT_REGIONS = [PAGEFIND_BODY, 'main', '[role="main"]', 'article', 'body']
const HEADING = /^h([1-6])$/
/**
 * Page chrome that is never content, even inside the region: what Pagefind leaves out (its fossick
 * parser's REMOVE_SELECTORS: a footer's previous/next links, a blog post's tags), and buttons.
 */
const SKIPPED = new Set(['script', 'style', 'noscript', 'template', 'nav', 'svg', 'button', 'form', 'footer', 'label', 'iframe'])
/**
 * Links whose text is a mark, not words: Sphinx's `¶` permalink after an API signature or a code
 * caption as well as after a heading (Python-Markdown's toc writes the same class), a footnote's
 * `↩` back to its reference, and the reference's number, which would glue onto the word before it
 * ("later1"; the Markdown reader drops it too): Python-Markdown, remark, Sphinx.
 */
const LINK_MARKS = [
  'a.headerlink',
  'a.footnote-backref',
  'a.data-footnote-backref',
  'a.footnote-ref',
  'a[data-footnote-ref]',
  'a.footnote-reference',
].join(', ')
/**
 * What is emptied before the region is read, in one pass: what the page marks to ignore, the chrome
 * (emptied, not only passed over by walk(): a block read as one line takes all its text, so Material
 * for MkDocs' sidebar <div>s around their <nav> inside <main> would bring the whole site nav), the
 * link marks, and Pygments' line numbers (Sphinx, Python-Markdown; inline or a table column), which
 * are not part of the code.
 */
const EMPTIED = ['[data-pagefind-ignore]', ...SKIPPED, LINK_MARKS, '.linenos'].join(', ')
/**
 * A page that asks not to be in a search index: `<meta name="robots">` with `noindex` or `none` (what
 * search engines honour; Sphinx's search page, a page an owner keeps out of search), or the same in
 * `<meta name="docpilot">`, for a page that stays in search engines but not in its docs' answers.
 */
const NOINDEX_META = 'head meta[name][content]'
const NOINDEX_NAMES = new Set(['robots', 'docpilot'])
const NOINDEX_TOKEN = /^(?:noindex|none)$/i
/**
 * Sphinx's generated indexes (genindex.html, its per-letter pages, py-modindex.html) carry no
 * robots mark, unlike its search page: a list of every term, each a link to a page that says it.
 */
const GENERATED_INDEX = 'table.indextable, div.genindex-jumpbox, div.modindex-jumpbox'
const BLOCKS = new Set([
  'p', 'pre', 'li', 'ul', 'ol', 'table', 'tr', 'blockquote', 'div', 'section', 'aside', 'details',
  'summary', 'dl', 'dt', 'dd', 'figure', 'figcaption', 'header', 'article', 'main',
])

export function parseHtmlPage(html: string, contentSelector?: string, maxNesting = Infinity): ParsedPage & { region?: string } {
  // Checked before any tree is built (the conversions recurse): a hostile depth is skipped, never a stack overflow.
  const depth = htmlNesting(html)
  if (depth > maxNesting) throw new NestingLimitError(depth, maxNesting)
  const tree = fromHtml(html)
  const titleEl = select('title', tree)
  const page: ParsedPage & { region?: string } = { nodes: [], ownIds: true }
  const metaTitle = titleEl ? toText(titleEl).trim() : ''
  if (metaTitle) page.metaTitle = metaTitle
  if (asksNoIndex(tree)) page.noindex = true

  let region: Element | Root | undefined
  for (const selector of contentSelector ? [contentSelector] : DEFAULT_REGIONS) {
    region = select(selector, tree) ?? undefined
    if (region) {
      page.region = selector
      break
    }
  }
  if (!region) return page
  if (select(GENERATED_INDEX, region)) page.noindex = true
  labelTabPanels(region)
  for (const dropped of selectAll(EMPTIED, region)) dropped.children = []
  // Material for MkDocs' code annotation markers (`// (1)!`): its script turns a comment holding one into a (1) button, comment and all.
  for (const comment of selectAll('pre .c, pre .c1, pre .cm', region)) if (/\(\d+\)!/.test(toText(comment))) comment.children = []
  walk(region, page.nodes, { objectLevels: objectLevels(region), headingDepth: 1 })
  return page
}

function asksNoIndex(tree: Root): boolean {
  return selectAll(NOINDEX_META, tree).some((meta) => {
    const { name, content } = meta.properties
    if (typeof name !== 'string' || typeof content !== 'string' || !NOINDEX_NAMES.has(name.trim().toLowerCase())) return false
    return content.split(/[\s,]+/).some((token) => NOINDEX_TOKEN.test(token))
  })
}

/** What walk() carries down the tree: API entries' nesting (objectLevels), and the depth of the last real heading. */
interface WalkState {
  objectLevels: Map<Element, number>
  headingDepth: number
}

function walk(node: Nodes, out: PageNode[], state: WalkState): void {
  if (node.type !== 'element' && node.type !== 'root') return
  const parts: string[] = []
  const flushInline = () => {
    // Inline text collapses as a browser shows it: a line break in the source is a space.
    const text = oneLine(parts.join(''))
    if (text) out.push({ type: 'text', text })
    parts.length = 0
  }
  for (const child of node.children) {
    if (child.type === 'text') {
      parts.push(child.value)
      continue
    }
    if (child.type !== 'element' || SKIPPED.has(child.tagName)) continue
    const heading = HEADING.exec(child.tagName)
    if (heading) {
      flushInline()
      const text = headingText(child)
      const id = typeof child.properties.id === 'string' ? child.properties.id : sectionId(node, child)
      state.headingDepth = Number(heading[1])
      out.push(id ? { type: 'heading', depth: state.headingDepth, text, id } : { type: 'heading', depth: state.headingDepth, text })
    } else if (state.objectLevels.has(child)) {
      // An API entry opens a section under the heading it sits in, named as Sphinx's own table of contents names it.
      flushInline()
      const depth = state.headingDepth + 1 + state.objectLevels.get(child)!
      out.push({ type: 'heading', depth, text: objectName(child), id: child.properties.id as string })
      const signature = oneLine(toText(child))
      if (signature) out.push({ type: 'text', text: signature })
    } else if (child.tagName === 'pre') {
      flushInline()
      const text = toText(child, { whitespace: 'pre' }).trim()
      if (text) out.push({ type: 'text', text })
    } else if (child.tagName === 'table' && !classesOf(child).includes('highlighttable')) {
      // (Pygments' highlighttable only lays out line numbers beside code: its code is read as code, below.)
      flushInline()
      const caption = child.children.find((c): c is Element => c.type === 'element' && c.tagName === 'caption')
      const title = caption ? oneLine(toText(caption)) : ''
      if (title) out.push({ type: 'text', text: title })
      const text = tableText(child)
      if (text) out.push({ type: 'text', text })
    } else if (holdsBlocks(child)) {
      // A block, a component or an inline element around blocks (Starlight's <starlight-tabs>, an <astro-island>): each inner block keeps its shape.
      flushInline()
      walk(child, out, state)
    } else if (BLOCKS.has(child.tagName)) {
      flushInline()
      // A paragraph or a list item is one line, as the Markdown reader makes it (a <br> included).
      const text = oneLine(toText(child))
      if (text) out.push({ type: 'text', text })
    } else {
      parts.push(toText(child))
    }
  }
  flushInline()
}

/**
 * Sphinx (docutils) gives the id to the <section> a heading opens, not to the heading
 * (`<section id="setup"><h2>Setup</h2>`; Sphinx 3 and older: `<div class="section" id="setup">`):
 * `#setup` lands on that heading, so it is the heading's anchor when it is the section's first.
 */
function sectionId(parent: Element | Root, heading: Element): string | undefined {
  if (parent.type !== 'element' || typeof parent.properties.id !== 'string') return undefined
  if (parent.tagName !== 'section' && !classesOf(parent).includes('section')) return undefined
  const first = parent.children.find((c) => c.type === 'element' && HEADING.test(c.tagName))
  return first === heading ? parent.properties.id : undefined
}

/**
 * Sphinx's API entries (autodoc, `.. py:function::`): `<dl class="py function"><dt class="sig sig-object py" id="lumen.serve">`.
 * Each has an id a citation can land on, so each is read as a heading, one level below the entry or heading around it.
 */
const isObjectSignature = (el: Element) => el.tagName === 'dt' && typeof el.properties.id === 'string' && classesOf(el).includes('sig-object')

/** Each API entry's signature, with how many entries it sits in (a method in its class: 1). */
function objectLevels(node: Element | Root, level = 0, levels = new Map<Element, number>()): Map<Element, number> {
  const isEntry = node.type === 'element' && node.tagName === 'dl' && node.children.some((c) => c.type === 'element' && isObjectSignature(c))
  for (const child of node.children) {
    if (child.type !== 'element') continue
    if (isObjectSignature(child)) levels.set(child, level)
    objectLevels(child, isEntry && child.tagName === 'dd' ? level + 1 : level, levels)
  }
  return levels
}

/** `lumen.serve()` for `lumen.serve(app, port=8000)`, as Sphinx's table of contents names an entry; else the whole signature. */
function objectName(signature: Element): string {
  const part = (cls: string) => selectAll(`.${cls}`, signature).map((el) => toText(el)).join('')
  const name = part('sig-prename') + part('sig-name')
  if (!name.trim()) return oneLine(toText(signature))
  return oneLine(name) + (selectAll('.sig-paren', signature).length ? '()' : '')
}

const childrenWithClass = (el: Element, cls: string) => el.children.filter((c): c is Element => c.type === 'element' && classesOf(c).includes(cls))

/**
 * Material for MkDocs' content tabs (pymdownx.tabbed): the tab names are <label>s in a row of their
 * own, left out with every label; each panel gets its name as its first line instead, as a reader
 * sees the open tab ("npm", then `npm install lumen`).
 */
function labelTabPanels(region: Element | Root): void {
  for (const set of selectAll('.tabbed-set', region)) {
    const labels = childrenWithClass(set, 'tabbed-labels').flatMap((row) => elements(row, ['label']))
    const panels = childrenWithClass(set, 'tabbed-content').flatMap((content) => childrenWithClass(content, 'tabbed-block'))
    panels.forEach((panel, i) => {
      const name = labels[i] ? oneLine(toText(labels[i])) : ''
      if (name) panel.children.unshift({ type: 'element', tagName: 'p', properties: {}, children: [{ type: 'text', value: name }] })
    })
  }
}

/** Whether a block holds a heading or another block (a list's items, a section's paragraphs, code, a table), each read on its own. */
function holdsBlocks(el: Element): boolean {
  return el.children.some((c) => c.type === 'element' && !SKIPPED.has(c.tagName) && (BLOCKS.has(c.tagName) || HEADING.test(c.tagName) || c.tagName === 'table' || holdsBlocks(c)))
}

const elements = (el: Element, names: readonly string[]) => el.children.filter((c): c is Element => c.type === 'element' && names.includes(c.tagName))

/** A table as the Markdown reader writes one: a row a line, its cells joined by " | " (core/text/blocks.ts reads it back); a table inside a cell is that cell's text. */
function tableText(table: Element): string {
  const rows = elements(table, ['tr', 'thead', 'tbody', 'tfoot']).flatMap((c) => (c.tagName === 'tr' ? [c] : elements(c, ['tr'])))
  return rows
    .map((row) => elements(row, ['td', 'th']).map((cell) => oneLine(toText(cell))).join(' | '))
    .filter((line) => line.replace(/[ |]/g, '') !== '')
    .join('\n')
}

/**
 * Heading text without the generator's decorations: permalinks (`#`, `¶`,
 * zero-width space) and badges (VitePress `VPBadge`, Docusaurus `badge`,
 * Starlight `sl-badge`), whose text is not part of the heading's name.
 */
function headingText(el: Element): string {
  return oneLine(toText(withoutDecorations(el)).replace(/[\u200b#¶]+\s*$/u, ''))
}

function withoutDecorations(el: Element): Element {
  const children = el.children
    .filter((c) => !isPermalink(c) && !isBadge(c))
    .map((c) => (c.type === 'element' ? withoutDecorations(c) : c))
  return { ...el, children }
}

function isBadge(node: Nodes): boolean {
  return node.type === 'element' && classesOf(node).some((c) => /badge/i.test(c))
}

function classesOf(el: Element): string[] {
  const cls = el.properties.className
  return Array.isArray(cls) ? cls.map(String) : []
}

function isPermalink(node: Nodes): boolean {
  if (node.type !== 'element' || node.tagName !== 'a') return false
  return classesOf(node).some((c) => /anchor|permalink|hash-link/.test(c)) || node.properties.ariaHidden === 'true'
}
