/** One question and everything the panel shows for it, state by state (spec 002). */
import { useMemo } from 'preact/hooks'
import { citedNumbers } from '../../core/prompt/cited.ts'
import { COPY } from './copy.ts'
import { passageHref, passageLabel } from './links.ts'
import { useRenderer } from './renderer.ts'
import type { PassageView, TurnView } from './view.ts'

export interface TurnActions {
  retry(turn: TurnView): void
  searchDocs(turn: TurnView): void
  feedback(turn: TurnView, rating: 'up' | 'down'): void
}

const EXCERPT_CHARS = 320

function excerpt(text: string): string {
  const flat = text.replace(/\s+/g, ' ').trim()
  return flat.length <= EXCERPT_CHARS ? flat : `${flat.slice(0, EXCERPT_CHARS).replace(/\s\S*$/, '')}…`
}

/** Ranked rows: a verbatim excerpt under a link to the heading it was cut from. */
function PassageRows({ passages }: { passages: PassageView[] }) {
  return (
    <ol class="dp-rows">
      {passages.map((p) => (
        <li key={p.id} class="dp-row">
          <a href={passageHref(p)}>{passageLabel(p)}</a>
          <blockquote>{excerpt(p.text)}</blockquote>
        </li>
      ))}
    </ol>
  )
}

/** Links only, for states where the passages are a pointer rather than the answer. */
function PassageLinks({ passages }: { passages: PassageView[] }) {
  // Several chunks of one section share a link: list it once.
  const unique = passages.filter((p, i) => passages.findIndex((q) => passageHref(q) === passageHref(p)) === i)
  return (
    <ul class="dp-links">
      {unique.map((p) => (
        <li key={p.id}>
          <a href={passageHref(p)}>{passageLabel(p)}</a>
        </li>
      ))}
    </ul>
  )
}

function Sources({ turn }: { turn: TurnView }) {
  const cited = citedNumbers(turn.text, turn.passages.length)
  if (cited.length === 0) return null
  return (
    <div class="dp-sources">
      <h3>{COPY.sources}</h3>
      <ol>
        {cited.map((n) => {
          const p = turn.passages[n - 1]!
          return (
            <li key={n} value={n}>
              <a href={passageHref(p)}>{passageLabel(p)}</a>
            </li>
          )
        })}
      </ol>
    </div>
  )
}

function RetryAndSearch({ turn, actions }: { turn: TurnView; actions: TurnActions }) {
  return (
    <div class="dp-actions">
      <button type="button" onClick={() => actions.retry(turn)}>
        {COPY.retry}
      </button>
      <button type="button" onClick={() => actions.searchDocs(turn)}>
        {COPY.searchDocs}
      </button>
    </div>
  )
}

/** Drawn, not an emoji: emoji fonts are missing on many systems. */
function Thumb({ down }: { down: boolean }) {
  return (
    <svg aria-hidden="true" viewBox="0 0 24 24" width="16" height="16" fill="none" stroke="currentColor" stroke-width="2" stroke-linecap="round" stroke-linejoin="round" style={down ? { transform: 'rotate(180deg)' } : undefined}>
      <path d="M7 10v11H3V10h4zm0 0l4-8a3 3 0 013 3v4h5.5a2 2 0 012 2.3l-1.4 8A2 2 0 0118.1 21H7" />
    </svg>
  )
}

function Feedback({ turn, actions }: { turn: TurnView; actions: TurnActions }) {
  if (turn.feedback) {
    return <p class="dp-note" role="status">{turn.feedbackError ? COPY.feedbackFailed : COPY.thanks}</p>
  }
  return (
    <div class="dp-feedback">
      <button type="button" aria-label={COPY.helpful} title={COPY.helpful} onClick={() => actions.feedback(turn, 'up')}>
        <Thumb down={false} />
      </button>
      <button type="button" aria-label={COPY.notHelpful} title={COPY.notHelpful} onClick={() => actions.feedback(turn, 'down')}>
        <Thumb down={true} />
      </button>
    </div>
  )
}

