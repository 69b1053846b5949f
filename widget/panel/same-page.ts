/**
 * Citations to a section of the page the reader is on. The panel steps aside
 * so the section can be seen, and focus goes to the section's heading: given
 * back to the launcher (or to nothing, the page's body, after a hotkey), a
 * keyboard or screen-reader user would be left far from what they chose.
 */

/** The link `target` is in, when it leads to this same page (another section of it, or its top). */
export function samePageLink(target: EventTarget | null): HTMLAnchorElement | null {
  const link = (target as Element | null)?.closest?.('a[href]') as HTMLAnchorElement | null
  if (!link) return null
  const to = new URL(link.href, location.href)
  return to.origin === location.origin && to.pathname === location.pathname && to.search === location.search ? link : null
}

/** The element of the page the link's fragment names, as the browser finds it: the id as written, else decoded. */
export function sectionOf(link: HTMLAnchorElement): HTMLElement | null {
  const fragment = new URL(link.href, location.href).hash.slice(1)
  if (!fragment) return null
  let decoded = fragment
  try {
    decoded = decodeURIComponent(fragment)
  } catch {
    // A stray % in the anchor: only the id as written can match.
  }
  return document.getElementById(fragment) ?? document.getElementById(decoded)
}

/**
 * Focus on the section without scrolling (the link's own navigation scrolls
 * to it). A heading takes no focus of its own: it gets tabindex="-1" for as
 * long as it holds focus, so it joins no tab order and a later click on its
 * text does not focus it (a site's :focus style would outline it then). An
 * element that is focusable already, or carries the site's own tabindex, is
 * left as it is. Browsers show no focus ring for this after a click, and do
 * after a key press, where the reader needs to see where they are.
 */
export function focusSection(section: HTMLElement): void {
  if (!section.hasAttribute('tabindex') && section.tabIndex < 0) {
    section.setAttribute('tabindex', '-1')
    section.addEventListener('blur', () => section.removeAttribute('tabindex'), { once: true })
  }
  section.focus({ preventScroll: true })
}
