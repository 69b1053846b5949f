/**
 * What each site generator makes a Markdown heading's id from: the pieces of
 * the heading it counts, read the way it reads them, and the explicit id the
 * writer gave. The slug function then runs on that (slugger.ts).
 */
import type { SluggerName } from '../../core/config/schema.ts'
import type { HeadingPart } from '../sources/page.ts'
import { parseExplicitId } from './slugger.ts'

interface Heading {
  text: string
  id?: string
  parts?: HeadingPart[]
}

export function anchorSource(heading: Heading, generator: SluggerName): { text: string; id?: string } {
  if (generator === 'vitepress') return vitepressSource(heading)
  if (generator === 'starlight') return astroSource(heading)
  const read = generator === 'docusaurus' ? withoutTextDirectives : (text: string) => text
  if (!heading.parts) return { text: read(heading.text), id: heading.id }
  // Docusaurus's mdast toString counts an image's alt. It slugs the heading's text content as it is, where each
  // space is a '-': the one beside a tag closing the heading too (`## Title <img src="x.png">` is #title-), and both
  // of two spaces.
  const text = heading.parts.map((part) => (part.kind === 'text' ? read(part.text) : plainText(part))).join('')
  return parseExplicitId(generator === 'github' ? oneSpaced(text) : text)
}

/** A piece as mdast toString reads it (Docusaurus): an image's alt, and no text for a footnote reference. */
function plainText(part: HeadingPart): string {
  if (part.kind === 'footnote') return part.number === undefined ? literalNote(part.label) : ''
  return part.kind === 'image' ? part.alt : part.text
}

/** A reference to a label no definition has is text, as written, on every generator. */
const literalNote = (label: string) => `[^${label}]`

/**
 * Docusaurus parses text directives (remark-directive) before it makes heading ids, and puts the ones no plugin
 * used back as text only after: a directive's name is not in the id, its [label] is (`## GET /users/:id` is
 * #get-users, `## Drupal JSON:API` #drupal-json). micromark-extension-directive's rule: a `:` after anything but
 * `:`, a name (a letter, then letters, digits, - and _, not ending in - or _) not followed by `:`, then an optional
 * [label] and {attributes}.
 */
function withoutTextDirectives(text: string): string {
  return text.replace(TEXT_DIRECTIVE, (directive, name: string, label: string | undefined, at: number) => {
    const next = text[at + 1 + name.length]
    return /[-_]$/.test(name) || next === ':' ? directive : (label ?? '')
  })
}
const TEXT_DIRECTIVE = /(?<!:):([A-Za-z][\w-]*)(?:\[([^\]]*)\])?(?:\{[^{}]*\})?/g

/**
 * Astro (rehypeHeadingIds) slugs the built heading's text nodes as they are, each space a '-', and an <img> has
 * none. remark-smartypants has made each `--` in them (text, not code) an em dash first, which github-slugger drops:
 * `## a -- b` is #a--b and `## --port` #port, where `` ## `--port` `` is #--port.
 */
function astroSource(heading: Heading): { text: string; id?: string } {
  if (!heading.parts) return { text: smartDashes(heading.text), id: heading.id }
  let text = ''
  let run = ''
  for (const part of heading.parts) {
    if (part.kind === 'text') {
      // One text node in the tree can be several pieces here (`a\--b`): dashes are found in the whole run.
      run += part.text
      continue
    }
    if (part.kind === 'footnote' && part.number === undefined) {
      run += literalNote(part.label)
      continue
    }
    // A note's reference is its number, in a <sup> of its own.
    text += smartDashes(run) + (part.kind === 'code' ? part.text : part.kind === 'footnote' ? String(part.number) : '')
    run = ''
  }
  return parseExplicitId(text + smartDashes(run))
}

/** retext-smartypants' default dashes: a run of exactly two hyphens is an em dash. */
const smartDashes = (text: string) => text.replace(/(?<!-)--(?!-)/g, '\u2014')

const oneSpaced = (text: string) => text.replace(/[ \t]+/g, ' ').trim()

/** VitePress reads `{#id}`, like any attribute block closing a heading, with markdown-it-attrs. */
function vitepressSource(heading: Heading): { text: string; id?: string } {
  // A plain heading's `{#id}` was taken off its text already: the block held `#` and what `id` holds.
  if (!heading.parts) return heading.id === undefined ? attributeBlock(withoutEmoji(heading.text)) : { text: withoutEmoji(heading.text), id: attributeBlock(`{#${heading.id}}`).id }
  const text = oneSpaced(vitepressText(heading.parts))
  const last = heading.parts.at(-1)
  // The block must close the heading's last text token, not a code span.
  return last?.kind === 'text' && text.lastIndexOf('{') >= text.length - last.text.length ? attributeBlock(text) : { text }
}

/**
 * markdown-it-attrs' "end of block" rule: a `{...}` closing a heading is its
 * attributes, taken off the text (`## Title {.tip}` is #title), and its first
 * `#name` is the id (`{#install .tip}`). The block is the last `{` and the
 * first `}` two or more characters after it, which must end the text, with
 * something inside (two characters for `{.a}` and `{#a}`).
 */
function attributeBlock(text: string): { text: string; id?: string } {
  const start = text.lastIndexOf('{')
  if (start === -1 || text.indexOf('}', start + 2) !== text.length - 1) return { text }
  const block = text.slice(start)
  if (block.length < (/^\{[.#]/.test(block) ? 4 : 3)) return { text }
  const id = /(?:^\{|\s)#([^\s}]+)/.exec(block)?.[1]
  const rest = text.slice(0, start).replace(/ $/, '')
  return id === undefined ? { text: rest } : { text: rest, id }
}

/**
 * markdown-it-anchor slugs a heading's text and code_inline tokens (its
 * getTokensText). VitePress's restoreEntities joins the text tokens with each
 * character reference as written (`&amp;` stays `&amp;`, so
 * `## A &amp; B` is #a-amp-b) and an escaped `\&` as `&amp;`; a reference
 * with no text beside it is a token of its own, left decoded. An emoji
 * shortcode is an emoji token, not text, and an image an image token.
 */
function vitepressText(parts: HeadingPart[]): string {
  let out = ''
  parts.forEach((part, i) => {
    if (part.kind === 'code') out += part.text
    else if (part.kind === 'image') return
    // VitePress has no footnotes unless a plugin is added: `[^1]` is text.
    else if (part.kind === 'footnote') out += literalNote(part.label)
    else if (part.written === undefined) out += withoutEmoji(part.text)
    else if (parts[i - 1]?.kind !== 'text' && parts[i + 1]?.kind !== 'text' && LONE_REFERENCE.test(part.written)) out += part.text
    else if (part.written.startsWith('\\')) out += part.text === '&' ? '&amp;' : part.text
    else out += withoutEmoji(part.written)
  })
  return out
}

/**
 * VitePress's markdown-it-emoji makes `:tada:` an emoji token, which the id leaves out (`## Party :tada:` is
 * #party). Its names are not at hand here, so a shortcode counts when it stands as a word of its own, as emoji
 * are written: `astro:build:done` keeps its words, as it does on the site.
 */
const withoutEmoji = (text: string) => text.replace(EMOJI_SHORTCODES, '')
const EMOJI_SHORTCODES = /(?<=^|\s)(?::[a-z0-9_+-]+:)+(?=\s|$)/g

/** One character reference or backslash escape, the whole of a text token. */
const LONE_REFERENCE = /^(?:&#?\w+;|\\[\s\S])$/
