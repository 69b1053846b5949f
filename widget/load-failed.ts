/**
 * What the loader shows when the panel's code could not be fetched (a
 * dropped connection, a deploy that replaced the chunks): without it, the
 * launcher and the hotkeys would seem to do nothing at all. A short line by
 * the launcher's corner says so, with a button that tries again; the next
 * open tries again too. Part of the loader, so it stays a few lines of DOM.
 */
import type { WidgetOptions } from './options.ts'
import { shadowHost } from './shadow-host.ts'

export const LOAD_FAILED = "The docs panel couldn't be loaded. Check the connection, then try again."
export const TRY_AGAIN = 'Try again'

// Above the launcher, on its side; light on purpose: it must read on any site, as the launcher does.
const NOTICE_CSS = `
:host { all: initial !important; }
div { position: fixed; bottom: calc(72px + env(safe-area-inset-bottom, 0px)); z-index: 2147483000; display: flex; align-items: center; gap: 12px;
  max-width: min(340px, calc(100vw - 40px)); box-sizing: border-box; padding: 10px 12px; border: 1px solid #57606a; border-radius: 8px; background: #fff; color: #1f2328;
  font: 14px/1.4 system-ui, sans-serif; }
.left { left: 20px; } .right { right: 20px; } [hidden] { display: none; }
p { margin: 0; }
button { font: inherit; font-weight: 600; padding: 6px 10px; border: 0; border-radius: 6px; background: #1d4ed8; color: #fff; cursor: pointer; }
button:focus-visible { outline: 3px solid #b45309; outline-offset: 2px; }
`

export interface LoadFailedNotice {
  /** Shows the notice; its button calls `retry`. */
  show(retry: () => void): void
  hide(): void
}

/** Drawn on first use only: a page whose panel loads never gets the element. */
export function loadFailedNotice(placement: WidgetOptions['placement']): LoadFailedNotice {
  let box: HTMLDivElement | undefined
  let line: HTMLParagraphElement | undefined
  let retry = (): void => {}

  const draw = (): HTMLDivElement => {
    const { host, root } = shadowHost('data-docpilot-notice', NOTICE_CSS)
    box = document.createElement('div')
    box.className = placement === 'bottom-left' ? 'left' : 'right'
    box.hidden = true
    // The alert is in the page before its words are: words that come with a new live element are not reliably read.
    line = document.createElement('p')
    line.setAttribute('role', 'alert')
    const button = document.createElement('button')
    button.type = 'button'
    button.textContent = TRY_AGAIN
    button.addEventListener('click', () => retry())
    box.append(line, button)
    root.append(box)
    document.body.append(host)
    return box
  }

  return {
    show(again) {
      retry = again
      const shown = box ?? draw()
      shown.hidden = false
      setTimeout(() => {
        if (line && !shown.hidden) line.textContent = LOAD_FAILED
      }, 50)
    },
    hide() {
      if (box) box.hidden = true
      if (line) line.textContent = ''
    },
  }
}
