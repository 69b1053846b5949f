/** The panel: a modal dialog holding the conversation and the question box. */
import { useCallback, useEffect, useLayoutEffect, useRef, useState } from 'preact/hooks'
import type { Manifest } from '../../core/index/format.ts'
import type { LexicalSettings } from '../../core/retrieval/lexical.ts'
import { isSingleKey, SINGLE_KEYS_OFF, singleKeysOff, type WidgetOptions } from '../options.ts'
import { copyText } from './clipboard.ts'
import type { ConversationStore } from './conversation.ts'
import { COPIED_MS, COPY } from './copy.ts'
import { isSearchOnly, type Engine } from './engine.ts'
import { answerWithSources } from './links.ts'
import { questionLength } from './question-length.ts'
import { samePageLink, sectionOf } from './same-page.ts'
import { settledStatus } from './status.ts'
import { Turn, type TurnActions } from './Turn.tsx'
import { givenPassages, promptHistory, searchContext, type TurnView } from './view.ts'

export interface AppProps {
  engine: Engine
  options: Pick<WidgetOptions, 'debug' | 'searchUrl' | 'hotkeys' | 'demoNotice'>
  store: ConversationStore
  /** Set by the controller; the panel reports its own close (Esc, close button). */
  open: boolean
  initialQuestion?: string | undefined
  /** `section`: the heading a citation to this page points at, where focus goes once the panel has stepped aside. */
  onClose(section?: HTMLElement): void
}

const FOCUSABLE = 'a[href], button:not([disabled]), textarea:not([disabled]), input:not([disabled]), summary, [tabindex]:not([tabindex="-1"])'

