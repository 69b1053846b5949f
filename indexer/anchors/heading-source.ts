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
  if (!heading.parts) return { text: generator === 'vitepress' ? withoutEmoji(heading.text) : heading.text, id: heading.id }
  const text = generator === 'vitepress' ? vitepressText(heading.parts) : heading.parts.map(plainText).join('')
  return parseExplicitId(text.replace(/[ \t]+/g, ' ').trim())
}

function plainText(part: HeadingPart): string {
  return part.kind === 'image' ? part.alt : part.text
}

/**
 * markdown-it-anchor slugs a heading's text and code_inline tokens (its
 * getTokensText). VitePress's restoreEntities joins the text tokens with each
 * character reference as written (`&amp;` stays `&amp;`, so
 * `## A &amp; B` is #a-amp-b) and an escaped `\&` as `&amp;`; a reference
 * with no text beside it is a token of its own, left decoded. An emoji
 * shortcode is an emoji token, not text.
 */
function vitepressText(parts: HeadingPart[]): string {
  let out = ''
  parts.forEach((part, i) => {
    if (part.kind === 'code') out += part.text
    else if (part.kind === 'image') out += part.alt
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
