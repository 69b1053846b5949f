/** What a turn was based on, as links to the sections: one row per section, whatever the retrieval returned. */
import { COPY } from './copy.ts'
import { answerSources, passageLabel, sectionRows, type SectionRow } from './links.ts'
import { givenPassages, type PassageView, type TurnView } from './view.ts'

function SectionLinks({ rows, marked }: { rows: SectionRow<PassageView>[]; marked?: boolean }) {
  return (
    <ul class={marked ? 'dp-links dp-marked' : 'dp-links'}>
      {rows.map((row) => (
        <li key={row.href}>
          {marked ? <span class="dp-marks">{row.numbers.map((n) => `[${n}]`).join('')} </span> : null}
          <a href={row.href}>{passageLabel(row.first)}</a>
        </li>
      ))}
    </ul>
  )
}

/** Links only, for states where the passages are a pointer rather than the answer (refused, rate-limited). */
export function PassageLinks({ passages }: { passages: PassageView[] }) {
  return <SectionLinks rows={sectionRows(passages)} />
}

/** While a model is asked and writes: what was found, collapsed, so the wait is visibly the model's. */
export function Searched({ passages }: { passages: PassageView[] }) {
  if (passages.length === 0) return null
  return (
    <details class="dp-searched">
      <summary>{COPY.passagesFound(passages.length)}</summary>
      <SectionLinks rows={sectionRows(passages)} />
    </details>
  )
}

/**
 * An answer's sources: the passages the model was given, the cited sections
 * first with their markers, the rest under "Also searched" (collapsed). An
 * answer that cites nothing still lists what it was based on, open.
 */
export function Sources({ turn }: { turn: TurnView }) {
  const given = givenPassages(turn)
  if (given.length === 0) return null
  const { cited, uncited } = answerSources(turn.text, given)
  return (
    <div class="dp-sources">
      <h4>{COPY.sources}</h4>
      {cited.length > 0 ? (
        <>
          <SectionLinks rows={cited} marked />
          {uncited.length > 0 ? (
            <details class="dp-also">
              <summary>{COPY.alsoSearched(uncited.length)}</summary>
              <SectionLinks rows={uncited} />
            </details>
          ) : null}
        </>
      ) : (
        <SectionLinks rows={uncited} />
      )}
    </div>
  )
}
