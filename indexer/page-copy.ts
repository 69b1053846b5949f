/**
 * The Markdown copy of a page, for agents (llms.txt convention): the page's
 * own source with what only a site generator understands taken out. MDX
 * arrives already rewritten as Markdown (sources/mdx-source.ts: ESM,
 * component tags and expressions out, their labels and cards kept as
 * Markdown). Here, outside code:
 *
 * - `<script>`/`<style>` blocks, HTML comments and component tags written as
 *   HTML (`<Badge />` in VitePress) are dropped, a childless component with
 *   `text` or `href` becoming its text or link; ordinary HTML stays;
 * - an explicit heading id (`## Title {#id}`) is dropped: it is the site's
 *   business, not the reader's;
 * - blank lines are made single.
 *
 * Code (fenced blocks and inline code spans) is never touched: examples of
 * components stay as written.
 */
import { closesFence, closingFenceLine } from './sources/fence.ts'
import { childlessText } from './sources/mdx-source.ts'
import type { PageNode } from './sources/page.ts'

/** Clean Markdown of a page's Markdown (MDX already rewritten). */
export function markdownCopy(markdown: string): string {
  const copy = new TidyLines()
  outsideCode(markdown, (prose) => cleanHtml(prose).replace(HEADING_ID, '$1'), copy)
  return copy.text()
}

/** A page read from built HTML has no Markdown source: its headings and text blocks, as Markdown. */
export function markdownFromNodes(nodes: readonly PageNode[]): string {
  return tidy(nodes.map((n) => (n.type === 'heading' ? `${'#'.repeat(Math.min(Math.max(n.depth, 1), 6))} ${n.text}` : n.text)).join('\n\n'))
}

const HEADING_ID = /^( {0,3}#{1,6}[ \t].*?)[ \t]*\\?\{#[^{}\s]+\\?\}[ \t]*$/gm

/**
 * `edit` applied to the text outside fenced code blocks and inline code
 * spans (each prose stretch at once, so an edit may span lines; code spans
 * are held out by a placeholder and put back afterwards), the lines given to
 * `copy` as they come. One walk over the lines: a line this walk found no
 * fence marker on, and the edit left as it was, goes to `copy` with that
 * known; an edited stretch is looked at again, line by line.
 */
function outsideCode(markdown: string, edit: (prose: string) => string, copy: TidyLines): void {
  let prose: string[] = []
  let fence: string | undefined
  const flushProse = () => {
    if (!prose.length) return
    const text = prose.join('\n')
    const edited = editProse(text, edit)
    if (edited === text) for (const line of prose) copy.add(line, undefined)
    else for (const line of edited.split('\n')) copy.add(line, fenceMarker(line))
    prose = []
  }
  for (let at = 0; at <= markdown.length; ) {
    const found = markdown.indexOf('\n', at)
    const eol = found === -1 ? markdown.length : found
    const line = markdown.slice(at, eol)
    at = eol + 1
    const marker = fenceMarker(line)
    if (fence) {
      copy.add(line, marker)
      if (closesFence(line, fence)) fence = undefined
    } else if (marker) {
      flushProse()
      fence = marker
      copy.add(line, marker)
      // The code up to its closing line, in one piece (see closingFenceLine).
      const close = closingFenceLine(markdown, at, marker)
      if (close > at && copy.addCode(markdown.slice(at, close - 1), marker)) at = close
    } else {
      prose.push(line)
    }
  }
  flushProse()
}

/** A code span; an escaped backtick (`\\``) opens none. */
const CODE_SPAN = /(?<![`\\])(`+)(?!`)[\s\S]{0,4096}?(?<!`)\1(?!`)/g

function editProse(prose: string, edit: (prose: string) => string): string {
  if (!prose.includes('<') && !prose.includes('{#')) return prose
  const spans: string[] = []
  const masked = prose.includes('`')
    ? prose.replace(CODE_SPAN, (span) => {
        // A "span" across a blank line is two stray backtick runs, not code.
        if (/\n[ \t]*\n/.test(span)) return span
        spans.push(span)
        return `\u0000${spans.length - 1}\u0000`
      })
    : prose
  return edit(masked).replace(/\u0000(\d+)\u0000/g, (_, i: string) => spans[Number(i)]!)
}

const SCRIPT_OR_STYLE = /(?<!\\)<(script|style)\b[^>]*>[\s\S]*?<\/\1\s*>/gi
const COMMENT = /(?<!\\)<!--[\s\S]*?-->/g
/** A component's opening, closing or self-closing tag: a capitalised or dotted name (`<Badge>`, `<Tabs.Item>`), not an escaped `\\<`. */
const COMPONENT_TAG = /(?<!\\)<\/?[A-Z][\w.]*(?:\s(?:[^<>"'{}]|"[^"]*"|'[^']*'|\{[^{}]*\})*)?\/?>/g

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

const FENCE = /^(`{3,}|~{3,})/
/** The fence a line opens or closes (its run of backticks or tildes), if any. */
const fenceMarker = (line: string): string | undefined => FENCE.exec(line.trimStart())?.[1]

function tidy(markdown: string): string {
  const copy = new TidyLines()
  for (const line of markdown.split('\n')) copy.add(line, fenceMarker(line))
  return copy.text()
}

/**
 * Lines put together so that, outside code, blank lines stay single and
 * whitespace-only lines become empty. Code keeps every line as written. The
 * whole ends with one newline.
 */
class TidyLines {
  private readonly out: string[] = []
  private fence: string | undefined

  /** The next line, and its fence marker (fenceMarker). */
  add(line: string, marker: string | undefined): void {
    const out = this.out
    if (this.fence) {
      out.push(line)
      if (closesFence(line, this.fence)) this.fence = undefined
      return
    }
    if (marker) this.fence = marker
    const blank = line.trim() === ''
    if (blank && (out.length === 0 || out[out.length - 1] === '')) return
    out.push(blank ? '' : line)
  }

  /** Lines of code none of which closes the fence `fence` opened, as one piece; false, adding nothing, when another fence (or none) is open here. */
  addCode(lines: string, fence: string): boolean {
    if (this.fence !== fence) return false
    this.out.push(lines)
    return true
  }

  text(): string {
    const out = this.out
    while (out.length && out[out.length - 1] === '') out.pop()
    return out.length ? `${out.join('\n')}\n` : ''
  }
}
