/**
 * Source path -> page URL, the way the site's router maps files to routes:
 * strip a source prefix, drop the extension, collapse `index` pages, apply
 * the base and the trailing-slash convention.
 *
 * A file name is data, not URL syntax: each path segment is percent-encoded
 * on its own (`#`, `?`, `%`, `\` and spaces included), so no name can end
 * the path early, start a query or fragment, or turn the link into another
 * origin (a folder named `\` once made `//evil.example/login`). A URL that
 * would still leave the base's origin is refused.
 */
import type { DocpilotConfig } from '../core/config/schema.ts'

const PAGE_EXTENSION = /\.(md|mdx|html?)$/i

/** A path whose URL would leave the site; the file is skipped with this message. */
export class UrlRefusedError extends Error {
  override name = 'UrlRefusedError'
}

/** RFC 3986 path characters that encodeURIComponent escapes but a path segment may hold as they are. */
const PCHAR_KEPT = /%(24|26|2B|2C|3B|3D|3A|40)/gi

export function encodeSegment(segment: string): string {
  return encodeURIComponent(segment).replace(PCHAR_KEPT, (m) => decodeURIComponent(m))
}

export function pathToUrl(path: string, urls: DocpilotConfig['urls']): string {
  // Paths come from the glob with `/` separators on every platform, so a `\` is part of a name; but
  // browsers read `\` in a URL as `/` (a folder named `\` made `//evil.example/login`) and so do some
  // servers after decoding `%5C`: such a page is refused rather than linked.
  if (path.includes('\\')) throw refused(path, 'has a backslash in its path, which browsers and some servers read as a folder separator')
  let p = path.replace(/^\.\//, '')
  const prefix = urls.stripPrefix.replace(/^\.?\//, '')
  if (prefix && p.startsWith(prefix)) p = p.slice(prefix.length)
  p = p.replace(/^\//, '')

  let isIndex = false
  if (urls.collapseIndex && /(^|\/)index\.(md|mdx|html?)$/i.test(p)) {
    p = p.replace(/(^|\/)index\.(md|mdx|html?)$/i, '$1')
    isIndex = true
  } else if (urls.stripExtension) {
    p = p.replace(PAGE_EXTENSION, '')
  }
  p = p.split('/').map(encodeSegment).join('/')

  const base = urls.base.endsWith('/') ? urls.base : `${urls.base}/`
  let url = `${base}${p}`
  if (!url.startsWith('/') && !/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) url = `/${url}`
  if (isIndex) {
    // A collapsed index page is a directory URL; drop its slash only when the site does.
    url = !urls.trailingSlash && url !== base && url !== '/' ? url.replace(/\/$/, '') : url
  } else if (urls.trailingSlash && urls.stripExtension) {
    url = `${url}/`
  }
  assertSameOrigin(path, url, base)
  return url
}

/** Resolved against a placeholder origin, the page URL must land on the base's own origin. */
function assertSameOrigin(path: string, url: string, base: string): void {
  const here = 'http://docpilot.invalid/'
  const origin = (u: string) => URL.parse(u, here)?.origin
  if (origin(url) === undefined || origin(url) !== origin(base)) {
    throw refused(path, `would be linked as ${JSON.stringify(url)}, which leaves the site (urls.base is ${JSON.stringify(base)})`)
  }
}

function refused(path: string, why: string): UrlRefusedError {
  return new UrlRefusedError(`${why}; skipped. Rename the file or folder (${JSON.stringify(path)}).`)
}
