/**
 * What the live status line announces when a turn settles. The search view's
 * lead line is written here too, so the line announces what the screen says.
 */
import { COPY } from './copy.ts'
import { pageGroups, type CitationTarget, type PageGroup } from './links.ts'
import type { TurnView } from './view.ts'

/** The search view's first line: the count of results, or that none matches closely (the gate said so). */
export function searchLead(pages: readonly PageGroup<CitationTarget>[], closeMatch: boolean | undefined): string {
  if (pages.length === 0) return COPY.noResults
  if (closeMatch === false) return COPY.nearest
  return COPY.searchResults(pages.reduce((n, p) => n + p.sections.length, 0), pages.length)
}

/** What the status line announces when a turn settles (an error has its own role="alert": Turn.tsx). */
export function settledStatus(change: Partial<TurnView>): string {
  switch (change.state) {
    case 'answered':
      return COPY.answerReady
    case 'partial':
      return COPY.partial
    case 'hybrid':
      return COPY.hybrid
    case 'search':
      return searchLead(pageGroups(change.passages ?? []), change.closeMatch)
    case 'refused':
      return COPY.refused
    case 'rate-limited':
      return COPY.rateLimited(change.resetAt, change.receipt?.stoppedBy)
    case 'aborted':
      return COPY.aborted
    default:
      return ''
  }
}
