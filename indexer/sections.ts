/**
 * A parsed page -> its sections, titled the way a reader sees the page. The
 * page is split at h2-h4; each section keeps the full heading trail from the
 * page title down. Text before the first split heading belongs to the
 * page-title section (anchor '').
 *
 * The title is the page's H1, else its metadata title (frontmatter, HTML
 * <title>), else its first heading of any level (a README that opens with an
 * HTML logo banner and then `## Reply` is "Reply"), and only then the file
 * name. A heading that repeats the title is the title, not a level of the
 * trail, so a trail names the title once, first.
 */
import type { SluggerName } from '../core/config/schema.ts'
import { anchorSource } from './anchors/heading-source.ts'
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
  const { title, titleAt } = pageTitle(page, fallbackTitle)
  const sameAsTitle = (text: string) => sameText(text, title)

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

  // Anchors of the open headings by level, for built pages whose headings may lack an id.
  const openAnchors: string[] = []

  page.nodes.forEach((node, i) => {
    if (node.type === 'text') {
      parts.push(node.text)
      return
    }
    // Every heading takes part in id de-duplication, split or not, as on the site.
    // A built page's heading without an id links to the nearest enclosing heading that has one, else the page.
    const source = anchorSource(node, slugger)
    const own = page.ownIds ? node.id : slugs.slug(source.text, source.id)
    if (own !== undefined) anchors.push(own)
    // An empty heading (an image-only banner) names nothing: it opens no section.
    if (i === titleAt || !node.text) return
    // A second h1 is treated as a top-level section of the page.
    const depth = node.depth === 1 ? SPLIT_MIN : node.depth
    if (depth > SPLIT_MAX) {
      if (node.text) parts.push(node.text)
      return
    }
    flush()
    open[depth] = node.text
    open.length = depth + 1
    const anchor = own ?? openAnchors.slice(SPLIT_MIN, depth).findLast((a) => a !== undefined) ?? ''
    openAnchors[depth] = anchor
    openAnchors.length = depth + 1
    const trail = [title]
    for (let d = SPLIT_MIN; d <= depth; d++) if (open[d] !== undefined && !sameAsTitle(open[d]!)) trail.push(open[d]!)
    current = { anchor, trail, text: '' }
  })
  flush()
  return { title, sections, anchors }
}

/**
 * Where the page title comes from, and which heading node (if any) carries it:
 * that heading opens the page-title section instead of a section of its own.
 */
function pageTitle(page: ParsedPage, fallbackTitle: string): { title: string; titleAt: number } {
  const headings = page.nodes.flatMap((n, i) => (n.type === 'heading' && n.text ? [{ i, depth: n.depth, text: n.text }] : []))
  const h1 = headings.find((h) => h.depth === 1)
  if (h1) return { title: h1.text, titleAt: h1.i }
  const first = headings[0]
  if (page.metaTitle) {
    // `title: Setup` in frontmatter and then `## Setup` first: one title, not a section under itself.
    return { title: page.metaTitle, titleAt: first && sameText(first.text, page.metaTitle) ? first.i : -1 }
  }
  if (first) return { title: first.text, titleAt: first.i }
  return { title: fallbackTitle, titleAt: -1 }
}

const sameText = (a: string, b: string) => a.trim().toLowerCase() === b.trim().toLowerCase()
