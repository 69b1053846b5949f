/**
 * Readable text of an HTML fragment found inside Markdown (a `<div>` block,
 * an inline `<Badge />`): tags removed, their text kept, scripts and styles
 * and comments dropped.
 */
import { fromHtml } from 'hast-util-from-html'
import { toText } from 'hast-util-to-text'

const ONLY_TAGS = /^(?:\s*(?:<!--[\s\S]*?-->|<\/?[A-Za-z][^<>]*>)\s*)*$/

export function htmlFragmentText(html: string, opts: { inline?: boolean } = {}): string {
  // Most fragments are bare tags (`<Badge ... />`, `</div>`): no parse needed.
  if (ONLY_TAGS.test(html)) return ''
  const tree = fromHtml(html, { fragment: true })
  const text = toText(tree, { whitespace: opts.inline ? 'pre' : 'normal' })
  return opts.inline ? text : text.trim()
}
