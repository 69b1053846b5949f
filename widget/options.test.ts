import { describe, expect, it } from 'vitest'
import { completeOptions, isSingleKey, matchesHotkey, opensPanel, parseHotkeys, readOptions, singleKeysOff, SINGLE_KEYS_OFF, type KeyLike } from './options.ts'

const key = (k: string, mods: Partial<KeyLike> = {}): KeyLike => ({ key: k, ctrlKey: false, metaKey: false, altKey: false, shiftKey: false, ...mods })

describe('readOptions', () => {
  const SCRIPT = 'https://cdn.example.com/dp/docpilot.js'
  const PAGE = 'https://docs.example.com/guide/intro'

  it('defaults: index at /docpilot/ on the page origin, assets next to the script, same-origin proxy, kept for the tab', () => {
    expect(readOptions({}, SCRIPT, PAGE)).toEqual({
      indexUrl: 'https://docs.example.com/docpilot/',
      proxyBase: '',
      assetBase: 'https://cdn.example.com/dp/',
      placement: 'bottom-right',
      theme: 'auto',
      label: 'Ask the docs',
      hotkeys: ['mod+k', '/'],
      searchUrl: '',
      prefetch: true,
      conversation: 'tab',
      demoNotice: '',
      debug: false,
    })
  })

  it("gives options a bundling site leaves out (the ES module's path) the loader's defaults", () => {
    const given = { indexUrl: '/idx', label: undefined, placement: 'none' as const, hotkeys: [] }
    expect(completeOptions(given, 'https://docs.example.com/assets/index.js', `${PAGE}?dpdebug=1`)).toEqual({
      ...readOptions({}, SCRIPT, PAGE),
      indexUrl: 'https://docs.example.com/idx/',
      assetBase: 'https://docs.example.com/assets/',
      placement: 'none',
      hotkeys: [],
      debug: true,
    })
  })

  it('reads every data- attribute and resolves relative URLs', () => {
    const o = readOptions(
      {
        index: 'search-index',
        proxy: 'https://api.example.com/',
        assets: '/static/',
        placement: 'bottom-left',
        theme: 'dark',
        label: ' Ask Lumen ',
        hotkeys: 'Mod+J  ctrl+/',
        searchUrl: '/search?q={q}',
        prefetch: 'none',
        conversation: 'browser',
        demo: ' Demo answers ',
      },
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
      hotkeys: ['mod+j', 'ctrl+/'],
      searchUrl: '/search?q={q}',
      prefetch: false,
      conversation: 'browser',
      demoNotice: 'Demo answers',
    })
  })

  it('falls back to defaults for values it does not know, rather than breaking the page', () => {
    const o = readOptions({ placement: 'middle', theme: 'neon', label: '   ', conversation: 'forever' }, SCRIPT, PAGE)
    expect(o).toMatchObject({ placement: 'bottom-right', theme: 'auto', label: 'Ask the docs', conversation: 'tab' })
  })

  it('turns debug on only for ?dpdebug=1 or true', () => {
    expect(readOptions({}, SCRIPT, `${PAGE}?dpdebug=1`).debug).toBe(true)
    expect(readOptions({}, SCRIPT, `${PAGE}?dpdebug=true`).debug).toBe(true)
    expect(readOptions({}, SCRIPT, `${PAGE}?dpdebug=0`).debug).toBe(false)
  })
})

describe('parseHotkeys', () => {
  it('space-separated combinations; none or an empty value turns every hotkey off', () => {
    expect(parseHotkeys(undefined)).toEqual(['mod+k', '/'])
    expect(parseHotkeys('mod+k')).toEqual(['mod+k'])
    expect(parseHotkeys('none')).toEqual([])
    expect(parseHotkeys('  ')).toEqual([])
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

  it('names Ctrl and Alt exactly; Shift counts for letters only (a "/" may need it)', () => {
    expect(matchesHotkey(key('k', { ctrlKey: true, altKey: true }), 'ctrl+alt+k')).toBe(true)
    expect(matchesHotkey(key('k', { metaKey: true, altKey: true }), 'ctrl+alt+k')).toBe(false)
    expect(matchesHotkey(key('/', { shiftKey: true }), '/')).toBe(true)
    expect(matchesHotkey(key('/', { ctrlKey: true }), '/')).toBe(false)
  })
})

describe('opensPanel', () => {
  const body = { tagName: 'BODY' }
  it('single keys never fire while the reader types in a field; combinations do', () => {
    expect(opensPanel(key('/'), body, ['mod+k', '/'], false)).toBe(true)
    expect(opensPanel(key('/'), null, ['mod+k', '/'], false)).toBe(true)
    for (const tagName of ['INPUT', 'textarea', 'SELECT']) expect(opensPanel(key('/'), { tagName }, ['/'], false)).toBe(false)
    expect(opensPanel(key('/'), { tagName: 'DIV', isContentEditable: true }, ['/'], false)).toBe(false)
    expect(opensPanel(key('k', { ctrlKey: true }), { tagName: 'INPUT' }, ['mod+k', '/'], false)).toBe(true)
    expect(opensPanel(key('?'), body, ['mod+k', '/'], false)).toBe(false)
  })

  it('a site can remap or drop them, and a reader can turn single keys off', () => {
    expect(opensPanel(key('/'), body, ['mod+k'], false)).toBe(false)
    expect(opensPanel(key('s'), body, ['s'], false)).toBe(true)
    expect(opensPanel(key('k', { ctrlKey: true }), body, [], false)).toBe(false)
    expect(opensPanel(key('/'), body, ['mod+k', '/'], true)).toBe(false)
    expect(opensPanel(key('k', { metaKey: true }), body, ['mod+k', '/'], true)).toBe(true)
  })

  it('knows single keys from combinations, and reads the reader choice from storage', () => {
    expect(['/', 's', 'shift+s'].map(isSingleKey)).toEqual([true, true, true])
    expect(['mod+k', 'alt+/', 'ctrl+shift+s'].map(isSingleKey)).toEqual([false, false, false])
    expect(singleKeysOff({ getItem: (k) => (k === SINGLE_KEYS_OFF ? '1' : null) })).toBe(true)
    expect(singleKeysOff({ getItem: () => null })).toBe(false)
    expect(singleKeysOff({ getItem: () => { throw new Error('blocked') } })).toBe(false)
  })
})
