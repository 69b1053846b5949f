import { describe, expect, it } from 'vitest'
import { isSlashToOpen, matchesHotkey, readOptions, type KeyLike } from './options.ts'

const key = (k: string, mods: Partial<KeyLike> = {}): KeyLike => ({ key: k, ctrlKey: false, metaKey: false, altKey: false, shiftKey: false, ...mods })

describe('readOptions', () => {
  const SCRIPT = 'https://cdn.example.com/dp/docpilot.js'
  const PAGE = 'https://docs.example.com/guide/intro'

  it('defaults: index at /docpilot/ on the page origin, assets next to the script, same-origin proxy', () => {
    expect(readOptions({}, SCRIPT, PAGE)).toEqual({
      indexUrl: 'https://docs.example.com/docpilot/',
      proxyBase: '',
      assetBase: 'https://cdn.example.com/dp/',
      placement: 'bottom-right',
      theme: 'auto',
      label: 'Ask the docs',
      hotkey: 'mod+k',
      searchUrl: '',
      prefetch: true,
      debug: false,
    })
  })

  it('reads every data- attribute and resolves relative URLs', () => {
    const o = readOptions(
      { index: 'search-index', proxy: 'https://api.example.com/', assets: '/static/', placement: 'bottom-left', theme: 'dark', label: ' Ask Lumen ', hotkey: 'Mod+J', searchUrl: '/search?q={q}', prefetch: 'none' },
      SCRIPT,
      PAGE,
    )
    expect(o).toMatchObject({
      indexUrl: 'https://docs.example.com/guide/search-index/',
      proxyBase: 'https://api.example.com',
      assetBase: 'https://cdn.example.com/static/',
      placement: 'bottom-left',
      theme: 'dark',
      label: 'Ask Lumen',
      hotkey: 'mod+j',
      searchUrl: '/search?q={q}',
      prefetch: false,
    })
  })

  it('falls back to defaults for values it does not know, rather than breaking the page', () => {
    const o = readOptions({ placement: 'middle', theme: 'neon', label: '   ', hotkey: '' }, SCRIPT, PAGE)
    expect(o).toMatchObject({ placement: 'bottom-right', theme: 'auto', label: 'Ask the docs', hotkey: 'mod+k' })
  })

  it('turns debug on only for ?dpdebug=1 or true', () => {
    expect(readOptions({}, SCRIPT, `${PAGE}?dpdebug=1`).debug).toBe(true)
    expect(readOptions({}, SCRIPT, `${PAGE}?dpdebug=true`).debug).toBe(true)
    expect(readOptions({}, SCRIPT, `${PAGE}?dpdebug=0`).debug).toBe(false)
  })
})

describe('matchesHotkey', () => {
  it('mod is Ctrl or Cmd', () => {
    expect(matchesHotkey(key('k', { ctrlKey: true }), 'mod+k')).toBe(true)
    expect(matchesHotkey(key('K', { metaKey: true }), 'mod+k')).toBe(true)
    expect(matchesHotkey(key('k'), 'mod+k')).toBe(false)
    expect(matchesHotkey(key('k', { ctrlKey: true, shiftKey: true }), 'mod+k')).toBe(false)
    expect(matchesHotkey(key('j', { ctrlKey: true }), 'mod+k')).toBe(false)
  })

  it('names Ctrl, Alt and Shift exactly; none turns the combination off', () => {
    expect(matchesHotkey(key('k', { ctrlKey: true, altKey: true }), 'ctrl+alt+k')).toBe(true)
    expect(matchesHotkey(key('k', { metaKey: true, altKey: true }), 'ctrl+alt+k')).toBe(false)
    expect(matchesHotkey(key('k', { ctrlKey: true }), 'none')).toBe(false)
  })
})

describe('isSlashToOpen', () => {
  it('opens on a bare "/" outside text fields only', () => {
    expect(isSlashToOpen(key('/'), { tagName: 'BODY' })).toBe(true)
    expect(isSlashToOpen(key('/'), null)).toBe(true)
    for (const tagName of ['INPUT', 'textarea', 'SELECT']) expect(isSlashToOpen(key('/'), { tagName })).toBe(false)
    expect(isSlashToOpen(key('/'), { tagName: 'DIV', isContentEditable: true })).toBe(false)
    expect(isSlashToOpen(key('/', { ctrlKey: true }), { tagName: 'BODY' })).toBe(false)
    expect(isSlashToOpen(key('?'), { tagName: 'BODY' })).toBe(false)
  })
})
