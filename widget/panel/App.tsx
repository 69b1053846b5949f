/** The panel: a modal dialog holding the conversation and the question box. */
import { useCallback, useEffect, useRef, useState } from 'preact/hooks'
import { COPY } from './copy.ts'
import type { Engine } from './engine.ts'
import { Turn, type TurnActions } from './Turn.tsx'
import type { TurnView } from './view.ts'

export interface AppProps {
  engine: Engine
  debug: boolean
  searchUrl: string
  /** Set by the controller; the panel reports its own close (Esc, close button). */
  open: boolean
  initialQuestion?: string | undefined
  onClose(): void
}

const FOCUSABLE = 'a[href], button:not([disabled]), textarea:not([disabled]), input:not([disabled]), summary, [tabindex]:not([tabindex="-1"])'

export function App({ engine, debug, searchUrl, open, initialQuestion, onClose }: AppProps) {
  const [turns, setTurns] = useState<TurnView[]>([])
  const [draft, setDraft] = useState('')
  const [busy, setBusy] = useState(false)
  const abortRef = useRef<AbortController | null>(null)
  const dialogRef = useRef<HTMLDivElement>(null)
  const inputRef = useRef<HTMLTextAreaElement>(null)
  const logRef = useRef<HTMLDivElement>(null)
  const nextId = useRef(1)

  const patch = useCallback((id: number, change: Partial<TurnView>) => {
    setTurns((all) => all.map((t) => (t.id === id ? { ...t, ...change } : t)))
  }, [])

  const ask = useCallback(
    async (question: string) => {
      const q = question.trim()
      if (!q || abortRef.current) return
      const id = nextId.current++
      const history = turns
        .filter((t) => t.state === 'answered' || t.state === 'partial')
        .slice(-3)
        .map((t) => ({ question: t.question, answer: t.text }))
      setTurns((all) => [...all, { id, question: q, phase: 'searching', text: '', passages: [], degraded: false }])
      setDraft('')
      const controller = new AbortController()
      abortRef.current = controller
      setBusy(true)
      try {
        await engine.ask(q, history, controller.signal, (change) => patch(id, change))
      } finally {
        abortRef.current = null
        setBusy(false)
        inputRef.current?.focus()
      }
    },
    [engine, turns, patch],
  )

  const actions: TurnActions = {
    retry: (turn) => void ask(turn.question),
    searchDocs: (turn) => {
      if (searchUrl) {
        location.assign(searchUrl.replace('{q}', encodeURIComponent(turn.question)))
        return
      }
      const id = nextId.current++
      setTurns((all) => [
        ...all,
        { id, question: turn.question, phase: 'searching', text: '', passages: [], degraded: false, searchOnly: true },
      ])
      engine.search(turn.question).then(
        (passages) => patch(id, { phase: 'settled', passages }),
        () => patch(id, { phase: 'settled', passages: [] }),
      )
    },
    feedback: (turn, rating) => {
      patch(turn.id, { feedback: rating })
      engine.feedback(turn, rating).then(
        (ok) => patch(turn.id, { feedbackError: !ok }),
        () => patch(turn.id, { feedbackError: true }),
      )
    },
  }

  useEffect(() => {
    if (!open) return
    inputRef.current?.focus()
    if (initialQuestion) void ask(initialQuestion)
    // Only on opening: a new initial question comes with a new open.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [open, initialQuestion])

  useEffect(() => {
    const log = logRef.current
    if (log) log.scrollTop = log.scrollHeight
  }, [turns])

  const onKeyDown = (event: KeyboardEvent) => {
    if (event.key === 'Escape') {
      event.preventDefault()
      event.stopPropagation()
      if (abortRef.current) abortRef.current.abort()
      else onClose()
      return
    }
    if (event.key !== 'Tab' || !dialogRef.current) return
    // Keep focus inside the dialog while it is open.
    const items = [...dialogRef.current.querySelectorAll<HTMLElement>(FOCUSABLE)].filter((el) => el.offsetParent !== null)
    if (items.length === 0) return
    const root = dialogRef.current.getRootNode() as ShadowRoot
    const active = root.activeElement
    const first = items[0]!
    const last = items[items.length - 1]!
    if (event.shiftKey && active === first) {
      event.preventDefault()
      last.focus()
    } else if (!event.shiftKey && active === last) {
      event.preventDefault()
      first.focus()
    }
  }

  if (!open) return null

  return (
    <div class="dp-backdrop" onClick={(e) => e.target === e.currentTarget && onClose()}>
      <div
        class="dp-dialog"
        role="dialog"
        aria-modal="true"
        aria-labelledby="dp-title"
        ref={dialogRef}
        onKeyDown={onKeyDown}
      >
        <header class="dp-header">
          <h2 id="dp-title">{COPY.title}</h2>
          <button type="button" class="dp-close" aria-label={COPY.close} onClick={onClose}>
            <span aria-hidden="true">×</span>
          </button>
        </header>
        <div class="dp-log" ref={logRef} aria-live="polite" tabIndex={-1}>
          {turns.length === 0 ? <p class="dp-empty">{COPY.empty}</p> : null}
          {turns.map((t) => (
            <Turn key={t.id} turn={t} actions={actions} debug={debug} />
          ))}
        </div>
        <form
          class="dp-form"
          onSubmit={(e) => {
            e.preventDefault()
            void ask(draft)
          }}
        >
          <label for="dp-input" class="dp-visually-hidden">
            {COPY.placeholder}
          </label>
          <textarea
            id="dp-input"
            ref={inputRef}
            rows={1}
            value={draft}
            placeholder={COPY.placeholder}
            onInput={(e) => setDraft((e.target as HTMLTextAreaElement).value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
                e.preventDefault()
                void ask(draft)
              }
            }}
          />
          {busy ? (
            <button type="button" class="dp-stop" onClick={() => abortRef.current?.abort()}>
              {COPY.stop}
            </button>
          ) : (
            <button type="submit" class="dp-ask" disabled={!draft.trim()}>
              {COPY.ask}
            </button>
          )}
        </form>
      </div>
    </div>
  )
}
