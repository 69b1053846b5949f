/**
 * MDX as Markdown, so that one linear Markdown tokenizer reads every page.
 * What MDX adds to Markdown is rewritten in a single pass over the source:
 *
 * - ESM (`import`/`export` blocks at the top level): dropped;
 * - components on lines of their own (`<Tabs>`, `</Aside>`, `<LinkCard … />`,
 *   written over several lines or not): the tags leave and their children
 *   stay, moved back to the component's own indentation (MDX has no indented
 *   code, so children are often indented under their tag);
 * - components inside a line of text (`<Badge text="new" />`): kept as plain
 *   inline HTML tags with their string attributes only, which the Markdown
 *   tokenizer reads as inline HTML (heading decorations are told by them);
 * - expressions: a string literal (`{'<'}`, MDX's way of writing a literal
 *   character) keeps its text, escaped for Markdown; any other expression
 *   and every comment vanish. An explicit heading id (`## Title {#id}`) is
 *   not an expression and stays.
 *
 * Code (fenced blocks and inline code spans) is never touched. Two outputs
 * differ only in what components leave behind: `index`, read for the
 * section text, keeps no label; `copy`, the page's Markdown copy for agents,
 * turns a component's `title`/`label` into a bold line, a childless card
 * with `href` into a link, `<a href>` into a Markdown link, and drops every
 * other tag.
 *
 * A construct that never closes (a stray `{` or `<` in prose, which strict
 * MDX would reject) is left as text. Scans for a closing brace, quote or
 * `>` stop at the first blank line, and their total length is capped at a
 * few times the page's, so a hostile page costs linear time.
 */
import { closesFence, closingFenceLine } from './fence.ts'
import { ESM_LINE, stringLiteral } from './mdx-text.ts'

export interface MdxAsMarkdown {
  index: string
  copy: string
}

interface Tag {
  /** Element name; '' for a fragment (`<>`). */
  name: string
  closing: boolean
  selfClosing: boolean
  /** String-valued attributes. */
  attrs: Record<string, string>
  end: number
}

interface OpenElement {
  name: string
  /** The column its tag line is written at (after its own move). */
  column: number
  /** Columns removed from the start of each line inside it, never taking a line left of `column`. */
  shift: number
}

const HEADING = /^#{1,6}(?:[ \t]|$)/
const LIST_MARKER = /^([-*+]|\d{1,9}[.)])([ \t]+|$)/
/** `{#custom-id}` closing a heading: read by the heading's id rule, never an expression. */
const TRAILING_HEADING_ID = /\{#[^{}\s]+\}[ \t]*$/
/**
 * `{/* #custom-id *\/}` closing a heading: Docusaurus 3's explicit id in MDX
 * (its `write-heading-ids --syntax comment`), an expression holding one
 * comment whose first word starts with `#`. Read as `{#custom-id}`.
 */
const TRAILING_COMMENT_ID = /\{\s*\/\*\s*#([^\s*]+)(?:[^*]|\*(?!\/))*\*\/\s*\}[ \t]*$/
const FENCE_OPEN = /^(`{3,}(?=[^`]*$)|~{3,})/
const NAME_START = /[A-Za-z_$]/
const NAME_CHAR = /[\w$.:-]/

export function mdxToMarkdown(source: string): MdxAsMarkdown {
  return new Converter(source).run()
}

class Converter {
  private readonly index: string[] = []
  private readonly copy: string[] = []
  private readonly open: OpenElement[] = []
  /** Characters that failed scans may still read (see the module comment). */
  private scanBudget: number

  constructor(private readonly src: string) {
    this.scanBudget = 4 * src.length + 4096
  }

