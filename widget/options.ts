/**
 * What a site can say about the panel, read from the loader script's data-
 * attributes (or passed directly by a site that bundles the ES module).
 * Kept dependency-free: the loader imports it and must stay tiny.
 */

export type Placement = 'bottom-right' | 'bottom-left' | 'none'
export type ThemeChoice = 'auto' | 'light' | 'dark'

export interface WidgetOptions {
  /** URL of the index folder (holds manifest.json), with a trailing slash. */
  indexUrl: string
  /** Prefix for the proxy's /ai/... routes; '' means the page's own origin. */
  proxyBase: string
  /** Where the widget's own files (panel, worker) are served from, trailing slash. */
  assetBase: string
  placement: Placement
  theme: ThemeChoice
  label: string
  /** 'mod+k' style combination; 'none' turns the combination off ('/' still opens). */
  hotkey: string
  /** The site's own search page; `{q}` is replaced by the question. Empty: show the passages instead. */
  searchUrl: string
  /** Fetch the panel and index while the browser is idle, before the first open. */
  prefetch: boolean
  /** `?dpdebug=1` on the page URL. */
  debug: boolean
}

export const DEFAULT_LABEL = 'Ask the docs'

function withSlash(url: string): string {
  return url.endsWith('/') ? url : `${url}/`
}

function pick<T extends string>(value: string | undefined, allowed: readonly T[], fallback: T): T {
  return value !== undefined && (allowed as readonly string[]).includes(value) ? (value as T) : fallback
}

/**
 * Options from a `data-*` map (an element's `dataset`), the script's own URL
 * and the page URL. Unknown or malformed values fall back to defaults rather
 * than breaking the page the script was dropped into.
 */
export function readOptions(
  data: Record<string, string | undefined>,
  scriptUrl: string,
  pageUrl: string,
): WidgetOptions {
  const page = new URL(pageUrl)
  const debugFlag = page.searchParams.get('dpdebug')
  return {
    indexUrl: withSlash(new URL(data.index ?? '/docpilot/', page).href),
    proxyBase: (data.proxy ?? '').replace(/\/+$/, ''),
    assetBase: withSlash(new URL(data.assets ?? '.', scriptUrl).href),
    placement: pick(data.placement, ['bottom-right', 'bottom-left', 'none'] as const, 'bottom-right'),
    theme: pick(data.theme, ['auto', 'light', 'dark'] as const, 'auto'),
    label: data.label?.trim() || DEFAULT_LABEL,
    hotkey: (data.hotkey ?? 'mod+k').trim().toLowerCase() || 'mod+k',
    searchUrl: data.searchUrl ?? '',
    prefetch: data.prefetch !== 'none' && data.prefetch !== 'false',
    debug: debugFlag === '1' || debugFlag === 'true',
  }
}

export interface KeyLike {
  key: string
  ctrlKey: boolean
  metaKey: boolean
  altKey: boolean
  shiftKey: boolean
}

/** True when the event matches a 'mod+k' style combination ('mod' is Ctrl, or Cmd on a Mac). */
export function matchesHotkey(event: KeyLike, hotkey: string): boolean {
  if (hotkey === 'none') return false
  const parts = hotkey.split('+')
  const key = parts.pop()
  if (!key || event.key.toLowerCase() !== key) return false
  const wants = new Set(parts)
  const mod = event.ctrlKey || event.metaKey
  if (wants.has('mod') !== mod && !(wants.has('ctrl') || wants.has('meta'))) return false
  if (wants.has('ctrl') && !event.ctrlKey) return false
  if (wants.has('meta') && !event.metaKey) return false
  if (wants.has('alt') !== event.altKey) return false
  if (wants.has('shift') !== event.shiftKey) return false
  return true
}

/** `/` opens the panel unless the reader is typing somewhere. */
export function isSlashToOpen(event: KeyLike, target: { tagName?: string; isContentEditable?: boolean } | null): boolean {
  if (event.key !== '/' || event.ctrlKey || event.metaKey || event.altKey) return false
  if (!target) return true
  const tag = (target.tagName ?? '').toUpperCase()
  return !(tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT' || target.isContentEditable)
}