export function App({ engine, options, store, open, initialQuestion, onClose }: AppProps) {
  const [turns, setTurns] = useState<TurnView[]>(() => store.load())
  const [draft, setDraft] = useState('')
  const [busy, setBusy] = useState(false)
  const [manifest, setManifest] = useState<Manifest | undefined>()
  const [status, setStatus] = useState('')
  const [singleOff, setSingleOff] = useState(singleKeysOff)
  const abortRef = useRef<AbortController | null>(null)
  const dialogRef = useRef<HTMLDivElement>(null)
  const inputRef = useRef<HTMLTextAreaElement>(null)
  const logRef = useRef<HTMLDivElement>(null)
  const nextId = useRef(turns.reduce((max, t) => Math.max(max, t.id), 0) + 1)
  /**
   * The turn the log keeps at its top (a new turn, a turn that changed view)
   * until it settles or the reader scrolls: a growing answer is read from its
   * start, not chased to its end.
   */
  const scrollTo = useRef<number | null>(turns.at(-1)?.id ?? null)
  const turnsRef = useRef(turns)
  turnsRef.current = turns

  const searchOnly = manifest ? isSearchOnly(manifest) : false
  const length = questionLength(draft)
  const lexical = manifest?.lexical as LexicalSettings | undefined

  /**
   * Says `text` on the status line. The line is always in the dialog and only its words change: a live element
   * drawn with its words already in it is read out again whenever it is drawn again (a reopened panel).
   */
  const announce = useCallback((text: string) => {
    // Cleared first, so the same words said twice are announced twice.
    setStatus('')
    if (text) setTimeout(() => setStatus(text), 50)
  }, [])

  const patch = useCallback((id: number, change: Partial<TurnView>) => {
    setTurns((all) => all.map((t) => (t.id === id ? { ...t, ...change } : t)))
  }, [])

  /** A change from the engine: applied, and the moments a reader waits for are announced. */
  const onChange = useCallback(
    (id: number, change: Partial<TurnView>) => {
      patch(id, change)
      // Back to asking without passages is a reasoning model's thought taken off the screen (engine.ts): not news.
      if (change.phase === 'asking' && change.passages) announce(COPY.passagesFound(change.passages.length))
      else if (change.phase === 'settled') announce(settledStatus(change))
    },
    [patch, announce],
  )

  const ask = useCallback(
    async (question: string) => {
      const q = question.trim()
      if (!q || abortRef.current) return
      // Too long for the prompt's body (a question a link opened the panel with): into the box, where the counter says so.
      if (questionLength(q).over) {
        setDraft(q)
        return
      }
      const id = nextId.current++
      const earlier = searchContext(turns, q)
      const history = promptHistory(turns, q)
      scrollTo.current = id
      setTurns((all) => [...all, { id, question: q, phase: 'searching', text: '', passages: [], degraded: false }])
      setDraft('')
      const controller = new AbortController()
      abortRef.current = controller
      setBusy(true)
      const root = dialogRef.current?.getRootNode() as ShadowRoot | undefined
      const from = root?.activeElement
      try {
        await engine.ask(q, { earlier, history }, controller.signal, (change) => onChange(id, change))
      } finally {
        abortRef.current = null
        setBusy(false)
        // Back to the box for the next question, unless the reader moved while the answer came (into the
        // conversation, to scroll or read it): taken back at the end, they lost their place.
        const now = root?.activeElement
        if (!now || now === from || inputRef.current?.form?.contains(now)) inputRef.current?.focus()
      }
    },
    [engine, turns, onChange],
  )

  const copy = useCallback(
    async (text: string): Promise<boolean> => {
      const ok = await copyText(text)
      announce(ok ? COPY.copiedStatus : COPY.copyFailed)
      return ok
    },
    [announce],
  )

  const actions: TurnActions = {
    retry: (turn) => void ask(turn.question),
    searchDocs: (turn) => {
      if (options.searchUrl) {
        location.assign(options.searchUrl.replace('{q}', encodeURIComponent(turn.question)))
        return
      }
      // The same turn becomes the search view for its question: more rows, grouped; never a second turn.
      const before = { phase: turn.phase, state: turn.state }
      scrollTo.current = turn.id
      patch(turn.id, { phase: 'searching' })
      const earlier = searchContext(turnsRef.current.filter((t) => t.id < turn.id), turn.question)
      engine.search(turn.question, earlier).then(
        (found) => onChange(turn.id, { phase: 'settled', state: 'search', ...found }),
        // Back as it was, saying why nothing happened (the index it searches is what failed, as a rule).
        () => {
          patch(turn.id, { ...before, searchFailed: true })
          announce(COPY.searchError)
        },
      )
    },
    feedback: (turn, rating) => {
      patch(turn.id, { feedback: rating })
      engine.feedback(turn, rating).then(
        (ok) => patch(turn.id, { feedbackError: !ok }),
        () => patch(turn.id, { feedbackError: true }),
      )
    },
    copyAnswer: (turn) => copy(answerWithSources(turn.text, givenPassages(turn), location.href)),
  }

  const newConversation = () => {
    abortRef.current?.abort()
    setTurns([])
    store.clear()
    announce('')
    inputRef.current?.focus()
  }

  const toggleSingleKeys = () => {
    const off = !singleOff
    try {
      if (off) localStorage.setItem(SINGLE_KEYS_OFF, '1')
      else localStorage.removeItem(SINGLE_KEYS_OFF)
    } catch {
      // Storage blocked: the choice holds for this page only.
    }
    setSingleOff(off)
  }

  useEffect(() => {
    if (!open) {
      // Said once: the status line comes back empty when the panel reopens.
      announce('')
      return
    }
    inputRef.current?.focus()
    engine.manifest().then(setManifest, () => {})
    // A link that asks a question opens the panel on its answer: clicked again, it shows that answer rather than asking twice.
    const last = turnsRef.current.at(-1)
    const shown = last?.question === initialQuestion?.trim() && last?.state !== 'aborted' && last?.state !== 'error'
    if (initialQuestion && !shown) void ask(initialQuestion)
    // Only on opening: a new initial question comes with a new open.
    // eslint-disable-next-line react-hooks/exhaustive-deps
  }, [open, initialQuestion])

  // Esc closes from anywhere in the dialog, focus included on nothing at all (first it stops an answer being written).
  useEffect(() => {
    if (!open) return
    const onKey = (event: KeyboardEvent) => {
      if (event.key !== 'Escape' || event.isComposing) return
      event.preventDefault()
      event.stopPropagation()
      if (abortRef.current) abortRef.current.abort()
      else onClose()
    }
    document.addEventListener('keydown', onKey, true)
    return () => document.removeEventListener('keydown', onKey, true)
  }, [open, onClose])

  // When the focused control disappears (thumbs replaced by a note, a turn re-rendered), focus goes to the box.
  useEffect(() => {
    if (!open || !dialogRef.current) return
    const root = dialogRef.current.getRootNode() as ShadowRoot
    if (!root.activeElement) inputRef.current?.focus({ preventScroll: true })
  })

  // A new turn, or one that changed view, opens at its top: the reader starts at the question, not the last row.
  useLayoutEffect(() => {
    const log = logRef.current
    const id = scrollTo.current
    if (!open || !log || id === null) return
    const article = log.querySelector<HTMLElement>(`[data-turn-id="${id}"]`)
    if (article) log.scrollTop = article.offsetTop
    if (!article || article.dataset.phase === 'settled') scrollTo.current = null
  })

  // The box grows with the question, to its CSS max-height: one line high, a question of a few lines showed only
  // its last line or two, cut through the middle, and could not be read over before it was asked.
  useLayoutEffect(() => {
    const box = inputRef.current
    if (!open || !box) return
    box.style.height = ''
    if (box.scrollHeight > box.clientHeight) box.style.height = `${box.scrollHeight + box.offsetHeight - box.clientHeight}px`
  }, [open, draft])

  // Kept for the tab (or as the owner chose) whenever nothing is in flight, and as the page goes away.
  useEffect(() => {
    if (!busy) store.save(turns)
  }, [turns, busy, store])
  useEffect(() => {
    const keep = () => store.save(turnsRef.current)
    addEventListener('pagehide', keep)
    return () => removeEventListener('pagehide', keep)
  }, [store])

  const letReaderScroll = () => {
    scrollTo.current = null
  }

  const onKeyDown = (event: KeyboardEvent) => {
    if (/^(Page(Up|Down)|Arrow(Up|Down)|Home|End)$/.test(event.key) && event.target === logRef.current) letReaderScroll()
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

  const onClick = (event: MouseEvent) => {
    const button = (event.target as Element | null)?.closest?.('button[data-copy-code]') as HTMLButtonElement | null
    if (button) {
      // Code blocks are drawn by the Markdown renderer as well as by Preact: one handler, the mark set on the button.
      const code = button.dataset.copyCode || button.parentElement?.querySelector('code')?.textContent || ''
      void copy(code).then((ok) => {
        if (!ok) return
        button.setAttribute('data-copied', '')
        setTimeout(() => button.removeAttribute('data-copied'), COPIED_MS)
      })
    } else {
      // A link to a section of this page: the panel steps aside so the section can be seen, and focus goes to it.
      const link = samePageLink(event.target)
      if (link) onClose(sectionOf(link) ?? undefined)
    }
  }

  if (!open) return null

  const suggestions = manifest?.panel?.suggestions ?? []
  const singleKey = options.hotkeys.find(isSingleKey)

  return (
    <div class="dp-backdrop" onClick={(e) => e.target === e.currentTarget && onClose()}>
      <div
        class={turns.length > 0 ? 'dp-dialog dp-talking' : 'dp-dialog'}
        role="dialog"
        aria-modal="true"
        aria-labelledby="dp-title"
        tabIndex={-1}
        ref={dialogRef}
        onKeyDown={onKeyDown}
        onClick={onClick}
      >
        {/* A div, not <header>: inside the dialog a header is a second banner landmark beside the site's own. */}
        <div class="dp-header">
          <h2 id="dp-title">{COPY.title}</h2>
          {turns.length > 0 ? (
            <button type="button" class="dp-new" onClick={newConversation}>
              {COPY.newConversation}
            </button>
          ) : null}
          <button type="button" class="dp-close" aria-label={COPY.close} onClick={() => onClose()}>
            <span aria-hidden="true">×</span>
          </button>
        </div>
        {options.demoNotice ? (
          <p class="dp-demo" role="note">
            {options.demoNotice}
          </p>
        ) : null}
        {/* In the tab order: a reader without a pointer scrolls the conversation with the arrow keys once it has
            focus; the links and buttons in it alone skip whatever text lies between them. */}
        <div
          class="dp-log"
          ref={logRef}
          tabIndex={0}
          role="region"
          aria-label={COPY.conversation}
          onWheel={letReaderScroll}
          onTouchMove={letReaderScroll}
        >
          {turns.length === 0 ? (
            <div class="dp-empty">
              <p>{searchOnly ? COPY.emptySearch : COPY.empty}</p>
              {suggestions.length > 0 ? (
                <section class="dp-suggestions" aria-labelledby="dp-suggestions-title">
                  <h3 id="dp-suggestions-title">{COPY.suggestions}</h3>
                  <ul>
                    {suggestions.map((q) => (
                      <li key={q}>
                        <button type="button" dir="auto" onClick={() => void ask(q)}>
                          {q}
                        </button>
                      </li>
                    ))}
                  </ul>
                </section>
              ) : null}
              {singleKey ? (
                <p class="dp-tip">
                  {singleOff ? COPY.singleKeyOffTip : COPY.singleKeyTip(singleKey)}{' '}
                  <button type="button" class="dp-link-button" onClick={toggleSingleKeys}>
                    {singleOff ? COPY.singleKeyOn : COPY.singleKeyOff}
                  </button>
                </p>
              ) : null}
            </div>
          ) : null}
          {turns.map((t) => (
            <Turn key={t.id} turn={t} actions={actions} debug={options.debug} lexical={lexical} />
          ))}
        </div>
        <p class="dp-visually-hidden" role="status">
          {status}
        </p>
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
            dir="auto"
            rows={1}
            value={draft}
            placeholder={COPY.placeholder}
            aria-describedby={length.text ? 'dp-length' : undefined}
            aria-invalid={length.over || undefined}
            onInput={(e) => setDraft((e.target as HTMLTextAreaElement).value)}
            onKeyDown={(e) => {
              if (e.key === 'Enter' && !e.shiftKey && !e.isComposing) {
                e.preventDefault()
                // Ask is disabled; a reader who cannot see it hears why nothing happened.
                if (length.over) announce(length.text)
                else void ask(draft)
              }
            }}
          />
          {length.text ? (
            <p id="dp-length" class={length.over ? 'dp-length dp-over' : 'dp-length'}>
              {length.text}
            </p>
          ) : null}
          {busy ? (
            <button type="button" class="dp-stop" onClick={() => abortRef.current?.abort()}>
              {COPY.stop}
            </button>
          ) : (
            <button type="submit" class="dp-ask" disabled={!draft.trim() || length.over}>
              {COPY.ask}
            </button>
          )}
        </form>
      </div>
    </div>
  )
}