  run(): MdxAsMarkdown {
    const { src } = this
    /** The open code fence: its marker, how far its lines move left, and the column its closing line goes to. */
    let fence: { marker: string; move: number; column: number } | undefined
    let esm = false
    let blankBefore = true
    /** Content columns of the list items the line may belong to, innermost last. */
    const lists: number[] = []
    for (let at = 0; at <= src.length; ) {
      if (fence && fence.move === 0 && !this.open.at(-1)?.shift) {
        // Code that no list or component moves (most of it) is copied up to its closing line in one piece, found by
        // one search: looking at each of its lines in turn was about a quarter of this conversion's time on astro.
        // The line found is then read as below, which closes the fence (a search that stops early costs only time).
        const close = closingFenceLine(src, at, fence.marker)
        if (close === -1) {
          this.both(src.slice(at))
          break
        }
        if (close > at) this.both(src.slice(at, close - 1))
        at = close
      }
      const eol = lineEnd(src, at)
      const ws = leadingWhitespace(src, at, eol)
      const indented = columns(src.slice(at, at + ws))
      const top = this.open.at(-1)
      // Inside a component, children move back to its tag's column.
      const column = indented - (top ? Math.min(top.shift, Math.max(0, indented - top.column)) : 0)
      const blank = at + ws >= eol || src.slice(at + ws, eol).trim() === ''
      if (fence) {
        const rest = src.slice(at + ws, eol)
        if (closesFence(rest, fence.marker)) {
          // MDX closes a fence at any indentation; Markdown only within three columns of where it opened.
          this.both(' '.repeat(fence.column) + rest)
          fence = undefined
        } else {
          this.both(indentTo(src, at, ws, indented, Math.max(0, column - fence.move)) + rest)
        }
      } else if (esm) {
        // An ESM block runs to the next blank line.
        if (blank) {
          esm = false
          this.both('')
        }
      } else if (blank) {
        this.both('')
      } else {
        const from = at + ws
        const rest = src.slice(from, eol)
        const marker = LIST_MARKER.exec(rest)
        if (blankBefore || marker) while (lists.length && column < lists.at(-1)!) lists.pop()
        // Indentation means nothing in MDX beyond its container (no indented code): four columns more is the container's column.
        const container = lists.at(-1) ?? 0
        const placed = column - container >= 4 ? container : column
        if (marker) lists.push(placed + marker[1]!.length + (marker[2]!.length > 4 || marker[2] === '' ? 1 : columns(marker[2]!)))
        const opensFence = FENCE_OPEN.exec(marker ? rest.slice(marker[0].length) : rest)
        if (opensFence) {
          fence = { marker: opensFence[1]!, move: column - placed, column: marker ? lists.at(-1)! : placed }
          this.both(indentTo(src, at, ws, indented, placed) + rest)
        } else if (column === 0 && blankBefore && this.open.length === 0 && ESM_LINE.test(rest)) {
          esm = true
        } else if ((rest[0] === '<' || rest[0] === '{') && this.flowLine(from, indented, placed)) {
          at = this.flowEnd + 1
          blankBefore = true
          continue
        } else {
          const lead = indentTo(src, at, ws, indented, placed)
          // Most lines of prose hold no MDX syntax (what inline() would look for): they are the same in both outputs.
          if (nextInlineSyntax(src, from, eol) === eol) {
            this.both(lead + rest)
            at = eol + 1
          } else {
            at = this.inline(lead, from, eol) + 1
          }
          blankBefore = false
          continue
        }
      }
      blankBefore = blank
      at = eol + 1
    }
    return { index: this.index.join('\n'), copy: this.copy.join('\n') }
  }

  private both(line: string): void {
    this.index.push(line)
    this.copy.push(line)
  }

  private flowEnd = 0

