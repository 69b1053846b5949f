/** Where a passage links to and how it is labelled: the heading it was cut from. */
import { citationHref } from '../../core/prompt/build.ts'

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
