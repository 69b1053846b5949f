/**
 * An element holding one part of the widget (the launcher, the panel) in its
 * own shadow root, styled by `css` alone: the host page's styles do not reach
 * in, nor the widget's out. `marker` is the attribute that names the part in
 * the page (`data-docpilot-panel`).
 */
export function shadowHost(marker: string, css: string): { host: HTMLDivElement; root: ShadowRoot } {
  const host = document.createElement('div')
  host.setAttribute(marker, '')
  const root = host.attachShadow({ mode: 'open' })
  const sheet = new CSSStyleSheet()
  sheet.replaceSync(css)
  root.adoptedStyleSheets = [sheet]
  return { host, root }
}
