/**
 * Markdown and MDX sources -> ParsedPage, with remark. MDX is parsed strictly
 * first; a file that strict MDX rejects (a stray `{` or `<` in prose) is
 * re-parsed as plain Markdown, and the JSX/ESM it then sees as HTML or
 * paragraphs is removed by the same text rules, so no page is dropped.
 */
import { unified, type Processor } from 'unified'
import remarkParse from 'remark-parse'
import remarkGfm from 'remark-gfm'
import remarkFrontmatter from 'remark-frontmatter'
import remarkMdx from 'remark-mdx'
import remarkDirective from 'remark-directive'
import { parseDocument as parseYaml } from 'yaml'
import type { Root } from 'mdast'
import { parseExplicitId } from '../anchors/slugger.ts'
import { markdownCopy } from '../page-copy.ts'
import { htmlFragmentText } from './html-text.ts'
import { dropEsmLines, dropMdxExpressions, stringLiteral } from './mdx-text.ts'
import type { PageNode, ParsedPage } from './page.ts'

/** Loose view of any mdast/mdx node: the walkers read only these fields. */
interface AnyNode {
  type: string
  value?: string
  depth?: number
  alt?: string | null
  name?: string | null
  children?: AnyNode[]
}

/**
 * Only `:::name` containers are wanted from remark-directive: text and leaf
 * directives would turn prose like `client:load` into directive nodes.
 */
function containersOnly(this: Processor) {
  const data = this.data() as { micromarkExtensions?: unknown[] }
  ;(data.micromarkExtensions ??= []).push({ disable: { null: ['directiveText', 'directiveLeaf'] } })
}

function makeProcessor(mdx: boolean) {
  const p = unified().use(remarkParse).use(remarkFrontmatter, ['yaml', 'toml']).use(remarkGfm)
  if (mdx) p.use(remarkMdx)
  return p.use(remarkDirective).use(containersOnly)
}
const strictMdx = makeProcessor(true)
const plainMarkdown = makeProcessor(false)

/** `copy`: also cut the page's clean Markdown copy from the same tree (page-copy.ts). */
export function parseMarkdown(source: string, opts: { mdx: boolean; copy?: boolean }): ParsedPage {
  let tree: Root
  let parsed = source
  let fallback: string | undefined
  if (opts.mdx) {
    try {
      tree = strictMdx.parse(source)
    } catch (error) {
      try {
        // `## Title {#id}` is an invalid expression to MDX; Docusaurus escapes it before compiling, so do we.
        const escaped = escapeHeadingIds(source)
        if (escaped === source) throw error
        tree = strictMdx.parse(escaped)
        parsed = escaped
      } catch {
        fallback = `not valid MDX (${firstLine(error)}); parsed as plain Markdown`
        tree = plainMarkdown.parse(source)
      }
    }
  } else {
    tree = plainMarkdown.parse(source)
  }
  const page: PageDraft = { nodes: [] }
  if (fallback) page.fallback = fallback
  readFrontmatter(tree as AnyNode, page)
  walkBlocks((tree as AnyNode).children ?? [], page.nodes, fallback !== undefined)
  if (!page.nodes.some((n) => n.type === 'text') && page.frontmatterText) {
    page.nodes.push({ type: 'text', text: page.frontmatterText })
  }
  delete page.frontmatterText
  if (opts.copy) page.markdown = markdownCopy(tree, parsed, { lenient: fallback !== undefined })
  return page
}

