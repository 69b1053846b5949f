/**
 * The search view: what a site without a chat chain shows for every
 * question, and what "Search the docs" opens. Results grouped by page (the
 * page's best result first), one row per section, each a legible excerpt
 * with the matched terms marked. No outage sentence and no Retry: nothing
 * failed, this is the product.
 */
import { pageGroups, sectionLabel } from './links.ts'
import { PassageExcerpt, type ExcerptSource } from './PassageExcerpt.tsx'
import { searchLead } from './status.ts'
import type { TurnView } from './view.ts'

export function SearchView({ turn, source }: { turn: TurnView; source: ExcerptSource }) {
  const pages = pageGroups(turn.passages)
  // The same words the status line announces when the turn settles.
  const lead = <p class="dp-lead">{searchLead(pages, turn.closeMatch)}</p>
  if (pages.length === 0) {
    return (
      <div class="dp-search" data-state="search">
        {lead}
      </div>
    )
  }
  return (
    <div class="dp-search" data-state="search">
      {lead}
      <ol class="dp-pages">
        {pages.map((page) => (
          <li key={page.url} class="dp-page">
            <h4>
              <a href={page.url}>{page.title}</a>
            </h4>
            <ul class="dp-hits">
              {page.sections.map((row) => (
                <li key={row.href} class="dp-row">
                  {row.first.anchor ? <a href={row.href}>{sectionLabel(row.first)}</a> : null}
                  <PassageExcerpt text={row.first.text} source={source} />
                </li>
              ))}
            </ul>
          </li>
        ))}
      </ol>
    </div>
  )
}
