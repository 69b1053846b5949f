/**
 * The search view: what a site without a chat chain shows for every
 * question, and what "Search the docs" opens. Results grouped by page (the
 * page's best result first), one row per section, each a legible excerpt
 * with the matched terms marked. No outage sentence and no Retry: nothing
 * failed, this is the product.
 */
import { COPY } from './copy.ts'
import { pageGroups, sectionLabel } from './links.ts'
import { PassageExcerpt, type ExcerptSource } from './PassageExcerpt.tsx'
import type { TurnView } from './view.ts'

export function SearchView({ turn, source }: { turn: TurnView; source: ExcerptSource }) {
  const pages = pageGroups(turn.passages)
  if (pages.length === 0) {
    return (
      <div class="dp-search" data-state="search">
        <p class="dp-lead">{COPY.noResults}</p>
      </div>
    )
  }
  const rows = pages.reduce((n, p) => n + p.sections.length, 0)
  return (
    <div class="dp-search" data-state="search">
      <p class="dp-lead">{turn.closeMatch === false ? COPY.nearest : COPY.searchResults(rows, pages.length)}</p>
      <ol class="dp-pages">
        {pages.map((page) => (
          <li key={page.url} class="dp-page">
            <h3>
              <a href={page.url}>{page.title}</a>
            </h3>
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
