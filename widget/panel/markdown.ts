/**
 * Model output is Markdown from a source we do not control: it is rendered
 * by marked with raw HTML shown as text, then sanitized by DOMPurify with a
 * short allow-list, so neither a model nor a docs page can run script or
 * plant a `javascript:` link (a link whose URL is refused shows its words as
 * text). Citation markers `[n]` become links to the
 * heading of the n-th passage the model was given.
 *
 * This module (marked and DOMPurify, most of the panel's weight) is its own
 * chunk, fetched when the panel opens rather than before it can be typed in.
 */
import DOMPurify from 'dompurify'
import { Marked, type TokenizerAndRendererExtension, type Tokens } from 'marked'
import { COPY } from './copy.ts'
import { CITATION_MARKER, matchNumbers } from '../../core/prompt/cited.ts'
import { passageHref, passageLabel, type CitationTarget } from './links.ts'

const ALLOWED_TAGS = [
  'a', 'p', 'br', 'strong', 'em', 'del', 'code', 'pre', 'blockquote', 'ul', 'ol', 'li',
  'h1', 'h2', 'h3', 'h4', 'h5', 'h6', 'hr', 'table', 'thead', 'tbody', 'tr', 'th', 'td', 'sup', 'span',
  // Only this renderer writes these (raw HTML from the model is text): a code block's copy button.
  'div', 'button',
]
const ALLOWED_ATTR = ['href', 'title', 'class', 'data-cite', 'align', 'type', 'aria-label', 'data-copy-code']
// Relative links, fragments and http(s) only: no javascript:, data:, vbscript: or other schemes.
const SAFE_URI = /^(?:https?:\/\/|\/|#|\.{1,2}\/|[^:/?#]*(?:[/?#]|$))/i

function escapeHtml(text: string): string {
  return text.replace(/[&<>"']/g, (c) => `&#${c.charCodeAt(0)};`)
}

interface CiteToken extends Tokens.Generic {
  type: 'dpcite'
  numbers: number[]
}

const LEADING_MARKER = new RegExp(`^(?:${CITATION_MARKER.source})`)

function citationExtension(targets: readonly CitationTarget[]): TokenizerAndRendererExtension {
  return {
    name: 'dpcite',
    level: 'inline',
    start: (src: string) => src.match(/\[\^?\d|【\d/)?.index,
    tokenizer(src: string): CiteToken | undefined {
      const match = LEADING_MARKER.exec(src)
      if (!match) return undefined
      const numbers = matchNumbers(match)
      return { type: 'dpcite', raw: match[0], numbers }
    },
    renderer(token) {
      const { numbers } = token as CiteToken
      return numbers
        .map((n) => {
          const target = targets[n - 1]
          if (!target) return escapeHtml(`[${n}]`)
          const label = passageLabel(target)
          return `<a class="dp-cite" data-cite="${n}" href="${escapeHtml(passageHref(target))}" title="${escapeHtml(label)}" aria-label="${escapeHtml(COPY.citation(n, label))}">[${n}]</a>`
        })
        .join('')
    },
  }
}

/** The Markdown reading of an answer: what is code, what is prose, what is a citation. */
export function answerMarked(targets: readonly CitationTarget[]): Marked {
  const marked = new Marked({ gfm: true, breaks: false, async: false })
  marked.use({
    extensions: [citationExtension(targets)],
    renderer: {
      // Raw HTML in model output is shown as text, never parsed.
      html: (token: Tokens.HTML | Tokens.Tag) => escapeHtml(token.text),
      // Under the question's h3 (Turn.tsx): a model's # was an h1 in a 30px type, and a level above the question it answers.
      heading(token: Tokens.Heading) {
        const level = Math.min(token.depth + 3, 6)
        return `<h${level}>${this.parser.parseInline(token.tokens)}</h${level}>`
      },
      // The panel copies the code next to a button with data-copy-code (one click handler for every code block).
      code: (token: Tokens.Code) =>
        `<div class="dp-code"><button type="button" class="dp-copy" data-copy-code aria-label="${COPY.copyCode}"><span class="dp-copy-label">${COPY.copy}</span></button><pre><code>${escapeHtml(token.text)}</code></pre></div>`,
    },
  })
  return marked
}

/** `pageUrl`: the page the panel is on; a link to another site is marked with its host. */
export function renderAnswer(markdown: string, targets: readonly CitationTarget[], pageUrl = location.href): string {
  const html = answerMarked(targets).parse(markdown) as string
  const clean = DOMPurify.sanitize(html, {
    ALLOWED_TAGS,
    ALLOWED_ATTR,
    ALLOWED_URI_REGEXP: SAFE_URI,
    ALLOW_DATA_ATTR: false,
    RETURN_DOM_FRAGMENT: true,
  })
  // A link whose URL was refused has lost its href: its words stay, as text, not as a link that goes nowhere.
  for (const link of clean.querySelectorAll('a:not([href])')) link.replaceWith(...link.childNodes)
  markOffsite(clean, pageUrl)
  // Serialized in DOMPurify's own inert document, as its string output is.
  const box = clean.ownerDocument.createElement('div')
  box.append(clean)
  return box.innerHTML
}

/**
 * A link to another site says where it goes, after its words: a model steered by text it was given could dress
 * a phishing link in the docs' own words. Citations are the panel's own links and are left as they are.
 */
function markOffsite(root: DocumentFragment, pageUrl: string): void {
  const here = new URL(pageUrl).origin
  for (const link of root.querySelectorAll('a[href]:not(.dp-cite)')) {
    const to = new URL(link.getAttribute('href')!, pageUrl)
    if (to.origin === here) continue
    link.setAttribute('rel', 'noopener noreferrer nofollow')
    const host = root.ownerDocument.createElement('span')
    host.className = 'dp-offsite'
    host.textContent = ` (${to.hostname})`
    link.append(host)
  }
}