const HEADING_ID_LINE = /^(\s{0,3}#{1,6}\s.*?)\{#([^{}\s]+)\}(\s*)$/gm

function escapeHeadingIds(source: string): string {
  return source.replace(HEADING_ID_LINE, '$1\\{#$2\\}$3')
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  return message.split('\n')[0]!.slice(0, 160)
}

type PageDraft = ParsedPage & { frontmatterText?: string }

function readFrontmatter(root: AnyNode, page: PageDraft): void {
  const node = root.children?.find((c) => c.type === 'yaml')
  if (!node?.value) return
  // Silent: the library's own warnings would reach the console without the file's name; they become notes.
  const doc = parseYaml(node.value, { logLevel: 'silent' })
  if (doc.errors.length) {
    ;(page.notes ??= []).push(`frontmatter is not valid YAML (${firstLine(doc.errors[0])}); ignored`)
    return
  }
  for (const warning of doc.warnings) (page.notes ??= []).push(`frontmatter: ${firstLine(warning)}`)
  const data: unknown = doc.toJS()
  if (!data || typeof data !== 'object') return
  const fm = data as Record<string, unknown>
  if (typeof fm.title === 'string' && fm.title.trim()) page.metaTitle = fm.title.trim()
  if (typeof fm.description === 'string' && fm.description.trim()) page.description = fm.description.trim()
  // A page made only of frontmatter (a VitePress home layout) still has words
  // readers see: its description, hero and feature cards.
  const parts: string[] = []
  if (typeof fm.description === 'string') parts.push(fm.description)
  const hero = fm.hero as Record<string, unknown> | undefined
  if (hero && typeof hero === 'object') {
    for (const key of ['name', 'text', 'tagline']) if (typeof hero[key] === 'string') parts.push(hero[key] as string)
  }
  if (Array.isArray(fm.features)) {
    for (const f of fm.features as Record<string, unknown>[]) {
      const line = [f?.title, f?.details].filter((v) => typeof v === 'string').join(': ')
      if (line) parts.push(line)
    }
  }
  if (parts.length) page.frontmatterText = parts.join('\n')
}

const SKIPPED_BLOCKS = new Set(['yaml', 'toml', 'mdxjsEsm', 'mdxFlowExpression', 'thematicBreak', 'definition'])
const CONTAINERS = new Set(['containerDirective', 'mdxJsxFlowElement', 'blockquote', 'list', 'listItem', 'footnoteDefinition'])

function walkBlocks(nodes: AnyNode[], out: PageNode[], lenient: boolean): void {
  for (const node of nodes) {
    if (SKIPPED_BLOCKS.has(node.type)) continue
    if (node.type === 'heading') {
      const { text, id } = parseExplicitId(cleanInline(headingText(node), lenient))
      out.push(id ? { type: 'heading', depth: node.depth ?? 2, text, id } : { type: 'heading', depth: node.depth ?? 2, text })
    } else if (CONTAINERS.has(node.type)) {
      walkBlocks(node.children ?? [], out, lenient)
    } else if (node.type === 'code') {
      if (node.value?.trim()) out.push({ type: 'text', text: node.value })
    } else if (node.type === 'html') {
      pushText(out, htmlFragmentText(node.value ?? ''))
    } else if (node.type === 'table') {
      const rows = (node.children ?? []).map((row) =>
        (row.children ?? []).map((cell) => cleanInline(inlineText(cell), lenient)).join(' | '),
      )
      pushText(out, rows.join('\n'))
    } else if (node.type === 'paragraph') {
      let text = cleanInline(inlineText(node), lenient)
      text = dropContainerFences(text).replace(GFM_ALERT, '')
      if (lenient) text = dropEsmLines(text)
      pushText(out, text)
    } else if (node.children) {
      walkBlocks(node.children, out, lenient)
    } else if (node.value) {
      pushText(out, node.value)
    }
  }
}

function pushText(out: PageNode[], text: string): void {
  const t = text.trim()
  if (t) out.push({ type: 'text', text: t })
}

/** Plain text of inline content: markup, HTML and JSX tags removed, their text kept. */
function inlineText(node: AnyNode): string {
  switch (node.type) {
    case 'text':
    case 'inlineCode':
      return node.value ?? ''
    case 'html':
      return htmlFragmentText(node.value ?? '', { inline: true })
    case 'break':
      return '\n'
    case 'image':
      return node.alt ?? ''
    case 'mdxTextExpression':
    case 'mdxFlowExpression':
      return stringLiteral(node.value ?? '')
    case 'footnoteReference':
      return ''
    default:
      return (node.children ?? []).map(inlineText).join('')
  }
}

/**
 * A heading as the page's outline shows it: components placed in a heading
 * (`<Badge>`, `<Version>4.0</Version>`, `<CRoot />`) are decorations, and
 * their text is not part of the title or trail. In plain Markdown a component
 * arrives as separate opening tag, text and closing tag nodes, so the text
 * between a decoration's tags is skipped here.
 */
function headingText(node: AnyNode): string {
  let out = ''
  const open: string[] = []
  for (const child of node.children ?? []) {
    if (child.type === 'html') {
      const tag = HTML_TAG.exec(child.value ?? '')
      if (tag) {
        const [, closing, name, attrs, selfClosing] = tag
        if (closing && open.includes(name!)) open.length = open.lastIndexOf(name!)
        else if (!closing && !selfClosing && (open.length || isDecoration(name!, attrs!))) open.push(name!)
        continue
      }
    }
    if (open.length) continue
    if (child.type === 'mdxJsxTextElement' && isDecoration(child.name ?? '', jsxClass(child))) continue
    out += child.children ? headingText(child) : inlineText(child)
  }
  return out
}

const HTML_TAG = /^<(\/)?([A-Za-z][\w.:-]*)([^<>]*?)(\/)?>$/

/** A component (capitalised or custom-element name) or anything styled as a badge. */
function isDecoration(name: string, attrs: string): boolean {
  return /^[A-Z]/.test(name) || name.includes('-') || /class(?:Name)?\s*=\s*["'][^"']*badge/i.test(attrs)
}

function jsxClass(node: AnyNode): string {
  const attrs = (node as { attributes?: { name?: string; value?: unknown }[] }).attributes ?? []
  return attrs.map((a) => (typeof a.value === 'string' ? `${a.name}="${a.value}"` : '')).join(' ')
}

function cleanInline(text: string, lenient: boolean): string {
  let t = text
  if (lenient) t = dropMdxExpressions(t)
  return t.replace(/[ \t]+/g, ' ').replace(/ *\n */g, '\n').trim()
}

/** VitePress writes `::: tip Title` (with a space), which Markdown sees as prose. */
function dropContainerFences(text: string): string {
  if (!text.includes(':::')) return text
  return text
    .split('\n')
    .map((line) => {
      const m = /^:{3,}\s*(?:[\w-]+)?\s*(.*)$/.exec(line)
      return m ? m[1]! : line
    })
    .filter((line) => line.trim() !== '')
    .join('\n')
}

/** GitHub-style alert marker opening a blockquote (`> [!NOTE]`), which sites render as a styled box. */
const GFM_ALERT = /^\[!(?:NOTE|TIP|IMPORTANT|WARNING|CAUTION)\]\s*/i