  /**
   * A line made only of component tags and expressions (which may run over
   * several lines): the tags leave, their labels go to the copy. False when
   * the line holds anything else (it is then text).
   */
  private flowLine(from: number, indented: number, column: number): boolean {
    const { src } = this
    const items: (Tag | { expression: string })[] = []
    let q = from
    for (;;) {
      while (src[q] === ' ' || src[q] === '\t') q++
      if (q >= src.length || src[q] === '\n') break
      if (src[q] === '<') {
        const tag = this.scanTag(q)
        if (!tag) return false
        items.push(tag)
        q = tag.end
      } else if (src[q] === '{') {
        const end = this.scanExpression(q)
        if (end === undefined) return false
        items.push({ expression: src.slice(q + 1, end - 1) })
        q = end
      } else {
        return false
      }
    }
    this.flowEnd = q
    const pad = ' '.repeat(column)
    const shift = this.deeperChildren(indented, q) + indented - column
    this.both('')
    for (const item of items) {
      if ('expression' in item) {
        const text = escapeMarkdown(stringLiteral(item.expression))
        if (text) this.copyBlock(pad + text)
      } else if (item.closing) {
        const i = this.open.map((o) => o.name).lastIndexOf(item.name)
        if (i !== -1) this.open.length = i
      } else if (item.selfClosing) {
        const link = linkOf(item.attrs)
        if (link) this.copyBlock(`${pad}- ${link}`)
      } else if (item.name) {
        const label = (item.attrs.title ?? item.attrs.label)?.trim()
        if (label) this.copyBlock(`${pad}**${label}**`)
        this.open.push({ name: item.name, column, shift })
      }
    }
    return true
  }

  private copyBlock(line: string): void {
    this.copy.push(line, '')
  }

  /** How much deeper than `column` the first non-blank line after `after` is indented: what its children are moved back by. */
  private deeperChildren(column: number, after: number): number {
    const { src } = this
    for (let at = after + 1; at < src.length; ) {
      const eol = lineEnd(src, at)
      const line = src.slice(at, eol)
      if (line.trim()) return Math.max(0, columns(line.slice(0, line.length - line.trimStart().length)) - column)
      at = eol + 1
    }
    return 0
  }

  /** Text from `from` to the end of its line (or of the last line a tag, expression or code span in it runs into). Returns that end. */
  private inline(lead: string, from: number, eol: number): number {
    const { src } = this
    let index = lead
    let copy = lead
    let flushed = from
    const links: (string | undefined)[] = []
    const heading = HEADING.test(src.slice(from, eol))
    const idAt = heading ? (TRAILING_HEADING_ID.exec(src.slice(from, eol)) ?? TRAILING_COMMENT_ID.exec(src.slice(from, eol))) : null
    let end = eol
    let limit = idAt ? from + idAt.index : eol
    const flush = (to: number) => {
      const text = src.slice(flushed, to)
      index += text
      copy += text
      flushed = to
    }
    /** Replaces src[at, to); a construct that vanishes from the copy between two spaces takes one of them along. */
    const replace = (at: number, to: number, forIndex: string, forCopy: string) => {
      flush(at)
      index += forIndex
      copy += forCopy
      flushed = to
      if (!forCopy && copy.endsWith(' ') && src[to] === ' ') {
        flushed = to + 1
        if (forIndex) index += ' '
      }
    }
    let q = from
    while (q < limit) {
      const ch = src[q]
      if (ch === '\\') {
        q += 2
      } else if (ch === '`') {
        q = this.codeSpanEnd(q)
      } else if (ch === '{' || ch === '<') {
        const tag = ch === '<' ? this.scanTag(q) : undefined
        const expression = ch === '{' ? this.scanExpression(q) : undefined
        if (tag) {
          replace(q, tag.end, htmlTag(tag), this.copyTag(tag, links))
        } else if (expression !== undefined) {
          const text = escapeMarkdown(stringLiteral(src.slice(q + 1, expression - 1)))
          replace(q, expression, text, text)
        } else {
          q++
          continue
        }
        q = flushed
      } else {
        q = nextInlineSyntax(src, q + 1, limit)
      }
      if (q > end) end = limit = lineEnd(src, q)
    }
    if (idAt?.[1] && end === eol) {
      // The comment leaves the copy, as any comment does; the index gets the id in the form the heading rule reads.
      flush(limit)
      index += `{#${idAt[1]}}`
      flushed = eol
    }
    flush(Math.max(flushed, end))
    this.index.push(index)
    this.copy.push(copy)
    return end
  }

