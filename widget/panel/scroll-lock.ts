/**
 * While the panel (a modal dialog) is open the page behind it does not
 * scroll: the root element's overflow is hidden, inline and !important, so
 * neither a wheel over the backdrop nor a touch moves the page. A page that
 * showed a scrollbar keeps its gutter (scrollbar-gutter: stable), so nothing
 * shifts sideways. Unlocking puts back exactly the inline declarations the
 * page had (value and priority), and no style attribute where it had none.
 */
const PROPERTIES = ['overflow-x', 'overflow-y', 'scrollbar-gutter'] as const

/** Locks the page's scroll; returns the unlock. */
export function lockPageScroll(): () => void {
  const root = document.documentElement
  const { style } = root
  const hadStyle = root.hasAttribute('style')
  const saved = PROPERTIES.map((name) => [name, style.getPropertyValue(name), style.getPropertyPriority(name)] as const)
  const gutter = innerWidth > root.clientWidth && getComputedStyle(root).getPropertyValue('scrollbar-gutter') === 'auto'
  style.setProperty('overflow-x', 'hidden', 'important')
  style.setProperty('overflow-y', 'hidden', 'important')
  if (gutter) style.setProperty('scrollbar-gutter', 'stable', 'important')
  return () => {
    for (const [name, value, priority] of saved) {
      if (value) style.setProperty(name, value, priority)
      else style.removeProperty(name)
    }
    if (!hadStyle && style.length === 0) root.removeAttribute('style')
  }
}
