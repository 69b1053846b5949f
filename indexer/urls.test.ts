import { describe, expect, it } from 'vitest'
import { pathToUrl, UrlRefusedError } from './urls.ts'

const defaults = { base: '/', stripPrefix: '', stripExtension: true, collapseIndex: true, trailingSlash: false }
const url = (path: string, over: Partial<typeof defaults> = {}) => pathToUrl(path, { ...defaults, ...over })

describe('pathToUrl', () => {
  it('drops the extension and maps index pages to their folder', () => {
    expect(url('docs/api/context.md')).toBe('/docs/api/context')
    expect(url('docs/index.md')).toBe('/docs')
    expect(url('index.md')).toBe('/')
    expect(url('guide/index.html')).toBe('/guide')
  })

  it('strips a source prefix and applies a base (Starlight layout)', () => {
    const starlight = { stripPrefix: 'src/content/docs/', trailingSlash: true }
    expect(url('src/content/docs/en/guides/routing.mdx', starlight)).toBe('/en/guides/routing/')
    expect(url('src/content/docs/en/guides/cms/index.mdx', starlight)).toBe('/en/guides/cms/')
    expect(url('api/context.md', { base: '/docs' })).toBe('/docs/api/context')
    expect(url('index.md', { base: '/docs/' })).toBe('/docs/')
    expect(url('api/context.md', { base: 'https://example.com/docs/' })).toBe('https://example.com/docs/api/context')
  })

  it('keeps extensions and index files when told to', () => {
    expect(url('guide/intro.html', { stripExtension: false })).toBe('/guide/intro.html')
    expect(url('guide/index.md', { collapseIndex: false })).toBe('/guide/index')
    expect(url('guide/index.html', { collapseIndex: false, stripExtension: false })).toBe('/guide/index.html')
  })

  it('adds a trailing slash to pages only when the site uses them', () => {
    expect(url('guide/intro.md', { trailingSlash: true })).toBe('/guide/intro/')
    expect(url('guide/index.md', { trailingSlash: true })).toBe('/guide/')
    expect(url('guide/intro.md')).toBe('/guide/intro')
  })

  it('drops a ./ prefix', () => {
    expect(url('./guide/intro.md')).toBe('/guide/intro')
  })

  it('encodes each segment, so a name cannot end the path, start a query or fragment, or leave the site', () => {
    expect(url('faq/what#is?this.md')).toBe('/faq/what%23is%3Fthis')
    expect(url('100%/two words.md')).toBe('/100%25/two%20words')
    // Characters a path segment may hold stay readable.
    expect(url("api/c++/a@b:c(d)!$&'*,;=.md")).toBe("/api/c++/a@b:c(d)!$&'*,;=")
    expect(url('a b/c.md', { base: 'https://docs.example.com/' })).toBe('https://docs.example.com/a%20b/c')
  })

  it('refuses a folder named \\ (which browsers read as /, making //evil.example/login) instead of linking off-site', () => {
    expect(() => url('\\/evil.example/login.md')).toThrow(UrlRefusedError)
    expect(() => url('\\/evil.example/login.md')).toThrow(/backslash/)
    expect(() => url('guide\\intro.md', { base: 'https://docs.example.com/' })).toThrow(UrlRefusedError)
  })

  it('refuses a URL that would leave the base origin', () => {
    expect(() => url('x/evil.example/login.md', { base: '//', stripPrefix: 'x' })).toThrow(/leaves the site/)
    expect(url('evil.example/login.md')).toBe('/evil.example/login')
  })
})
