import { describe, expect, it } from 'vitest'
import { llmsUrl, onOrigin, pageCopyUrl, pageCopyUrls, siteRelativePath } from './site-files.ts'

describe('where a page copy is served', () => {
  it('is the page URL + .md; a folder URL gets index.md; anchors and queries are dropped', () => {
    expect(pageCopyUrl('/docs/api/context#set-get')).toBe('/docs/api/context.md')
    expect(pageCopyUrl('/guides/routing/')).toBe('/guides/routing/index.md')
    expect(pageCopyUrl('/')).toBe('/index.md')
    expect(pageCopyUrl('https://example.com/docs/x?y=1')).toBe('https://example.com/docs/x.md')
    expect(pageCopyUrl('/docs/x.md')).toBe('/docs/x.md')
  })

  it('is looked for under the other trailing-slash form second; the site root has one place', () => {
    expect(pageCopyUrls('/guide/#x')).toEqual(['/guide/index.md', '/guide.md'])
    expect(pageCopyUrls('/guide')).toEqual(['/guide.md', '/guide/index.md'])
    expect(pageCopyUrls('/guide.md')).toEqual(['/guide.md', '/guide/index.md'])
    expect(pageCopyUrls('/')).toEqual(['/index.md'])
    expect(pageCopyUrls('https://example.com/')).toEqual(['https://example.com/index.md'])
  })

  it('llms.txt sits at the site URL', () => {
    expect(llmsUrl('/')).toBe('/llms.txt')
    expect(llmsUrl('/docs')).toBe('/docs/llms.txt')
    expect(llmsUrl('https://example.com/docs/', 'llms-full.txt')).toBe('https://example.com/docs/llms-full.txt')
  })
})

describe('a served URL inside the site output folder', () => {
  it('is the URL below the site URL', () => {
    expect(siteRelativePath('/docs/api/context.md', '/')).toBe('docs/api/context.md')
    expect(siteRelativePath('/docs/api/context.md', '/docs/')).toBe('api/context.md')
    expect(siteRelativePath('https://example.com/docs/a%20b.md', 'https://example.com/docs')).toBe('a b.md')
  })

  it('is nothing for URLs elsewhere or climbing out', () => {
    expect(siteRelativePath('/blog/x.md', '/docs/')).toBeUndefined()
    expect(siteRelativePath('/../etc/passwd.md', '/')).toBeUndefined()
    expect(siteRelativePath('/docs/%2e%2e/%2e%2e/x.md', '/docs/')).toBeUndefined()
    expect(siteRelativePath('/docs/a%5c..%5cx.md', '/docs/')).toBeUndefined()
    expect(siteRelativePath('https://other.example/docs/x.md', 'https://example.com/docs/')).toBeUndefined()
  })
})

describe('onOrigin', () => {
  it('puts a root-relative URL on the origin, spelled as the index spells it', () => {
    expect(onOrigin('/%E3%83%AB%E3%83%BC%E3%83%88#基本', 'https://docs.example')).toBe('https://docs.example/%E3%83%AB%E3%83%BC%E3%83%88#基本')
    expect(onOrigin('/docs/cookie#signed-cookies', 'https://docs.example/any/path')).toBe('https://docs.example/docs/cookie#signed-cookies')
  })

  it('leaves an absolute URL (urls.base is one) and a protocol-relative one as they are', () => {
    expect(onOrigin('https://hono.dev/docs/cookie#a', 'https://docs.example')).toBe('https://hono.dev/docs/cookie#a')
    expect(onOrigin('//evil.example/x', 'https://docs.example')).toBe('//evil.example/x')
  })
})
