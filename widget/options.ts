/**
 * What a site can say about the panel, read from the loader script's data-
 * attributes (or passed directly by a site that bundles the ES module).
 * Kept dependency-free: the loader imports it and must stay tiny.
 */

export type Placement = 'bottom-right' | 'bottom-left' | 'none'
export type ThemeChoice = 'auto' | 'light' | 'dark'
/** How long a conversation is kept: this tab (sessionStorage), this browser (localStorage), or not at all. */
export type ConversationKeeping = 'tab' | 'browser' | 'none'

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
  /** Keys that open the panel: 'mod+k' style combinations or single keys ('/'); empty: none. */
  hotkeys: string[]
  /** The site's own search page; `{q}` is replaced by the question. Empty: the panel's own search view. */
  searchUrl: string
  /** Fetch the panel and index while the browser is idle, before the first open. */
  prefetch: boolean
  conversation: ConversationKeeping
  /** Shown inside the panel when answers do not come from a real model (the dev demo's fake providers). */
  demoNotice: string
  /** `?dpdebug=1` on the page URL. */
  debug: boolean
}

function withSlash(url: string): string {
  return url.endsWith('/') ? url : `${url}/`
}

const PLACEMENTS = ['bottom-right', 'bottom-left', 'none'] as const
const THEMES = ['auto', 'light', 'dark'] as const
const KEEPINGS = ['tab', 'browser', 'none'] as const

/** Every option's default that depends on neither the page's nor the script's address. */
const DEFAULTS = {
  indexUrl: '/docpilot/',
  proxyBase: '',
  placement: PLACEMENTS[0],
  theme: THEMES[0],
  label: 'Ask the docs',
  hotkeys: ['mod+k', '/'],
  searchUrl: '',
  prefetch: true,
  conversation: KEEPINGS[0],
  demoNotice: '',
} as const satisfies Omit<WidgetOptions, 'assetBase' | 'debug'>

/** Some options, any of them absent (or undefined). */
export type GivenOptions = { [K in keyof WidgetOptions]?: WidgetOptions[K] | undefined }

/**
 * The options a panel runs with: each one given, or its default. The index
 * resolves against the page, the assets against the script (default: next to
 * it); `debug` follows `?dpdebug=1` on the page.
 */
export function completeOptions(given: GivenOptions, scriptUrl: string, pageUrl: string): WidgetOptions {
  const page = new URL(pageUrl)
  const debugFlag = page.searchParams.get('dpdebug')
  const set = Object.fromEntries(Object.entries(given).filter(([, v]) => v !== undefined)) as Partial<WidgetOptions>
  return {
    ...DEFAULTS,
    hotkeys: [...DEFAULTS.hotkeys],
    ...set,
    indexUrl: withSlash(new URL(set.indexUrl ?? DEFAULTS.indexUrl, page).href),
    assetBase: withSlash(new URL(set.assetBase ?? '.', scriptUrl).href),
    debug: set.debug ?? (debugFlag === '1' || debugFlag === 'true'),
  }
}

function pick<T extends string>(value: string | undefined, allowed: readonly T[]): T | undefined {
  return (allowed as readonly string[]).includes(value as string) ? (value as T) : undefined
}

/** `data-hotkeys="mod+k /"`: combinations separated by spaces; `none` (or nothing) turns them all off. */
export function parseHotkeys(value: string | undefined): string[] {
  if (value === undefined) return [...DEFAULTS.hotkeys]
  const keys = value.trim().toLowerCase().split(/\s+/).filter(Boolean)
  return keys.includes('none') ? [] : keys
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
  return completeOptions(
    {
      indexUrl: data.index,
      proxyBase: data.proxy?.replace(/\/+$/, ''),
      assetBase: data.assets,
      placement: pick(data.placement, PLACEMENTS),
      theme: pick(data.theme, THEMES),
      label: data.label?.trim() || undefined,
      hotkeys: data.hotkeys === undefined ? undefined : parseHotkeys(data.hotkeys),
      searchUrl: data.searchUrl,
      prefetch: data.prefetch === undefined ? undefined : data.prefetch !== 'none' && data.prefetch !== 'false',
      conversation: pick(data.conversation, KEEPINGS),
      demoNotice: data.demo?.trim(),
    },
    scriptUrl,
    pageUrl,
  )
}

export interface KeyLike {
  key: string
  ctrlKey: boolean
  metaKey: boolean
  altKey: boolean
  shiftKey: boolean
}

const MODIFIERS = new Set(['mod', 'ctrl', 'meta', 'alt', 'shift'])

/** A hotkey without Ctrl, Cmd or Alt: one key press that could equally be typing (WCAG 2.1.4). */
export function isSingleKey(hotkey: string): boolean {
  return !hotkey.split('+').some((p) => p !== 'shift' && MODIFIERS.has(p))
}

/** True when the event matches a 'mod+k' style combination ('mod' is Ctrl, or Cmd on a Mac). */
export function matchesHotkey(event: KeyLike, hotkey: string): boolean {
  const parts = hotkey.split('+')
  const key = parts.pop()
  if (!key || event.key.toLowerCase() !== key) return false
  const wants = new Set(parts)
  const mod = event.ctrlKey || event.metaKey
  if (wants.has('mod') !== mod && !(wants.has('ctrl') || wants.has('meta'))) return false
  if (wants.has('ctrl') && !event.ctrlKey) return false
  if (wants.has('meta') && !event.metaKey) return false
  if (wants.has('alt') !== event.altKey) return false
  // A symbol such as "/" needs Shift on some keyboard layouts: Shift only counts for letters.
  if (wants.has('shift') !== event.shiftKey && /^[a-z]$/.test(key)) return false
  return true
}

export interface KeyTarget {
  tagName?: string
  isContentEditable?: boolean
}

/** Typing somewhere: an input, a text area, a select or an editable element. */
export function isTypingTarget(target: KeyTarget | null): boolean {
  if (!target) return false
  const tag = (target.tagName ?? '').toUpperCase()
  return tag === 'INPUT' || tag === 'TEXTAREA' || tag === 'SELECT' || target.isContentEditable === true
}

/** Where a reader's choice to turn single-key shortcuts off is kept (this browser, every site page). */
export const SINGLE_KEYS_OFF = 'docpilot:single-key-shortcuts-off'

export function singleKeysOff(storage: Pick<Storage, 'getItem'> | undefined = globalThis.localStorage): boolean {
  try {
    return storage?.getItem(SINGLE_KEYS_OFF) === '1'
  } catch {
    return false // storage blocked by the browser's privacy settings
  }
}

/**
 * Whether a key press opens the panel. Single-key hotkeys never fire while
 * the reader is typing in a field (the panel's own box included) or after
 * the reader turned them off; combinations with Ctrl, Cmd or Alt always do.
 */
export function opensPanel(event: KeyLike, target: KeyTarget | null, hotkeys: readonly string[], singleOff = singleKeysOff()): boolean {
  return hotkeys.some((hotkey) => {
    if (isSingleKey(hotkey) && (singleOff || isTypingTarget(target))) return false
    return matchesHotkey(event, hotkey)
  })
}