function Answer({ turn }: { turn: TurnView }) {
  const render = useRenderer()
  const html = useMemo(() => (render ? render(turn.text, turn.passages) : null), [render, turn.text, turn.passages])
  // Plain text until the renderer is here (Preact escapes it); separate keys so the two never share a node.
  return html === null ? (
    <div key="text" class="dp-answer">
      <p>{turn.text}</p>
    </div>
  ) : (
    <div key="html" class="dp-answer" dangerouslySetInnerHTML={{ __html: html }} />
  )
}

function Body({ turn, actions }: { turn: TurnView; actions: TurnActions }) {
  if (turn.searchOnly) {
    return turn.passages.length > 0 ? (
      <div class="dp-search" data-state="search">
        <p>{COPY.searchResults}</p>
        <PassageRows passages={turn.passages} />
      </div>
    ) : (
      <p data-state="search">{COPY.noResults}</p>
    )
  }
  if (turn.phase === 'searching') return <p class="dp-progress">{COPY.searching}</p>
  if (turn.phase === 'answering') {
    return turn.text ? <Answer turn={turn} /> : <p class="dp-progress">{COPY.answering}</p>
  }
  switch (turn.state) {
    case 'answered':
      return (
        <div data-state="answered">
          <Answer turn={turn} />
          <Sources turn={turn} />
          <Feedback turn={turn} actions={actions} />
        </div>
      )
    case 'partial':
      return (
        <div data-state="partial">
          <Answer turn={turn} />
          <p class="dp-cut">{COPY.partial}</p>
          <Sources turn={turn} />
          <div class="dp-actions">
            <button type="button" onClick={() => actions.retry(turn)}>
              {COPY.retry}
            </button>
          </div>
          <Feedback turn={turn} actions={actions} />
        </div>
      )
    case 'aborted':
      return (
        <div data-state="aborted">
          {turn.text ? <Answer turn={turn} /> : null}
          <p class="dp-note">{COPY.aborted}</p>
          <div class="dp-actions">
            <button type="button" onClick={() => actions.retry(turn)}>
              {COPY.retry}
            </button>
          </div>
        </div>
      )
    case 'hybrid':
      return (
        <div data-state="hybrid">
          <p class="dp-lead">{COPY.hybrid}</p>
          <PassageRows passages={turn.passages} />
          <RetryAndSearch turn={turn} actions={actions} />
          <Feedback turn={turn} actions={actions} />
        </div>
      )
    case 'rate-limited':
      return (
        <div data-state="rate-limited">
          <p class="dp-lead">{COPY.rateLimited(turn.resetAt)}</p>
          {turn.passages.length > 0 ? (
            <>
              <p>{COPY.meanwhile}</p>
              <PassageLinks passages={turn.passages} />
            </>
          ) : null}
        </div>
      )
    case 'refused':
      return (
        <div data-state="refused">
          <p class="dp-lead">{COPY.refused}</p>
          {turn.degraded ? <p class="dp-degraded">{COPY.degraded}</p> : null}
          <PassageLinks passages={turn.passages} />
        </div>
      )
    case 'error':
    default:
      return (
        <div data-state="error">
          <p role="alert" class="dp-error">
            {COPY.error}
          </p>
          <RetryAndSearch turn={turn} actions={actions} />
        </div>
      )
  }
}

export function Turn({ turn, actions, debug }: { turn: TurnView; actions: TurnActions; debug: boolean }) {
  return (
    <article class="dp-turn" data-phase={turn.phase} aria-busy={turn.phase !== 'settled'}>
      <p class="dp-question">{turn.question}</p>
      <Body turn={turn} actions={actions} />
      {debug && turn.phase === 'settled' && turn.receipt !== undefined ? (
        <details class="dp-debug" data-testid="dp-debug">
          <summary>{COPY.debugTitle}</summary>
          <pre tabIndex={0} aria-label={COPY.debugTitle}>
            {JSON.stringify(
              {
                ladder: turn.ladder ?? null,
                receipt: turn.receipt,
                cooldowns: turn.cooldowns ?? {},
                scores: turn.passages.map((p) => ({ id: p.id, score: p.score, channels: p.channels ?? null })),
              },
              null,
              2,
            )}
          </pre>
        </details>
      ) : null}
    </article>
  )
}
