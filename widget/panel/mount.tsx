/**
 * Mounts the panel into a shadow root on the page and hands the loader a
 * small controller. Styles are a constructed stylesheet (adoptedStyleSheets),
 * which a strict Content-Security-Policy allows without 'unsafe-inline'.
 */
import { render } from 'preact'
import type { WidgetOptions } from '../options.ts'
import { App } from './App.tsx'
import { conversationStore } from './conversation.ts'
import { Engine } from './engine.ts'
import { loadRenderer } from './renderer.ts'
import { focusSection } from './same-page.ts'
import { lockPageScroll } from './scroll-lock.ts'
import { shadowHost } from '../shadow-host.ts'
import css from './styles.css?inline'

export interface PanelController {
  open(question?: string): void
  close(): void
  /** Start the worker and fetch the manifest and search parts ahead of the first question. */
  prefetch(): void
  readonly engine: Engine
}

function resolveTheme(choice: WidgetOptions['theme']): 'light' | 'dark' {
  if (choice !== 'auto') return choice
  const site = document.documentElement.getAttribute('data-theme')
  if (site === 'dark' || site === 'light') return site
  return matchMedia('(prefers-color-scheme: dark)').matches ? 'dark' : 'light'
}

/**
 * The element that has focus, followed into the shadow roots on its way: the
 * document's activeElement is only the host of one (the launcher's button sits
 * in its own), and a host without a tabindex takes no focus back.
 */
function focusedElement(): Element | null {
  let el = document.activeElement
  while (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement
  return el
}

/** How long the first draw of a kept conversation waits for the Markdown renderer. */
const RESTORE_WAIT_MS = 1500

export function mountPanel(options: WidgetOptions, hooks: { onClose?: () => void } = {}): PanelController {
  const { host, root } = shadowHost('data-docpilot-panel', css)
  document.body.append(host)

  const applyTheme = () => host.setAttribute('data-theme', resolveTheme(options.theme))
  applyTheme()
  matchMedia('(prefers-color-scheme: dark)').addEventListener('change', applyTheme)
  new MutationObserver(applyTheme).observe(document.documentElement, { attributes: true, attributeFilter: ['data-theme'] })

  const engine = new Engine(options)
  // A conversation from an earlier page of this tab is drawn when the reader opens the panel, not before.
  const store = conversationStore(options.conversation, options.indexUrl)
  /**
   * Its answers are Markdown: drawn before the renderer is here, they showed
   * raw (fences, [1]) and then jumped. The panel is mounted once the reader
   * shows intent, so the renderer starts loading now and the first draw waits
   * for it, or for RESTORE_WAIT_MS on a slow network, then plain text it is.
   */
  let restored: Promise<unknown> | undefined =
    store.load().length > 0 ? Promise.race([loadRenderer(), new Promise((done) => setTimeout(done, RESTORE_WAIT_MS))]) : undefined
  let isOpen = false
  let initialQuestion: string | undefined
  let returnFocus: Element | null = null
  /** Set while the panel is open: every way it closes (Esc, Close, the backdrop, a citation to this page, docpilot.close()) comes through close(). */
  let unlockScroll: (() => void) | undefined

  /** `section`: a heading of this page a citation led to; focus goes there rather than back where it was. */
  const close = (section?: HTMLElement) => {
    if (!isOpen) return
    isOpen = false
    unlockScroll?.()
    unlockScroll = undefined
    draw()
    hooks.onClose?.()
    // No scroll: a citation to this page is scrolling to its section.
    if (section) focusSection(section)
    else if (returnFocus instanceof HTMLElement) returnFocus.focus({ preventScroll: true })
  }

  function draw() {
    render(
      <App
        engine={engine}
        options={options}
        store={store}
        open={isOpen}
        initialQuestion={initialQuestion}
        onClose={close}
      />,
      root,
    )
  }

  return {
    engine,
    open(question) {
      if (!isOpen) {
        returnFocus = focusedElement()
        unlockScroll ??= lockPageScroll()
      }
      isOpen = true
      initialQuestion = question
      engine.prefetch()
      void loadRenderer()
      if (!restored) return draw()
      void restored.then(() => {
        restored = undefined
        draw()
      })
    },
    close: () => close(),
    prefetch: () => {
      engine.prefetch()
      void loadRenderer()
    },
  }
}
