/**
 * Readable text of an HTML fragment found inside Markdown (a `<div>` block,
 * an inline `<Badge />`): tags removed, their text kept, scripts and styles
 * and comments dropped.
 *
 * The HTML parser (some fifty modules, ~50 ms to load) is loaded only for a
 * page that has a fragment with text in it: most fragments are bare tags, and
 * MDX has no HTML blocks, so a re-index of an MDX page never loads it. Parsing
 * is synchronous, so a page that needs it before it is loaded throws
 * HtmlParserNeeded, and is parsed again after loadHtmlParser().
 */
import type { fromHtml as FromHtml } from 'hast-util-from-html'
import type { toText as ToText } from 'hast-util-to-text'
import type { Root, RootContent } from 'hast'

const ONLY_TAGS = /^(?:\s*(?:<!--[\s\S]*?-->|<\/?[A-Za-z][^<>]*>)\s*)*$/

let hast: { fromHtml: typeof FromHtml; toText: typeof ToText } | undefined

export class HtmlParserNeeded extends Error {
  override name = 'HtmlParserNeeded'
  constructor() {
    super('this page has HTML with text in it: call loadHtmlParser() and parse it again')
  }
}

export async function loadHtmlParser(): Promise<void> {
  if (hast) return
  const [{ fromHtml }, { toText }] = await Promise.all([import('hast-util-from-html'), import('hast-util-to-text')])
  hast = { fromHtml, toText }
}

/** `attempt(false)`, and once more as `attempt(true)` after loading the HTML parser when the page turned out to need it. */
export async function withHtmlParser<T>(attempt: (again: boolean) => T): Promise<T> {
  try {
    return attempt(false)
  } catch (error) {
    if (!(error instanceof HtmlParserNeeded)) throw error
    await loadHtmlParser()
    return attempt(true)
  }
}

/**
 * A template placeholder: `{{ item.text }}` in HTML inside Markdown is filled
 * in by the site generator's templates when the page renders (Vue on
 * VitePress, Liquid on Jekyll, Nunjucks on Eleventy), so the words a reader
 * sees are not in the source, and the placeholder's are not what they see.
 */
const PLACEHOLDER = /\{\{[\s\S]*?\}\}/g

/** Elements whose text is shown as written: a placeholder in them is the docs showing template syntax. */
const LITERAL = new Set(['code', 'pre', 'kbd', 'samp'])

/** Removes the template placeholders from the text of `node`, except in code. */
function dropPlaceholders(node: Root | RootContent): void {
  if (node.type === 'text') node.value = node.value.replace(PLACEHOLDER, '')
  else if ((node.type === 'root' || node.type === 'element') && !(node.type === 'element' && LITERAL.has(node.tagName))) node.children.forEach(dropPlaceholders)
}

export function htmlFragmentText(html: string, opts: { inline?: boolean } = {}): string {
  // Most fragments are bare tags (`<Badge ... />`, `</div>`): no parse needed.
  if (ONLY_TAGS.test(html)) return ''
  if (!hast) throw new HtmlParserNeeded()
  const tree = hast.fromHtml(html, { fragment: true })
  if (html.includes('{{')) dropPlaceholders(tree)
  const text = hast.toText(tree, { whitespace: opts.inline ? 'pre' : 'normal' })
  return opts.inline ? text : text.trim()
}
