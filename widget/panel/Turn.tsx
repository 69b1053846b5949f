/** One question and everything the panel shows for it, state by state (spec 002). */
import { useEffect, useMemo, useState } from 'preact/hooks'
import { COPIED_MS, COPY } from './copy.ts'
import { PassageExcerpt, type ExcerptSource } from './PassageExcerpt.tsx'
import type { LexicalSettings } from '../../core/retrieval/lexical.ts'
import { passageLabel, sectionRows } from './links.ts'
import { useRenderer } from './renderer.ts'
import { SearchView } from './SearchView.tsx'
import { streamingMarkdown } from './streaming.ts'
import { PassageLinks, Searched, Sources } from './Sources.tsx'
import { givenPassages, type PassageView, type TurnView } from './view.ts'

export interface TurnActions {
  retry(turn: TurnView): void
  searchDocs(turn: TurnView): void
  feedback(turn: TurnView, rating: 'up' | 'down'): void
  /** Copies the answer with its sources; true when the browser allowed it. */
  copyAnswer(turn: TurnView): Promise<boolean>
}

/** Ranked rows, one per section: a verbatim excerpt under a link to the heading it was cut from. */
function PassageRows({ passages, source }: { passages: PassageView[]; source: ExcerptSource }) {
  return (
    <ol class="dp-rows">
      {sectionRows(passages).map((row) => (
        <li key={row.href} class="dp-row">
          <a href={row.href}>{passageLabel(row.first)}</a>
          <PassageExcerpt text={row.first.text} source={source} />
        </li>
      ))}
    </ol>
  )
}

