/** Where a passage links to, how it is labelled, and how passages group into sections and pages. */
import { citationHref } from '../../core/prompt/build.ts'
import { citedNumbers } from '../../core/prompt/cited.ts'

export interface CitationTarget {
  url: string
  anchor: string
  title: string
  trail: string[]
}

/** A passage's link: its page URL and heading anchor, the same href the prompt gives the model. */
export const passageHref = citationHref

export function passageLabel(p: { title: string; trail: string[] }): string {
  const trail = p.trail.length > 0 ? p.trail : [p.title]
  return trail.join(' › ')
}

/** One heading's passages: several chunks of a section share its link and show as one row. */
export interface SectionRow<P extends CitationTarget> {
  href: string
  /** The best-ranked passage of the section. */
  first: P
  /** 1-based positions of the section's passages in the list (the model's [n]). */
  numbers: number[]
}

export function sectionRows<P extends CitationTarget>(passages: readonly P[]): SectionRow<P>[] {
  const rows = new Map<string, SectionRow<P>>()
  passages.forEach((p, i) => {
    const href = passageHref(p)
    const row = rows.get(href)
    if (row) row.numbers.push(i + 1)
    else rows.set(href, { href, first: p, numbers: [i + 1] })
  })
  return [...rows.values()]
}

/**
 * What an answer was based on: the passages the model was given, one row
 * per section, split into the sections the answer cites (in the order of
 * their first citation) and the rest.
 */
export function answerSources<P extends CitationTarget>(text: string, given: readonly P[]): { cited: SectionRow<P>[]; uncited: SectionRow<P>[] } {
  const cited = new Set(citedNumbers(text, given.length))
  const rows = sectionRows(given)
  const firstCited = (row: SectionRow<P>) => Math.min(...row.numbers.filter((n) => cited.has(n)))
  return {
    cited: rows.filter((r) => r.numbers.some((n) => cited.has(n))).sort((a, b) => firstCited(a) - firstCited(b)),
    uncited: rows.filter((r) => !r.numbers.some((n) => cited.has(n))),
  }
}

export interface PageGroup<P extends CitationTarget> {
  url: string
  title: string
  sections: SectionRow<P>[]
}

/** Search results grouped by page, pages in the order of their best result. */
export function pageGroups<P extends CitationTarget>(passages: readonly P[]): PageGroup<P>[] {
  const pages = new Map<string, PageGroup<P>>()
  for (const row of sectionRows(passages)) {
    const page = pages.get(row.first.url)
    if (page) page.sections.push(row)
    else pages.set(row.first.url, { url: row.first.url, title: row.first.title, sections: [row] })
  }
  return [...pages.values()]
}

/** A section's label under its page's heading: the trail below the page title. */
export function sectionLabel(p: CitationTarget): string {
  const below = p.trail.slice(1)
  return below.length > 0 ? below.join(' › ') : p.title
}

/** An answer to paste elsewhere: its Markdown, then the cited sections as full links. */
export function answerWithSources<P extends CitationTarget>(text: string, given: readonly P[], base: string): string {
  const { cited } = answerSources(text, given)
  if (cited.length === 0) return text
  const lines = cited.map((r) => `${r.numbers.map((n) => `[${n}]`).join('')} ${passageLabel(r.first)}: ${new URL(r.href, base).href}`)
  return `${text}\n\nSources:\n${lines.join('\n')}`
}
