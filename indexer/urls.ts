/**
 * Source path -> page URL, the way the site's router maps files to routes:
 * strip a source prefix, drop the extension, collapse `index` pages, apply
 * the base and the trailing-slash convention.
 */
import type { DocpilotConfig } from '../core/config/schema.ts'

const PAGE_EXTENSION = /\.(md|mdx|html?)$/i

export function pathToUrl(path: string, urls: DocpilotConfig['urls']): string {
  let p = path.replace(/\\/g, '/').replace(/^\.?\//, '')
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

  const base = urls.base.endsWith('/') ? urls.base : `${urls.base}/`
  let url = `${base}${p}`
  if (!url.startsWith('/') && !/^[a-z][a-z0-9+.-]*:\/\//i.test(url)) url = `/${url}`
  if (isIndex) {
    // A collapsed index page is a directory URL; drop its slash only when the site does.
    return !urls.trailingSlash && url !== base && url !== '/' ? url.replace(/\/$/, '') : url
  }
  return urls.trailingSlash && urls.stripExtension ? `${url}/` : url
}
