/**
 * Turns docpilot's own chunk records back into HTML pages, so Pagefind indexes
 * exactly the text docpilot indexes, under exactly the heading ids docpilot's
 * indexer produced. There is no second Markdown pipeline here: everything
 * comes from the indexer's output (path, url, anchor, trail, text).
 */
import type { ChunkRecord } from '../core/index/format.ts'

export interface RenderedPage {
  /** Source path relative to the corpus folder (the chunk `path`). */
  path: string
  /** Page URL without anchor (the chunk `url`). */
  url: string
  /** File path the page would have in a built site, e.g. `docs/api/context/index.html`. */
  file: string
  html: string
}

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;' }
const escapeHtml = (s: string) => s.replace(/[&<>"]/g, (c) => ESCAPES[c]!)

/**
 * Windows of one long section overlap; the overlap is written once. Returns
 * how many leading words of `next` repeat the tail of `prev`.
 */
export function overlapWords(prev: string, next: string, maxWords = 500): number {
  const a = prev.split(/\s+/).filter(Boolean)
  const b = next.split(/\s+/).filter(Boolean)
  for (let n = Math.min(maxWords, a.length, b.length); n > 0; n--) {
    let same = true
    for (let i = 0; i < n && same; i++) same = a[a.length - n + i] === b[i]
    if (same) return n
  }
  return 0
}

/** Paragraphs on blank lines; single newlines kept (code keeps its lines). */
function renderText(text: string): string {
  return text
    .split(/\n\s*\n/)
    .map((p) => p.trim())
    .filter(Boolean)
    .map((p) => (p.includes('\n') ? `<pre>${escapeHtml(p)}</pre>` : `<p>${escapeHtml(p)}</p>`))
    .join('\n')
}

/** `/docs/api/context` -> `docs/api/context/index.html`; `/` -> `index.html`. */
export function fileForUrl(url: string): string {
  const clean = url.replace(/^\/+/, '').replace(/\/+$/, '')
  return clean ? `${clean}/index.html` : 'index.html'
}

/** Groups chunks by page (input order kept) and renders one HTML document per page. */
export function renderPages(chunks: ChunkRecord[]): RenderedPage[] {
  const byPath = new Map<string, ChunkRecord[]>()
  for (const c of chunks) {
    const list = byPath.get(c.path)
    if (list) list.push(c)
    else byPath.set(c.path, [c])
  }
  const pages: RenderedPage[] = []
  for (const [path, list] of byPath) {
    const first = list[0]!
    const body: string[] = [`<h1>${escapeHtml(first.title)}</h1>`]
    let prev: ChunkRecord | undefined
    for (const c of list) {
      const sameSection = prev !== undefined && prev.anchor === c.anchor
      let text = c.text
      if (sameSection) {
        const n = overlapWords(prev!.text, c.text)
        if (n) text = c.text.split(/\s+/).filter(Boolean).slice(n).join(' ')
      } else if (c.anchor) {
        // Level follows the trail depth (trail[0] is the page title, the <h1>).
        const level = Math.min(6, Math.max(2, c.trail.length))
        const heading = c.trail[c.trail.length - 1] ?? c.title
        body.push(`<h${level} id="${escapeHtml(c.anchor)}">${escapeHtml(heading)}</h${level}>`)
        text = stripLeadingHeading(text, heading)
      }
      body.push(renderText(text))
      prev = c
    }
    const html =
      `<!doctype html>\n<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(first.title)}</title></head>\n` +
      `<body><main data-pagefind-body>\n${body.join('\n')}\n</main></body></html>\n`
    pages.push({ path, url: first.url, file: fileForUrl(first.url), html })
  }
  return pages
}

/** Some chunkers prefix the text with its heading; the <hN> already carries it. */
function stripLeadingHeading(text: string, heading: string): string {
  const t = text.trimStart()
  return heading && t.startsWith(heading) && /^\s/.test(t.slice(heading.length, heading.length + 1) || ' ')
    ? t.slice(heading.length)
    : text
}

/** url#anchor -> where it came from; how a peer's hit is mapped back to path + trail. */
export function sectionsByUrl(chunks: ChunkRecord[]): Map<string, { path: string; trail: string[] }> {
  const map = new Map<string, { path: string; trail: string[] }>()
  for (const c of chunks) {
    const key = sectionKey(c.url, c.anchor)
    if (!map.has(key)) map.set(key, { path: c.path, trail: c.trail })
    // The page itself (no anchor) resolves to its title alone.
    const pageKey = sectionKey(c.url, '')
    if (!map.has(pageKey)) map.set(pageKey, { path: c.path, trail: [c.title] })
  }
  return map
}

/** Canonical key: no trailing slash, no `index.html`, anchor after `#`. */
export function sectionKey(url: string, anchor: string): string {
  const base = decodeURI(url)
    .replace(/[?#].*$/, '')
    .replace(/\/index\.html$/, '/')
    .replace(/\/+$/, '')
  return `${base || '/'}#${anchor}`
}

/** Splits a full hit URL (`/docs/x/#set-get`) into a section key. */
export function sectionKeyOfHref(href: string): string {
  const hash = href.indexOf('#')
  return hash < 0 ? sectionKey(href, '') : sectionKey(href.slice(0, hash), decodeURIComponent(href.slice(hash + 1)))
}
