/**
 * Markdown and MDX sources -> ParsedPage, with marked's lexer: one linear
 * pass per page (micromark, which this replaced, was 15-20 times slower on
 * the astro docs and super-linear on some inputs). MDX is first rewritten as
 * Markdown (mdx-source.ts: ESM and component tags out, expressions resolved),
 * so both kinds of page go through the same tokenizer and the same walk.
 */
import { Tokenizer, type MarkedOptions, type Token, type Tokens } from 'marked'
import { decodeHTML } from 'entities/decode'
import { CORE_SCHEMA, load as loadYaml, Type } from 'js-yaml'
import { parseExplicitId } from '../anchors/slugger.ts'
import { markdownCopy } from '../page-copy.ts'
import { htmlFragmentText } from './html-text.ts'
import { mdxToMarkdown } from './mdx-source.ts'
import { PageLexer } from './page-lexer.ts'
import { isTwoslash, twoslashShown } from './twoslash.ts'
import type { HeadingPart, PageNode, ParsedPage } from './page.ts'

/**
 * A GFM footnote's definition (`[^1]: text`) is no link definition. Read as
 * one when its text is one word (`[^1]: https://…`), the note's text was lost
 * and each reference became a link reading `^1`, in the text and the heading.
 */
class FootnoteTokenizer extends Tokenizer {
  override def(src: string): Tokens.Def | undefined {
    return FOOTNOTE_DEFINITION.test(src) ? undefined : super.def(src)
  }
}

const FOOTNOTE_DEFINITION = /^ {0,3}\[\^[^\]\s]+\]:/

/**
 * MDX has no indented code (a line indented four spaces is text, often a
 * component's child) and no HTML blocks: a tag opening a line is JSX, whose
 * children are Markdown (`<summary>**Why?**</summary>`).
 */
class MdxTokenizer extends FootnoteTokenizer {
  override code(): undefined {
    return undefined
  }

  override html(): undefined {
    return undefined
  }
}

const MARKDOWN: MarkedOptions = { gfm: true, tokenizer: new FootnoteTokenizer() }
const MDX: MarkedOptions = { gfm: true, tokenizer: new MdxTokenizer() }

/** `copy`: also make the page's clean Markdown copy (page-copy.ts). */
export function parseMarkdown(source: string, opts: { mdx: boolean; copy?: boolean }): ParsedPage {
  const { frontmatter, body } = splitFrontmatter(source.replace(/\r\n?/g, '\n'))
  const markdown = opts.mdx ? mdxToMarkdown(body) : { index: body, copy: body }
  const page: PageDraft = { nodes: [] }
  if (frontmatter !== undefined) readFrontmatter(frontmatter, page)
  notes = { defined: new Set(Array.from(markdown.index.matchAll(FOOTNOTE_DEFINITIONS), (m) => m[1]!.toLowerCase())), cited: [] }
  walkBlocks(new PageLexer(opts.mdx ? MDX : MARKDOWN).lex(markdown.index), page.nodes)
  if (!page.nodes.some((n) => n.type === 'text') && page.frontmatterText) {
    page.nodes.push({ type: 'text', text: page.frontmatterText })
  }
  delete page.frontmatterText
  if (opts.copy) page.markdown = markdownCopy(markdown.copy)
  return page
}

/** YAML frontmatter (`---` lines around it, first thing in the file) apart from the body; TOML (`+++`) is dropped unread. */
function splitFrontmatter(source: string): { frontmatter?: string; body: string } {
  const m = /^(---|\+\+\+)[ \t]*\n(?:([\s\S]*?)\n)?\1[ \t]*(?:\n|$)/.exec(source)
  if (!m) return { body: source }
  const body = source.slice(m[0].length)
  return m[1] === '---' ? { frontmatter: m[2] ?? '', body } : { body }
}

function firstLine(error: unknown): string {
  const message = error instanceof Error ? error.message : String(error)
  return message.split('\n')[0]!.slice(0, 160)
}

type PageDraft = ParsedPage & { frontmatterText?: string }

/** Tags the schema does not know, met by the load running now (`!!python/object`, `!custom`); once each (the loader may construct a node twice). */
let unknownTags = new Set<string>()

