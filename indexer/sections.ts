/**
 * A parsed page -> its sections. The page is split at h2-h4; each section
 * keeps the full heading trail from the page title down. Text before the
 * first split heading belongs to the page-title section (anchor '').
 */
import type { SluggerName } from '../core/config/schema.ts'
import { createPageSlugger } from './anchors/slugger.ts'
import type { ParsedPage } from './sources/page.ts'

export interface Section {
  anchor: string
  /** Page title first, then each enclosing heading, then this section's heading. */
  trail: string[]
  text: string
}

export interface PageSections {
  title: string
  sections: Section[]
  /** Every heading id on the page, in order (split or not): what in-page links can target. */
  anchors: string[]
}

const SPLIT_MIN = 2
const SPLIT_MAX = 4

export function toSections(page: ParsedPage, slugger: SluggerName, fallbackTitle: string): PageSections {
  const slugs = createPageSlugger(slugger)
  const firstH1 = page.nodes.findIndex((n) => n.type === 'heading' && n.depth === 1)
  const h1 = firstH1 >= 0 ? page.nodes[firstH1] : undefined
  const title = (h1?.type === 'heading' && h1.text) || page.metaTitle || fallbackTitle

  const sections: Section[] = []
  const anchors: string[] = []
  let current: Section = { anchor: '', trail: [title], text: '' }
  const parts: string[] = []
  // Open headings by level (index = depth), so a new h3 under an h2 keeps the h2.
  const open: (string | undefined)[] = []

  const flush = () => {
    current.text = parts.join('\n\n')
    sections.push(current)
    parts.length = 0
  }

  page.nodes.forEach((node, i) => {
    if (node.type === 'text') {
      parts.push(node.text)
      return
    }
    // Every heading takes part in id de-duplication, split or not, as on the site.
    const anchor = slugs.slug(node.text, node.id)
    anchors.push(anchor)
    if (i === firstH1) return
    // A second h1 is treated as a top-level section of the page.
    const depth = node.depth === 1 ? SPLIT_MIN : node.depth
    if (depth > SPLIT_MAX) {
      if (node.text) parts.push(node.text)
      return
    }
    flush()
    open[depth] = node.text
    open.length = depth + 1
    const trail = [title]
    for (let d = SPLIT_MIN; d <= depth; d++) if (open[d] !== undefined) trail.push(open[d]!)
    current = { anchor, trail, text: '' }
  })
  flush()
  return { title, sections, anchors }
}
