/**
 * docpilot.js: the one script a site drops in. It draws the launcher button
 * and listens for the hotkeys; that is all a page view costs. The panel (and
 * with it the retrieval worker and the index) is imported only once the
 * reader shows intent: a pointer over, or focus on, the launcher or an
 * element marked data-docpilot-open (prefetch), or opening the panel.
 * A conversation the panel saved before a navigation is restored by the
 * panel itself when it loads, so it too waits for the reader to come back to
 * it. Nothing here depends on Preact or the index so the script stays a few
 * kilobytes.
 */
import { loadFailedNotice } from './load-failed.ts'
import { isSingleKey, opensPanel, readOptions, type WidgetOptions } from './options.ts'
import { shadowHost } from './shadow-host.ts'
import type { PanelController } from './panel/mount.tsx'

// The host takes !important for the panel's reason (widget/panel/styles.css): the site's rules reach the host element.
// The safe-area insets keep the button off a phone's home indicator and out of its notch in landscape.
const LAUNCHER_CSS = `
:host { all: initial !important; }
button {
  position: fixed; bottom: calc(20px + env(safe-area-inset-bottom, 0px)); z-index: 2147483000;
  display: inline-flex; align-items: center; gap: 8px;
  padding: 10px 16px; border-radius: 999px; border: 1px solid rgba(0,0,0,.15);
  font: 600 14px/1.2 system-ui, -apple-system, "Segoe UI", sans-serif;
  background: #1d4ed8; color: #fff; cursor: pointer;
  box-shadow: 0 4px 16px rgba(0,0,0,.2);
}
button.left { left: calc(20px + env(safe-area-inset-left, 0px)); } button.right { right: calc(20px + env(safe-area-inset-right, 0px)); }
button:focus-visible { outline: 3px solid #f59e0b; outline-offset: 2px; }
kbd { font: inherit; font-size: 12px; opacity: .85; border: 1px solid rgba(255,255,255,.5); border-radius: 4px; padding: 0 4px; }
@media (max-width: 640px) { kbd { display: none; } button { bottom: calc(12px + env(safe-area-inset-bottom, 0px)); } }
`

function isMac(): boolean {
  return /Mac|iPhone|iPad/.test(navigator.platform || navigator.userAgent)
}

/** The launcher's hint: the first combination, else the first single key. */
function hotkeyHint(hotkeys: readonly string[]): string {
  const hotkey = hotkeys.find((k) => !isSingleKey(k)) ?? hotkeys[0] ?? ''
  return hotkey
    .split('+')
    .map((p) => (p === 'mod' ? (isMac() ? '⌘' : 'Ctrl') : p.length === 1 ? p.toUpperCase() : p))
    .join(isMac() ? '' : '+')
}

function start(options: WidgetOptions): void {
  let panel: Promise<PanelController> | undefined
  let launcher: HTMLButtonElement | undefined
  const notice = loadFailedNotice(options.placement)

  const loadPanel = (): Promise<PanelController> => {
    if (panel) return panel
    const loading = import(/* @vite-ignore */ `${options.assetBase}docpilot-panel.js`).then((mod: typeof import('./panel/mount.tsx')) =>
      mod.mountPanel(options, { onClose: () => launcher?.setAttribute('aria-expanded', 'false') }),
    )
    // A failed import is not kept: kept, it failed every later open until a reload, long after the network was back.
    loading.catch(() => {
      if (panel === loading) panel = undefined
    })
    panel = loading
    return panel
  }

  const open = (question?: string): void => {
    launcher?.setAttribute('aria-expanded', 'true')
    notice.hide()
    loadPanel().then(
      (p) => p.open(question),
      (error: unknown) => {
        console.warn('docpilot: the panel could not be loaded:', error)
        launcher?.setAttribute('aria-expanded', 'false')
        // Focus to the launcher first: the notice's button, hidden by the open, would leave it on nothing.
        notice.show(() => {
          launcher?.focus()
          open(question)
        })
      },
    )
  }

  // Intent: the reader is about to open the panel, so its code and the index's first parts can start loading.
  let intended = false
  const intent = (): void => {
    if (intended || !options.prefetch) return
    intended = true
    // A failed prefetch stays quiet (the reader asked for nothing yet) and the next intent may try again.
    loadPanel().then(
      (p) => p.prefetch(),
      () => (intended = false),
    )
  }

  if (options.placement !== 'none') {
    const { host, root } = shadowHost('data-docpilot-launcher', LAUNCHER_CSS)
    launcher = document.createElement('button')
    launcher.type = 'button'
    launcher.className = options.placement === 'bottom-left' ? 'left' : 'right'
    launcher.setAttribute('aria-haspopup', 'dialog')
    launcher.setAttribute('aria-expanded', 'false')
    launcher.append(options.label, ' ')
    const hint = hotkeyHint(options.hotkeys)
    if (hint) {
      const kbd = document.createElement('kbd')
      kbd.textContent = hint
      kbd.setAttribute('aria-hidden', 'true')
      launcher.append(kbd)
    }
    launcher.addEventListener('click', () => open())
    for (const type of ['pointerenter', 'focus', 'touchstart'] as const) launcher.addEventListener(type, intent, { passive: true })
    root.append(launcher)
    document.body.append(host)
  }

  document.addEventListener('keydown', (event) => {
    if (event.defaultPrevented) return
    const target = event.composedPath()[0] as HTMLElement | null
    if (opensPanel(event, target, options.hotkeys)) {
      event.preventDefault()
      open()
    }
  })

  // Elements on the page that should open the panel (e.g. a search box in the site's header).
  document.addEventListener('click', (event) => {
    const el = (event.target as Element | null)?.closest?.('[data-docpilot-open]')
    if (el) {
      event.preventDefault()
      open(el.getAttribute('data-docpilot-open') || undefined)
    }
  })

  const towardsOpener = (event: Event): void => {
    if ((event.target as Element | null)?.closest?.('[data-docpilot-open]')) intent()
  }
  document.addEventListener('pointerover', towardsOpener, { passive: true })
  document.addEventListener('focusin', towardsOpener)

  ;(window as unknown as { docpilot: unknown }).docpilot = {
    open,
    close: () => void panel?.then(
      (p) => p.close(),
      () => {},
    ),
  }
}

const script = document.currentScript as HTMLScriptElement | null
if (script) {
  const options = readOptions({ ...script.dataset }, script.src, location.href)
  if (document.readyState === 'loading') document.addEventListener('DOMContentLoaded', () => start(options))
  else start(options)
}
