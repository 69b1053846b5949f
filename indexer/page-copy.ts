/**
 * The Markdown copy of a page, for agents (llms.txt convention): the page's
 * own source text with everything only a site generator understands taken
 * out. It is cut from the tree the indexer already parsed (no second parse):
 * each kept block is the source between its start and end offsets, with
 * MDX's additions edited out of it:
 *
 * - ESM (`import`/`export`) and frontmatter: dropped;
 * - JSX components (`<Tabs>`, `<Aside>`, `<Steps>`): their tags dropped and
 *   their Markdown children kept (a `title`/`label` becomes a bold line, a
 *   childless card with `href` becomes a link, other childless ones vanish);
 * - expressions: a string literal (`{'<'}`) keeps its text, others and
 *   comments vanish;
 * - in plain Markdown, component tags written as HTML (`<Badge />` in
 *   VitePress) and `<script>`/`<style>` blocks are dropped; ordinary HTML stays.
 *
 * Code blocks are never touched: examples of components stay as written.
 */
import { dropEsmLines, dropMdxExpressions, stringLiteral } from './sources/mdx-text.ts'
import type { PageNode } from './sources/page.ts'

interface Point {
  offset?: number
  column: number
}

interface Node {
  type: string
  value?: string
  depth?: number
  name?: string | null
  attributes?: Array<{ type: string; name?: string; value?: unknown }>
  children?: Node[]
  position?: { start: Point; end: Point }
}

type Edit = [from: number, to: number, text: string]

const DROPPED_BLOCKS = new Set(['yaml', 'toml', 'mdxjsEsm'])
const EXPRESSIONS = new Set(['mdxFlowExpression', 'mdxTextExpression'])

/** Clean Markdown of a parsed page. `lenient`: MDX that had to be parsed as plain Markdown. */
export function markdownCopy(tree: { children?: unknown[] }, source: string, opts: { lenient?: boolean } = {}): string {
  const blocks: string[] = []
  const cutter = new Cutter(source, Boolean(opts.lenient))
  cutter.flow((tree.children ?? []) as Node[], blocks)
  return tidy(blocks.join('\n\n'))
}

/** A page read from built HTML has no Markdown source: its headings and text blocks, as Markdown. */
export function markdownFromNodes(nodes: readonly PageNode[]): string {
  return tidy(nodes.map((n) => (n.type === 'heading' ? `${'#'.repeat(Math.min(Math.max(n.depth, 1), 6))} ${n.text}` : n.text)).join('\n\n'))
}

class Cutter {
  constructor(
    private readonly source: string,
    private readonly lenient: boolean,
  ) {}

  /** Block-level nodes, each appended to `out` as one block. */
  flow(nodes: Node[], out: string[]): void {
    for (const node of nodes) {
      if (DROPPED_BLOCKS.has(node.type)) continue
      if (node.type === 'mdxFlowExpression') {
        const text = escapeMarkdown(stringLiteral(node.value ?? ''))
        if (text) out.push(text)
      } else if (node.type === 'mdxJsxFlowElement') {
        this.element(node, out)
      } else {
        const text = this.cut(node)
        if (text.trim()) out.push(text)
      }
    }
  }

  /** A component used as a block: its Markdown children, under its label when it has one. */
  private element(node: Node, out: string[]): void {
    const attrs = stringAttributes(node)
    if (!node.children?.length) {
      const link = linkOf(attrs)
      if (link) out.push(`- ${link}`)
      return
    }
    const label = attrs.title ?? attrs.label
    if (label?.trim()) out.push(`**${label.trim()}**`)
    this.flow(node.children, out)
  }

  /** The node's source text, with MDX additions and component tags edited out, dedented to column 1. */
  private cut(node: Node): string {
    const span = spanOf(node)
    if (!span) return ''
    const edits: Edit[] = []
    if (node.type === 'html') this.html(node, edits)
    else this.inner(node.children ?? [], edits)
    if (node.type === 'heading') edits.push(...explicitIdEdit(this.source, span))
    edits.sort((a, b) => a[0] - b[0] || a[1] - b[1])
    let text = ''
    let at = span[0]
    for (const [from, to, replacement] of edits) {
      if (from < at) continue // inside a span already replaced
      text += this.source.slice(at, from) + replacement
      at = to
    }
    text += this.source.slice(at, span[1])
    text = dedent(text, (node.position?.start.column ?? 1) - 1)
    return this.lenient && node.type !== 'code' ? lenientClean(text) : text
  }

  private inner(nodes: Node[], edits: Edit[]): void {
    for (const node of nodes) {
      const span = spanOf(node)
      if (!span) continue
      if (node.type === 'mdxJsxFlowElement') {
        // A component inside a list or quote: its blocks, indented to where the component stood.
        const blocks: string[] = []
        this.element(node, blocks)
        edits.push([span[0], span[1], indent(blocks.join('\n\n'), (node.position?.start.column ?? 1) - 1)])
      } else if (node.type === 'mdxJsxTextElement') {
        const kids = node.children ?? []
        const first = kids.length ? spanOf(kids[0]!) : undefined
        const last = kids.length ? spanOf(kids[kids.length - 1]!) : undefined
        if (!first || !last) {
          edits.push(this.removal(span, childlessText(stringAttributes(node))))
          continue
        }
        const href = node.name === 'a' ? stringAttributes(node).href : undefined
        edits.push([span[0], first[0], href ? '[' : ''])
        edits.push([last[1], span[1], href ? `](${href})` : ''])
        this.inner(kids, edits)
      } else if (EXPRESSIONS.has(node.type)) {
        edits.push(this.removal(span, escapeMarkdown(stringLiteral(node.value ?? ''))))
      } else if (node.type === 'mdxjsEsm') {
        edits.push([span[0], span[1], ''])
      } else if (node.type === 'html') {
        this.html(node, edits)
      } else if (node.children) {
        this.inner(node.children, edits)
      }
    }
  }