/**
 * YAML 1.2's core schema (`date: 2024-01-01` and `draft: yes` stay strings),
 * where a value under a tag it does not know is read as if untagged, with a
 * warning, instead of failing the whole frontmatter.
 */
const FRONTMATTER_SCHEMA = CORE_SCHEMA.extend(
  (['scalar', 'sequence', 'mapping'] as const).map(
    (kind) =>
      new Type('', {
        kind,
        multi: true,
        construct(data: unknown, tag?: string) {
          unknownTags.add(tag!)
          return data
        },
      }),
  ),
)

function readFrontmatter(yaml: string, page: PageDraft): void {
  if (!yaml.trim()) return
  const warnings: string[] = []
  unknownTags = new Set()
  let data: unknown
  try {
    data = loadYaml(yaml, { schema: FRONTMATTER_SCHEMA, onWarning: (warning) => warnings.push(`frontmatter: ${firstLine(warning)}`) })
  } catch (error) {
    ;(page.notes ??= []).push(`frontmatter is not valid YAML (${firstLine(error)}); ignored`)
    return
  }
  for (const tag of unknownTags) warnings.push(`frontmatter: Unresolved tag: ${tag}`)
  if (warnings.length) (page.notes ??= []).push(...warnings)
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

function walkBlocks(tokens: Token[], out: PageNode[]): void {
  for (const token of tokens) {
    switch (token.type) {
      case 'heading': {
        const parts: HeadingPart[] = []
        const shown = headingText(token.tokens ?? [], parts)
        const { text, id } = parseExplicitId(cleanInline(spaced(shown)))
        const heading: PageNode = { type: 'heading', depth: token.depth, text }
        if (id) heading.id = id
        if (!isPlainHeading(parts, shown)) heading.parts = parts
        out.push(heading)
        break
      }
      case 'code': {
        const code = isTwoslash((token as Tokens.Code).lang) ? twoslashShown(token.text) : token.text
        if (code.trim()) out.push({ type: 'text', text: code })
        break
      }
      case 'html':
        pushText(out, htmlFragmentText(token.text))
        break
      case 'table': {
        const { header, rows } = token as Tokens.Table
        pushText(out, [header, ...rows].map((row) => row.map((cell) => cleanInline(spaced(inlineText(cell.tokens)))).join(' | ')).join('\n'))
        break
      }
      case 'paragraph':
      case 'text':
        pushText(out, oneLine(dropContainerFences(cleanInline(inlineText(token.tokens ?? [{ type: 'text', raw: token.raw, text: token.text }]))).replace(GFM_ALERT, '')))
        break
      case 'blockquote':
        walkBlocks(token.tokens ?? [], out)
        break
      case 'list':
        for (const item of (token as Tokens.List).items) walkBlocks(item.tokens, out)
        break
      // space, hr, def (link definitions), checkbox: nothing a reader reads.
    }
  }
}

function pushText(out: PageNode[], text: string): void {
  const t = text.trim()
  if (t) out.push({ type: 'text', text: t })
}

/** Plain text of inline tokens: markup and HTML tags removed, their text kept. */
function inlineText(tokens: Token[]): string {
  let out = ''
  for (const token of tokens) out += tokenText(token)
  return out
}

function tokenText(token: Token): string {
  switch (token.type) {
    case 'text':
      return token.tokens ? inlineText(token.tokens) : plainText(token.text)
    case 'escape':
    case 'codespan':
      return token.text
    case 'html':
      return LINE_BREAK_TAG.test(token.text) ? `\n${HARD_BREAK}` : htmlFragmentText(token.text, { inline: true })
    case 'br':
      return `\n${HARD_BREAK}`
    case 'image':
      return decodeHTML(token.text)
    case 'checkbox':
      return ''
    default:
      return 'tokens' in token && token.tokens ? inlineText(token.tokens) : ''
  }
}

/** A text token's text: character references decoded, footnote marks out (most texts have neither, and are returned as they are). */
function plainText(text: string): string {
  const decoded = text.includes('&') ? decodeHTML(text) : text
  return decoded.includes('[^') ? decoded.replace(FOOTNOTE_MARK, citeNote) : decoded
}

/**
 * A heading as the page's outline shows it: components placed in a heading
 * (`<Badge>`, `<Version>4.0</Version>`, `<CRoot />`) are decorations, and
 * their text is not part of the title or trail. A component arrives as
 * separate opening tag, text and closing tag tokens, so the text between a
 * decoration's tags is skipped here. The generators do count that text in the
 * heading's id (VitePress, Starlight and Docusaurus alike make
 * `### Title <Badge>custom element</Badge>` `#title-custom-element`), so
 * `parts`, which the ids are made from, keeps it.
 */
function headingText(tokens: Token[], parts: HeadingPart[]): string {
  let text = ''
  const open: string[] = []
  for (const token of tokens) {
    if (token.type === 'html') {
      if (LINE_BREAK_TAG.test(token.text)) {
        // A space between the words shown; none in the id, which the generators make from the text content alone
        // (VitePress, Starlight and Docusaurus all make `## Line<br>break` #linebreak).
        if (!open.length) text += ' '
        continue
      }
      const tag = HTML_TAG.exec(token.text.trim())
      if (tag) {
        const [, closing, name, attrs, selfClosing] = tag
        if (closing && open.includes(name!)) open.length = open.lastIndexOf(name!)
        else if (!closing && !selfClosing && (open.length || isDecoration(name!, attrs!))) open.push(name!)
        continue
      }
    }
    const nested = token.type !== 'text' && token.type !== 'image' && 'tokens' in token && token.tokens
    const shown = nested ? headingText(nested, parts) : partOf(token, parts)
    if (!open.length) text += shown
  }
  return text
}

/**
 * Most headings are plain text, all of it shown, evenly spaced: every generator slugs the text the heading shows,
 * which says it all. The spaces that cleanInline takes off (beside a tag at either end, two in a row) are in some ids.
 */
function isPlainHeading(parts: HeadingPart[], shown: string): boolean {
  const texts = parts.flatMap((p) => (p.kind === 'text' && p.written === undefined ? [p.text] : []))
  return texts.length === parts.length && texts.join('') === shown && cleanInline(shown) === shown
}

/** The text a token shows, its piece added to `parts`. */
function partOf(token: Token, parts: HeadingPart[]): string {
  const text = tokenText(token)
  if (token.type === 'codespan') parts.push({ kind: 'code', text })
  else if (token.type === 'image') parts.push({ kind: 'image', alt: text })
  else if (token.type === 'escape') parts.push({ kind: 'text', text, written: token.raw })
  else if (token.type === 'text' && token.raw.includes('[^')) parts.push(...notedParts(token.raw))
  else if (token.type === 'text' && token.raw !== text) parts.push({ kind: 'text', text, written: token.raw })
  else if (text) parts.push({ kind: 'text', text })
  return text
}

const HTML_TAG = /^<(\/)?([A-Za-z][\w.:-]*)([^<>]*?)(\/)?>$/

/**
 * `<br>` in a paragraph or a table cell (which has no other way to break a
 * line): a hard break, where dropping the tag ran the words on either side
 * together (`[UnknownCompilerError](…)<br/>Unknown compiler error.`).
 */
const LINE_BREAK_TAG = /^\s*<br\s*\/?>\s*$/i

/** A component (capitalised or custom-element name) or anything styled as a badge. */
function isDecoration(name: string, attrs: string): boolean {
  return /^[A-Z]/.test(name) || name.includes('-') || /class(?:Name)?\s*=\s*["'][^"']*badge/i.test(attrs)
}

/** Spacing that cleanInline changes; about one text in eighty on the astro docs has any. */
const UNEVEN_SPACING = /[ \t]\n|\n[ \t]|[ \t]{2}|\t/

/** Spaces and tabs around a line break dropped, other runs of them made one space. */
function cleanInline(text: string): string {
  if (!UNEVEN_SPACING.test(text)) return text.trim()
  return text.replace(/[ \t]*\n[ \t]*/g, '\n').replace(/[ \t]{2,}|\t/g, ' ').trim()
}

/**
 * A paragraph as readers see it: one line. The source's line breaks inside a
 * paragraph (wrapped prose, a list item's continuation lines, a hard break)
 * are where the writer's editor wrapped, and kept they would make a wrapped
 * line that starts with a tag or a tool's name read as code
 * (core/text/blocks.ts), which keeps its lines.
 */
const oneLine = (text: string): string => {
  if (!text.includes('\n')) return text
  // A hard break (two trailing spaces, a backslash, `<br>`) is the writer's own line break: output shown line by line,
  // an address. `<br>` at a line's end is followed by the source's own line break, which leaves the mark on a line alone.
  let out = ''
  let broken = false
  for (const line of text.split('\n')) {
    if (line === HARD_BREAK) broken = true
    if (line === '' || line === HARD_BREAK) continue
    const hard = broken || line.startsWith(HARD_BREAK)
    const body = line.startsWith(HARD_BREAK) ? line.slice(1) : line
    out += out ? `${hard ? '\n' : ' '}${body}` : body
    broken = false
  }
  return out
}

/** Marks the line a hard break opens, from the inline text to oneLine (a private-use character no text holds). */
const HARD_BREAK = '\uE000'

/** A heading or a table cell is one line: a hard break in it is a space. */
const spaced = (text: string): string => text.replace(/\n\uE000/g, ' ')

/** VitePress writes `::: tip Title` (with a space), which Markdown sees as prose. */
function dropContainerFences(text: string): string {
  if (!text.includes(':::')) return text
  return text
    .split('\n')
    .map((line) => {
      // `:::tip[Label]` (a Starlight aside's title) keeps its label, `::: tip Title` its title.
      const m = /^:{3,}\s*(?:[\w-]+)?\s*(?:\[(.*)\](?:\{[^{}]*\})?\s*$)?(.*)$/.exec(line)
      return m ? (m[1] ?? m[2]!) : line
    })
    .filter((line) => line.trim() !== '')
    .join('\n')
}

/** A GFM footnote reference (`[^1]`) or the label opening its definition (`[^1]: `): the note's text is what readers read. */
const FOOTNOTE_MARK = /\[\^([^\]\s]+)\](?::[ \t]*)?/g

/** Where each definition's label is, so a reference is told from text that looks like one. */
const FOOTNOTE_DEFINITIONS = /^[ \t>]*\[\^([^\]\s]+)\]:/gm