/** Retry, and with `search` the offer to search the docs (only where the search itself still works). */
function RetryActions({ turn, actions, search = false }: { turn: TurnView; actions: TurnActions; search?: boolean }) {
  return (
    <>
      {search && turn.searchFailed ? <p class="dp-note">{COPY.searchError}</p> : null}
      <div class="dp-actions">
        <button type="button" onClick={() => actions.retry(turn)}>
          {COPY.retry}
        </button>
        {search ? (
          <button type="button" onClick={() => actions.searchDocs(turn)}>
            {COPY.searchDocs}
          </button>
        ) : null}
      </div>
    </>
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

/** Thumbs; after a rating, a note in their place (focus then moves to the question box). */
function Feedback({ turn, actions }: { turn: TurnView; actions: TurnActions }) {
  if (turn.feedback) {
    return (
      <p class="dp-note" role="status">
        {turn.feedbackError ? COPY.feedbackFailed : COPY.thanks}
      </p>
    )
  }
  return (
    <>
      <button type="button" aria-label={COPY.helpful} title={COPY.helpful} onClick={() => actions.feedback(turn, 'up')}>
        <Thumb down={false} />
      </button>
      <button type="button" aria-label={COPY.notHelpful} title={COPY.notHelpful} onClick={() => actions.feedback(turn, 'down')}>
        <Thumb down={true} />
      </button>
    </>
  )
}

/** Under an answer: try again (a cut-off answer), copy it with its sources, and rate it. */
function AnswerActions({ turn, actions, retry = false }: { turn: TurnView; actions: TurnActions; retry?: boolean }) {
  const [copied, setCopied] = useState(false)
  useEffect(() => {
    if (!copied) return
    const timer = setTimeout(() => setCopied(false), COPIED_MS)
    return () => clearTimeout(timer)
  }, [copied])
  return (
    <div class="dp-feedback">
      {retry ? (
        <button type="button" onClick={() => actions.retry(turn)}>
          {COPY.retry}
        </button>
      ) : null}
      <button type="button" class="dp-copy" onClick={() => void actions.copyAnswer(turn).then(setCopied)}>
        {copied ? COPY.copied : COPY.copyAnswer}
      </button>
      <Feedback turn={turn} actions={actions} />
    </div>
  )
}

function Answer({ turn }: { turn: TurnView }) {
  const rich = useRenderer()
  const text = turn.phase === 'answering' ? streamingMarkdown(turn.text) : turn.text
  const html = useMemo(() => (rich ? rich.renderAnswer(text, givenPassages(turn)) : null), [rich, text, turn.passages, turn.given])
  // Plain text until the renderer is here (Preact escapes it); separate keys so the two never share a node.
  return html === null ? (
    <div key="text" class="dp-answer" dir="auto">
      <p>{text}</p>
    </div>
  ) : (
    <div key="html" class="dp-answer" dir="auto" dangerouslySetInnerHTML={{ __html: html }} />
  )
}

/** Seconds since the model was asked, once the wait is long enough to wonder about. */
function Waited() {
  const [seconds, setSeconds] = useState(0)
  useEffect(() => {
    const started = Date.now()
    const timer = setInterval(() => setSeconds(Math.floor((Date.now() - started) / 1000)), 1000)
    return () => clearInterval(timer)
  }, [])
  return seconds >= 3 ? <span class="dp-waited"> {COPY.seconds(seconds)}</span> : null
}

interface BodyProps {
  turn: TurnView
  actions: TurnActions
  source: ExcerptSource
}

function Body({ turn, actions, source }: BodyProps) {
  if (turn.phase === 'searching') return <p class="dp-progress">{COPY.searching}</p>
  if (turn.phase === 'asking') {
    return (
      <div data-phase-body="asking">
        <p class="dp-progress">
          {COPY.asking}
          <Waited />
        </p>
        <Searched passages={turn.passages} />
      </div>
    )
  }
  if (turn.phase === 'answering') {
    return (
      <div data-phase-body="answering">
        <Answer turn={turn} />
        <Searched passages={turn.passages} />
      </div>
    )
  }
  switch (turn.state) {
    case 'search':
      return <SearchView turn={turn} source={source} />
    case 'answered':
      return (
        <div data-state="answered">
          <Answer turn={turn} />
          <Sources turn={turn} />
          <AnswerActions turn={turn} actions={actions} />
        </div>
      )
    case 'partial':
      return (
        <div data-state="partial">
          <Answer turn={turn} />
          <p class="dp-cut">{COPY.partial}</p>
          <Sources turn={turn} />
          <AnswerActions turn={turn} actions={actions} retry />
        </div>
      )
    case 'aborted':
      // Stopped after some of the answer came: kept as a cut-off answer is (its [n] name passages the Sources list).
      return turn.text ? (
        <div data-state="aborted">
          <Answer turn={turn} />
          <p class="dp-note">{COPY.aborted}</p>
          <Sources turn={turn} />
          <AnswerActions turn={turn} actions={actions} retry />
        </div>
      ) : (
        <div data-state="aborted">
          <p class="dp-note">{COPY.aborted}</p>
          <RetryActions turn={turn} actions={actions} />
        </div>
      )
    case 'hybrid':
      return (
        <div data-state="hybrid">
          <p class="dp-lead">{COPY.hybrid}</p>
          <PassageRows passages={turn.passages} source={source} />
          <RetryActions turn={turn} actions={actions} search />
          <div class="dp-feedback">
            <Feedback turn={turn} actions={actions} />
          </div>
        </div>
      )
    case 'rate-limited':
      return (
        <div data-state="rate-limited">
          <p class="dp-lead">{COPY.rateLimited(turn.resetAt, turn.receipt?.stoppedBy)}</p>
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
            {turn.searchOnly ? COPY.searchError : COPY.error}
          </p>
          {turn.searchOnly ? null : <p class="dp-note">{COPY.indexCause}</p>}
          {/* Search the docs: the site's own search (data-search-url) never depended on this index; else the search view tries the index again. */}
          <RetryActions turn={turn} actions={actions} search={!turn.searchOnly} />
        </div>
      )
  }
}

export interface TurnProps {
  turn: TurnView
  actions: TurnActions
  debug: boolean
  /** The index's BM25 settings, to mark the terms it matched (absent until the manifest is in). */
  lexical: LexicalSettings | undefined
}

export function Turn({ turn, actions, debug, lexical }: TurnProps) {
  const source = useMemo(() => ({ question: turn.question, lexical }), [turn.question, lexical])
  return (
    <article class="dp-turn" data-turn-id={turn.id} data-phase={turn.phase} aria-busy={turn.phase !== 'settled'}>
      {/* A heading: in a long conversation, a screen reader moves from question to question by heading. */}
      <h3 class="dp-question" dir="auto">
        {turn.question}
      </h3>
      <Body turn={turn} actions={actions} source={source} />
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
