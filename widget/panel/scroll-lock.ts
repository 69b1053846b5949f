/**
 * While the panel (a modal dialog) is open the page behind it does not
 * scroll: the page's scroller gets overflow hidden, inline and !important, so
 * neither a wheel over the backdrop nor a touch moves the page. Which element
 * that is follows how CSS gives the viewport its overflow:
 * - the root's, as on most pages: the root is locked;
 * - the body's, when the root's overflow is visible (body { overflow-x:
 *   hidden } is common): the body is locked, so its hidden still goes to the
 *   viewport. Locking the root there would make the body a scroller of its
 *   own: with html, body { height: 100% } the page jumped to its top and a
 *   wheel over the backdrop scrolled the body;
 * - a body that scrolls itself inside a root that does not (html { overflow:
 *   hidden } body { overflow: auto }, common in docs themes): both, as the
 *   panel sits in the body and a wheel over the backdrop chains to it.
 * A scroller that showed a scrollbar keeps its gutter (scrollbar-gutter:
 * stable; the viewport's is the root's to set), so nothing shifts sideways.
 * Unlocking puts back exactly the inline declarations the page had (value and
 * priority), and no style attribute where it had none.
 */
const PROPERTIES = ['overflow-x', 'overflow-y', 'scrollbar-gutter'] as const

function overflowIsVisible(el: Element): boolean {
  const { overflowX, overflowY } = getComputedStyle(el)
  return overflowX === 'visible' && overflowY === 'visible'
}

function scrollsByUser(el: Element): boolean {
  const { overflowX, overflowY } = getComputedStyle(el)
  return [overflowX, overflowY].some((value) => value === 'auto' || value === 'scroll')
}

/** Whether the element's classic scrollbar takes room that would go if its overflow were hidden. */
function showsScrollbar(el: HTMLElement): boolean {
  if (el === document.documentElement) return innerWidth > el.clientWidth
  const { borderLeftWidth, borderRightWidth } = getComputedStyle(el)
  return el.offsetWidth - parseFloat(borderLeftWidth) - parseFloat(borderRightWidth) > el.clientWidth
}

function lockElement(el: HTMLElement, lock: { overflow: boolean; gutter: boolean }): () => void {
  const { style } = el
  const hadStyle = el.hasAttribute('style')
  const saved = PROPERTIES.map((name) => [name, style.getPropertyValue(name), style.getPropertyPriority(name)] as const)
  const gutter = lock.gutter && getComputedStyle(el).getPropertyValue('scrollbar-gutter') === 'auto'
  if (lock.overflow) {
    style.setProperty('overflow-x', 'hidden', 'important')
    style.setProperty('overflow-y', 'hidden', 'important')
  }
  if (gutter) style.setProperty('scrollbar-gutter', 'stable', 'important')
  return () => {
    for (const [name, value, priority] of saved) {
      if (value) style.setProperty(name, value, priority)
      else style.removeProperty(name)
    }
    if (!hadStyle && style.length === 0) el.removeAttribute('style')
  }
}

/** Locks the page's scroll; returns the unlock. */
export function lockPageScroll(): () => void {
  const { documentElement: root, body } = document
  // All read before anything is locked: locking the root changes what the body's overflow means.
  const viewportTakesBody = overflowIsVisible(root) && !overflowIsVisible(body)
  const bodyScrollsItself = !overflowIsVisible(root) && scrollsByUser(body)
  const viewportGutter = showsScrollbar(root)
  const bodyGutter = bodyScrollsItself && showsScrollbar(body)
  const unlocks = [lockElement(root, { overflow: !viewportTakesBody, gutter: viewportGutter })]
  if (viewportTakesBody || bodyScrollsItself) unlocks.push(lockElement(body, { overflow: true, gutter: bodyGutter }))
  return () => {
    for (const unlock of unlocks) unlock()
  }
}