/**
 * The page's footnotes: the labels defined (lower-cased, as GFM matches them) and the ones cited so far, in order.
 * A note's number is its place in that order, which is what a reference shows on Astro (and is in the heading's id).
 */
let notes: { defined: Set<string>; cited: string[] } = { defined: new Set(), cited: [] }

/** Drops a footnote mark from the text, counting a reference to a defined note in the order the page cites them. */
function citeNote(mark: string, label: string): string {
  if (!mark.endsWith(':')) noteNumber(label)
  return ''
}

/** A defined note's number (its first citation numbers it), or undefined for a label no definition has. */
function noteNumber(label: string): number | undefined {
  const key = label.toLowerCase()
  if (!notes.defined.has(key)) return undefined
  if (!notes.cited.includes(key)) notes.cited.push(key)
  return notes.cited.indexOf(key) + 1
}

/** A heading's text token holding footnote references, in pieces: text, and each reference with its number. */
function notedParts(raw: string): HeadingPart[] {
  const parts: HeadingPart[] = []
  let at = 0
  const text = (written: string) => {
    const decoded = decodeHTML(written)
    if (written) parts.push(decoded === written ? { kind: 'text', text: written } : { kind: 'text', text: decoded, written })
  }
  for (const m of raw.matchAll(FOOTNOTE_MARK)) {
    text(raw.slice(at, m.index))
    parts.push({ kind: 'footnote', label: m[1]!, number: noteNumber(m[1]!) })
    at = m.index + m[0].length
  }
  text(raw.slice(at))
  return parts
}

/** GitHub-style alert marker opening a blockquote (`> [!NOTE]`), which sites render as a styled box. */
const GFM_ALERT = /^\[!(?:NOTE|TIP|IMPORTANT|WARNING|CAUTION)\]\s*/i