  /** Replaces a span; a span that vanishes between two spaces takes one of them along. */
  private removal(span: [number, number], text: string): Edit {
    const between = !text && this.source[span[0] - 1] === ' ' && this.source[span[1]] === ' '
    return [span[0], between ? span[1] + 1 : span[1], text]
  }

  /** Raw HTML stays, except script/style blocks, comments and component tags (their inner text stays). */
  private html(node: Node, edits: Edit[]): void {
    const span = spanOf(node)
    const value = node.value ?? ''
    if (!span) return
    const cleaned = cleanHtml(value)
    if (cleaned !== value) edits.push([span[0], span[1], cleaned])
  }
}

/** MDX writes `{'<'}` for a literal character; in Markdown it must stay literal too. */
function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_[\]<>#|&]/g, '\\$&')
}

function spanOf(node: Node): [number, number] | undefined {
  const from = node.position?.start.offset
  const to = node.position?.end.offset
  return from === undefined || to === undefined ? undefined : [from, to]
}

/** `{#custom-id}` (or MDX's escaped `\{#custom-id\}`) at the end of a heading: the site's business, not the reader's. */
function explicitIdEdit(source: string, span: [number, number]): Edit[] {
  const text = source.slice(span[0], span[1])
  const m = /[ \t]*\\?\{#[^{}\s]+\\?\}[ \t]*$/.exec(text)
  return m ? [[span[0] + m.index, span[1], '']] : []
}

function stringAttributes(node: Node): Record<string, string> {
  const out: Record<string, string> = {}
  for (const a of node.attributes ?? []) {
    if (a.type === 'mdxJsxAttribute' && a.name && typeof a.value === 'string') out[a.name] = a.value
  }
  return out
}

/** A childless card that points somewhere (`<LinkCard title href description />`) as a Markdown link. */
function linkOf(attrs: Record<string, string>): string | undefined {
  const title = (attrs.title ?? attrs.label ?? '').trim()
  if (!attrs.href || !title) return undefined
  const description = attrs.description?.trim()
  return `[${title}](${attrs.href})${description ? `: ${description}` : ''}`
}

/** An inline component without children says what its `text` says (`<Badge text="optional" />`), or links where it points. */
function childlessText(attrs: Record<string, string>): string {
  const text = attrs.text?.trim()
  return linkOf(attrs) ?? (text ? `(${text})` : '')
}

const SCRIPT_OR_STYLE = /<(script|style)\b[^>]*>[\s\S]*?<\/\1\s*>/gi
const COMMENT = /<!--[\s\S]*?-->/g
/** A component's opening, closing or self-closing tag: a capitalised or dotted name (`<Badge>`, `<Tabs.Item>`). */
const COMPONENT_TAG = /<\/?[A-Z][\w.]*(?:\s(?:[^<>"'{}]|"[^"]*"|'[^']*'|\{[^{}]*\})*)?\/?>/g

function cleanHtml(html: string): string {
  return html
    .replace(SCRIPT_OR_STYLE, '')
    .replace(COMMENT, '')
    .replace(COMPONENT_TAG, (tag) => (tag.endsWith('/>') ? childlessText(htmlAttributes(tag)) : ''))
}

/** String attributes of an HTML tag's source (`<Badge type="info" text="optional" />`). */
function htmlAttributes(tag: string): Record<string, string> {
  const out: Record<string, string> = {}
  for (const m of tag.matchAll(/\s([\w:-]+)=(?:"([^"]*)"|'([^']*)')/g)) out[m[1]!] = m[2] ?? m[3] ?? ''
  return out
}

/** MDX that strict parsing rejected was read as plain Markdown: its ESM lines, comments and escapes arrive as text. */
function lenientClean(text: string): string {
  return dropEsmLines(dropMdxExpressions(text))
}

/** Indents every line but the first (which continues where the replaced text began) by `n` spaces. */
function indent(text: string, n: number): string {
  return n <= 0 ? text : text.replace(/\n(?!\n)/g, `\n${' '.repeat(n)}`)
}

/** Removes up to `n` leading spaces from every line but the first (which starts at the node). */
function dedent(text: string, n: number): string {
  if (n <= 0) return text
  const lead = new RegExp(`\\n[ \\t]{0,${n}}`, 'g')
  return text.replace(lead, '\n')
}

const FENCE = /^ {0,3}(`{3,}|~{3,})/

/**
 * Outside code: blank lines stay single and whitespace-only lines become
 * empty. Code keeps every line as written. The whole ends with one newline.
 */
function tidy(markdown: string): string {
  const out: string[] = []
  let fence: string | undefined
  for (const line of markdown.split('\n')) {
    const marker = FENCE.exec(line)?.[1]
    if (fence) {
      out.push(line)
      if (marker && marker[0] === fence[0] && marker.length >= fence.length && line.trim() === marker) fence = undefined
      continue
    }
    if (marker) fence = marker
    const blank = line.trim() === ''
    if (blank && (out.length === 0 || out[out.length - 1] === '')) continue
    out.push(blank ? '' : line)
  }
  while (out.length && out[out.length - 1] === '') out.pop()
  return out.length ? `${out.join('\n')}\n` : ''
}
