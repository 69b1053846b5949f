/**
 * The files `docpilot index` writes for the site itself rather than for the
 * panel: `llms.txt`, `llms-full.txt` and a Markdown copy of every page. They
 * live in the site's output folder (the folder served at the site URL), and
 * a page's copy is served at the page's own URL with `.md` appended, the
 * llms.txt convention. The indexer writes them with these rules and the MCP
 * server reads them back with the same ones.
 */

export const LLMS_TXT = 'llms.txt'
export const LLMS_FULL_TXT = 'llms-full.txt'

/** A page URL without its fragment and query: `/docs/api/context#set-get` -> `/docs/api/context`. */
export function pageUrlOf(url: string): string {
  return url.replace(/[?#].*$/, '')
}

/**
 * Where a page's Markdown copy is served: the page URL plus `.md`; a
 * directory URL (`/guide/`, `/`) gets `index.md`. Fragment and query are dropped.
 */
export function pageCopyUrl(url: string): string {
  const page = pageUrlOf(url)
  if (page.endsWith('.md')) return page
  return page.endsWith('/') || page === '' ? `${page}index.md` : `${page}.md`
}

/**
 * Where a page's copy is, then where it would be with the other trailing-slash
 * form: `/guide/` names the same page as `/guide`, and agents add or drop the
 * slash whatever the site's own URLs do (`/guide/` -> `/guide/index.md`, then
 * `/guide.md`). The site root has one place only.
 */
export function pageCopyUrls(url: string): [string, ...string[]] {
  const copy = pageCopyUrl(url)
  const folder = copy.endsWith('/index.md')
  const stem = folder ? copy.slice(0, -'/index.md'.length) : copy.slice(0, -'.md'.length)
  if (stem === '' || /^https?:\/\/[^/]*$/i.test(stem)) return [copy]
  return [copy, folder ? `${stem}.md` : `${stem}/index.md`]
}

/** The site URL as a prefix ending in '/': '/docs' -> '/docs/'. */
export function siteBase(siteUrl: string): string {
  return siteUrl.endsWith('/') ? siteUrl : `${siteUrl}/`
}

/**
 * The path of a served URL inside the site output folder, or undefined when
 * the URL is not under the site URL (or climbs out of it with `..`).
 * Both may be root-relative ('/docs/x') or absolute ('https://example.com/docs/x').
 */
export function siteRelativePath(url: string, siteUrl: string): string | undefined {
  const base = siteBase(siteUrl)
  const target = pageUrlOf(url)
  if (!target.startsWith(base)) return undefined
  const rest = target.slice(base.length)
  let decoded: string
  try {
    decoded = decodeURIComponent(rest)
  } catch {
    return undefined
  }
  const segments = decoded.split('/')
  if (segments.some((s) => s === '..' || s === '.' || s.includes('\\') || s.includes('\0'))) return undefined
  return decoded
}

/**
 * A root-relative page URL on an origin, spelled as the index spells it:
 * new URL() would percent-encode the anchor (#基本 -> #%E5%9F%BA%E6%9C%AC),
 * which an agent then reads and quotes. An absolute URL is left as it is.
 */
export function onOrigin(url: string, origin: string): string {
  return url.startsWith('/') && !url.startsWith('//') ? `${new URL(origin).origin}${url}` : url
}

/** The site file of llms.txt (or llms-full.txt) for a site URL: `${siteUrl}llms.txt`. */
export function llmsUrl(siteUrl: string, name: typeof LLMS_TXT | typeof LLMS_FULL_TXT = LLMS_TXT): string {
  return `${siteBase(siteUrl)}${name}`
}