  /** A tag in the copy: `<a href>` becomes a Markdown link, a childless card its link or text, other tags vanish. */
  private copyTag(tag: Tag, links: (string | undefined)[]): string {
    if (tag.selfClosing) return childlessText(tag.attrs)
    if (tag.name !== 'a') return ''
    if (!tag.closing) {
      links.push(tag.attrs.href)
      return tag.attrs.href ? '[' : ''
    }
    const href = links.pop()
    return href ? `](${href})` : ''
  }

  /** The end of a code span opened at `at`, or just past its backticks when none closes it in this paragraph. */
  private codeSpanEnd(at: number): number {
    const { src } = this
    let run = at
    while (src[run] === '`') run++
    const ticks = run - at
    let q = run
    while (q < src.length && this.scanBudget > 0) {
      const c = src[q]
      if (c === '\n' && isBlankAfter(src, q)) break
      if (c !== '`') {
        q++
        continue
      }
      let end = q
      while (src[end] === '`') end++
      if (end - q === ticks) return end
      q = end
    }
    this.scanBudget -= q - run
    return run
  }

  /** A JSX tag starting at `at` (`<`), or undefined when the text there is not one. */
  private scanTag(at: number): Tag | undefined {
    const { src } = this
    let q = at + 1
    const closing = src[q] === '/'
    if (closing) q++
    let name = ''
    if (NAME_START.test(src[q] ?? '')) {
      const start = q
      while (NAME_CHAR.test(src[q] ?? '')) q++
      name = src.slice(start, q)
    } else if (src[q] !== '>') {
      return undefined
    }
    const attrs: Record<string, string> = {}
    const started = q
    const fail = () => {
      this.scanBudget -= q - started
      return undefined
    }
    for (;;) {
      if (this.scanBudget <= 0) return undefined
      const spaceFrom = q
      while (q < src.length && /\s/.test(src[q]!)) {
        if (src[q] === '\n' && isBlankAfter(src, q)) return fail()
        q++
      }
      const c = src[q]
      if (c === undefined) return fail()
      if (c === '>') return { name, closing, selfClosing: false, attrs, end: q + 1 }
      if (c === '/' && src[q + 1] === '>' && !closing) return { name, closing, selfClosing: true, attrs, end: q + 2 }
      if (closing || (q === spaceFrom && q !== started)) return fail()
      if (c === '{') {
        const end = this.scanExpression(q)
        if (end === undefined) return fail()
        q = end
        continue
      }
      if (!NAME_START.test(c)) return fail()
      const nameFrom = q
      while (NAME_CHAR.test(src[q] ?? '')) q++
      const attr = src.slice(nameFrom, q)
      let r = q
      while (src[r] === ' ' || src[r] === '\t') r++
      if (src[r] !== '=') continue
      r++
      while (src[r] === ' ' || src[r] === '\t' || src[r] === '\n') r++
      const quote = src[r]
      if (quote === '"' || quote === "'") {
        const close = src.indexOf(quote, r + 1)
        if (close === -1 || src.slice(r + 1, close).includes('\n\n')) {
          q = r
          return fail()
        }
        attrs[attr] = src.slice(r + 1, close)
        q = close + 1
      } else if (quote === '{') {
        const end = this.scanExpression(r)
        if (end === undefined) return fail()
        const literal = src.slice(r + 1, end - 1)
        if (/^\s*(['"`])[^'"`]*\1\s*$/.test(literal)) attrs[attr] = stringLiteral(literal)
        q = end
      } else {
        return fail()
      }
    }
  }

  /** The end (just past `}`) of an expression starting at `at` (`{`), skipping strings and comments; undefined if it does not close in its paragraph. */
  private scanExpression(at: number): number | undefined {
    const { src } = this
    let depth = 0
    let q = at
    const fail = () => {
      this.scanBudget -= q - at
      return undefined
    }
    while (q < src.length) {
      if (this.scanBudget <= 0) return undefined
      const c = src[q]!
      if (c === '{') depth++
      else if (c === '}') {
        depth--
        if (depth === 0) return q + 1
      } else if (c === '"' || c === "'" || c === '`') {
        q++
        while (q < src.length && src[q] !== c) {
          if (src[q] === '\\') q++
          else if (src[q] === '\n' && (c !== '`' || isBlankAfter(src, q))) return fail()
          q++
        }
      } else if (c === '/' && src[q + 1] === '*') {
        const close = src.indexOf('*/', q + 2)
        if (close === -1) return fail()
        q = close + 1
      } else if (c === '\n' && isBlankAfter(src, q)) {
        return fail()
      }
      q++
    }
    return fail()
  }
}

/** What can open an escape, a code span, a tag or an expression, or end a line (so that a search stops there). */
const INLINE_SYNTAX = /[\\`{<\n]/g

/** The next place from `from` where inline MDX syntax may start, at most `limit`: the text between is copied as it is. */
function nextInlineSyntax(src: string, from: number, limit: number): number {
  INLINE_SYNTAX.lastIndex = from
  const next = INLINE_SYNTAX.exec(src)
  return next ? Math.min(next.index, limit) : limit
}

function lineEnd(src: string, at: number): number {
  const eol = src.indexOf('\n', at)
  return eol === -1 ? src.length : eol
}

/** Whether the line after the newline at `nl` is blank (a paragraph ends there). */
function isBlankAfter(src: string, nl: number): boolean {
  for (let q = nl + 1; q < src.length; q++) {
    const c = src[q]
    if (c === '\n') return true
    if (c !== ' ' && c !== '\t' && c !== '\r') return false
  }
  return true
}

function leadingWhitespace(src: string, at: number, eol: number): number {
  let q = at
  while (q < eol && (src[q] === ' ' || src[q] === '\t')) q++
  return q - at
}

/** The line's own indentation when it stays where it is, else spaces to `column`. */
function indentTo(src: string, at: number, ws: number, indented: number, column: number): string {
  return column === indented ? src.slice(at, at + ws) : ' '.repeat(column)
}

function columns(indent: string): number {
  let col = 0
  for (const ch of indent) col += ch === '\t' ? 4 - (col % 4) : 1
  return col
}

/** A tag as plain inline HTML: string attributes only, a dotted name (`Tabs.Item`) hyphenated. Fragments vanish. */
function htmlTag(tag: Tag): string {
  if (!tag.name) return ''
  const name = tag.name.replace(/[.$]/g, '-')
  if (tag.closing) return `</${name}>`
  const attrs = Object.entries(tag.attrs)
    .filter(([key]) => /^[A-Za-z_:][\w:.-]*$/.test(key))
    .map(([key, value]) => ` ${key}="${value.replace(/"/g, '&quot;')}"`)
    .join('')
  return `<${name}${attrs}${tag.selfClosing ? ' /' : ''}>`
}

/** MDX writes `{'<'}` for a literal character; in Markdown it must stay literal too. */
export function escapeMarkdown(text: string): string {
  return text.replace(/[\\`*_[\]<>#|&]/g, '\\$&')
}

/** A childless card that points somewhere (`<LinkCard title href description />`) as a Markdown link. */
export function linkOf(attrs: Record<string, string>): string | undefined {
  const title = (attrs.title ?? attrs.label ?? '').trim()
  if (!attrs.href || !title) return undefined
  const description = attrs.description?.trim()
  return `[${title}](${attrs.href})${description ? `: ${description}` : ''}`
}

/** An inline component without children says what its `text` says (`<Badge text="optional" />`), or links where it points. */
export function childlessText(attrs: Record<string, string>): string {
  const text = attrs.text?.trim()
  return linkOf(attrs) ?? (text ? `(${text})` : '')
}
