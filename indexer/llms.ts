/**
 * Docs for agents, written by `docpilot index` next to the site rather than
 * into the index: `llms.txt` (every page, grouped by folder, one line each
 * with its title and a sentence from the page), `llms-full.txt` (every page's
 * Markdown in one file) and a Markdown copy of each page at its URL + `.md`
 * (core/site-files.ts). They go to the site's output folder, the folder
 * served at `urls.base`, so the links in llms.txt are the page URLs the
 * citations use.
 */
import { basename, join, relative, resolve, sep } from 'node:path'
import type { DocpilotConfig } from '../core/config/schema.ts'
import { readsAsSentence } from '../core/text/blocks.ts'
import { oneLine } from '../core/text/one-line.ts'
import { LLMS_FULL_TXT, LLMS_TXT, pageCopyUrl, siteBase, siteRelativePath } from '../core/site-files.ts'
import { markdownFromNodes } from './page-copy.ts'
import type { ParsedPage } from './sources/page.ts'
import { sha256 } from './sha256.ts'
import { utf8Of } from './stored-text.ts'
import { isInside } from './read-source.ts'
import { fileBelow, WrittenFiles, type FileContent } from './written-files.ts'

/** One page as the agent files describe it. */
export interface PageEntry {
  /** Source path relative to the docs folder, as in chunk records. */
  path: string
  /** The page URL citations use (no anchor). */
  url: string
  title: string
  /** One sentence: the frontmatter description's first, else the page's first. */
  description: string
  /** The page as clean Markdown, starting with its title. */
  markdown: string
}

export interface LlmsOptions {
  /** The site's output folder: the folder served at `siteUrl`. */
  siteOut: string
  /** Where that folder is served (`urls.base`). */
  siteUrl: string
  /** The H1 of llms.txt; default: the home page's title, else `fallbackTitle`. */
  title?: string
  fallbackTitle: string
  /** Files that must never be overwritten (the docs' own sources). */
  protect?: ReadonlySet<string>
  /**
   * Where to remember what was written (written-files.ts), so that the next run
   * rewrites only what changed and removes the copies of pages that are gone,
   * and the index the files belong to (its folder).
   */
  record?: { cacheDir: string; scope: string }
  /**
   * Each page's id (PageCache.pageId: same id, same entry), by its path: a page
   * copy, and llms-full.txt when every page has one, made from the same pages
   * as last run is known unchanged without being made or hashed again.
   */
  pageId?: (path: string) => string | undefined
}

export interface LlmsResult {
  dir: string
  pages: number
  /** Bytes written: llms.txt, llms-full.txt, and all page copies together. */
  bytes: { llmsTxt: number; llmsFull: number; copies: number }
  /** The other index whose agent files the last run wrote into this folder (neither removes the other's copies). */
  sharedWith?: string
  /** The H1 llms.txt fell back to (`fallbackTitle`: no llms.title, and no home page to take a title from). */
  untitled?: string
}

/** A problem that stops the agent files from being written (nothing was overwritten). */
export class LlmsError extends Error {
  override name = 'LlmsError'
}

/** The entry of one parsed page. `title` is the page title the index uses (H1, frontmatter, file name). */
export function pageEntry(where: { path: string; url: string }, title: string, page: ParsedPage): PageEntry {
  const body = page.markdown ?? markdownFromNodes(page.nodes)
  const hasH1 = page.nodes.some((n) => n.type === 'heading' && n.depth === 1)
  // The first paragraph that reads as a sentence describes the page; a signature line or a list item ("Extends: undici.Dispatcher", "name string") does not.
  const texts = page.nodes.flatMap((n) => (n.type === 'text' ? [n.text] : []))
  const firstText = texts.find((t) => !t.includes('\n') && readsAsSentence(t)) ?? texts[0] ?? ''
  const head = hasH1 ? '' : `# ${title}\n\n${page.description ? `> ${oneLine(page.description)}\n\n` : ''}`
  return { ...where, title, description: firstSentence(page.description ?? firstText), markdown: head + body }
}

const MAX_DESCRIPTION = 200

/** The first sentence of a text, on one line, at most about 200 characters (cut at a word). */
export function firstSentence(text: string): string {
  const flat = oneLine(text)
  const end = /[.!?](?=\s+["'(\[]?[A-Z0-9`]|$)/.exec(flat)
  const sentence = end ? flat.slice(0, end.index + 1) : flat
  if (sentence.length <= MAX_DESCRIPTION) return sentence
  const cut = sentence.slice(0, MAX_DESCRIPTION)
  return `${cut.slice(0, Math.max(cut.lastIndexOf(' '), MAX_DESCRIPTION / 2)).replace(/[\s,;:]+$/, '')}…`
}

const INDEX_PAGE = /(^|\/)index\.(md|mdx|html?)$/i

/**
 * The folder a page is listed under: its URL's folder below the site URL
 * ('' at the top). A folder's index page (`guide/index.md`, served at
 * `/guide`) heads its own folder rather than its parent's.
 */
function folderOf(page: PageEntry, siteUrl: string): string {
  const rel = (siteRelativePath(page.url, siteUrl) ?? page.url.replace(/^\/+/, '')).replace(/\/$/, '')
  if (INDEX_PAGE.test(page.path)) return rel
  return rel.split('/').slice(0, -1).join('/')
}

const escapeLinkText = (text: string) => text.replace(/([[\]\\])/g, '\\$1')

/** The home page (served at the site URL itself), if the docs have one. */
function homeOf(pages: readonly PageEntry[], siteUrl: string): PageEntry | undefined {
  const base = siteBase(siteUrl)
  return pages.find((p) => p.url === base || `${p.url}/` === base)
}

/** The H1 of llms.txt: llms.title, else the home page's title, else the fallback. */
const llmsTitle = (home: PageEntry | undefined, opts: Pick<LlmsOptions, 'title' | 'fallbackTitle'>): string => opts.title ?? home?.title ?? opts.fallbackTitle

const LIST_NOTE = 'Each page below links to its Markdown copy'
const SOURCE_LINE = 'Source: '

/**
 * Whether the start of an llms.txt or llms-full.txt is docpilot's: llms.txt says how its list
 * links, llms-full.txt's first page has its Source line on the first or second line. Another
 * one is the owner's own (a framework copies it from the site's public folder into its build).
 */
export function writtenByDocpilot(name: typeof LLMS_TXT | typeof LLMS_FULL_TXT, head: string): boolean {
  if (name === LLMS_TXT) return head.includes(`\n${LIST_NOTE} `)
  const [first = '', second = ''] = head.split('\n', 2)
  return first.startsWith(SOURCE_LINE) || (first.startsWith('# ') && second.startsWith(SOURCE_LINE))
}

export function llmsTxt(pages: readonly PageEntry[], opts: Pick<LlmsOptions, 'siteUrl' | 'title' | 'fallbackTitle'>): string {
  const home = homeOf(pages, opts.siteUrl)
  const lines = [`# ${llmsTitle(home, opts)}`, '']
  if (home?.description) lines.push(`> ${home.description}`, '')
  lines.push(
    `${LIST_NOTE} (the page URL with .md). ${LLMS_FULL_TXT} holds all ${pages.length} pages in one file.`,
    '',
  )
  const groups = new Map<string, PageEntry[]>()
  for (const page of pages) {
    const folder = folderOf(page, opts.siteUrl)
    let group = groups.get(folder)
    if (!group) groups.set(folder, (group = []))
    // A folder's index page leads its group.
    if (INDEX_PAGE.test(page.path)) group.unshift(page)
    else group.push(page)
  }
  // Code-point order: top-level pages first, a folder before its subfolders.
  const order = [...groups.keys()].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
  for (const folder of order) {
    lines.push(`## ${folder || 'Pages'}`, '')
    for (const page of groups.get(folder)!) {
      const link = `- [${escapeLinkText(page.title)}](${pageCopyUrl(page.url)})`
      lines.push(page.description ? `${link}: ${page.description}` : link)
    }
    lines.push('')
  }
  return lines.join('\n')
}

/**
 * Every page's Markdown in one file, each headed by its title and the URL it
 * is served at: the file's bytes, in pieces (written with one writev, never
 * joined). Put together from each copy's UTF-8 (utf8Of): a page the page
 * cache gave is never decoded for it.
 */
export function llmsFullTxt(pages: readonly PageEntry[]): Uint8Array[] {
  const parts: Uint8Array[] = []
  pages.forEach((page, i) => {
    if (i) parts.push(PAGE_BREAK)
    const markdown = utf8Of(page, 'markdown')
    const source = `${SOURCE_LINE}${page.url}`
    if (markdown[0] !== HASH || markdown[1] !== SPACE) return parts.push(Buffer.from(`${source}\n\n`), markdown)
    // The source line goes under the title line.
    const end = markdown.indexOf(NEWLINE)
    if (end === -1) return parts.push(markdown, Buffer.from(`\n${source}`))
    parts.push(markdown.subarray(0, end), Buffer.from(`\n${source}`), markdown.subarray(end))
  })
  return parts
}

const PAGE_BREAK = Buffer.from('\n---\n\n')
const [HASH, SPACE, NEWLINE] = [0x23, 0x20, 0x0a]

/** Writes llms.txt, llms-full.txt and the page copies into the site's output folder. */
export async function writeLlms(pages: readonly PageEntry[], opts: LlmsOptions): Promise<LlmsResult> {
  const dir = resolve(opts.siteOut)
  const copies = pages.map((page) => {
    const rel = siteRelativePath(pageCopyUrl(page.url), opts.siteUrl)
    if (rel === undefined || rel === '') {
      throw new LlmsError(`${page.path}: its URL ${page.url} is not under the site URL ${opts.siteUrl}, so its Markdown copy has no place in ${dir}. Check urls.base.`)
    }
    const file = fileBelow(dir, rel)
    if (file === undefined) throw new LlmsError(`${page.path}: its URL ${page.url} points outside ${dir}.`)
    if (opts.protect?.has(file)) {
      throw new LlmsError(
        `The Markdown copy of ${page.path} would overwrite the source file ${file}. ` +
          'Write the agent files to your site\'s output folder instead (--site-out, or llms.siteOut in the config), or turn them off with --no-llms.',
      )
    }
    return { file, text: utf8Of(page, 'markdown') }
  })
  const index = llmsTxt(pages, opts)
  const full = llmsFullTxt(pages)
  const files = await WrittenFiles.open(dir, opts.record)
  // What each file is made from, where page ids say: a copy from its page, llms-full.txt from all of them in order.
  const ids = opts.pageId ? pages.map((page) => opts.pageId!(page.path)) : []
  const allIds = ids.length && ids.every((id) => id !== undefined) ? sha256(ids.join('\n')) : undefined
  // Two pages may share a URL (a.md and a.mdx): the later one's copy is the one kept, as when they were written in turn.
  const contents = new Map<string, [content: FileContent, source: string | undefined]>([
    ...copies.map((copy, i): [string, [Uint8Array, string | undefined]] => [copy.file, [copy.text, ids[i]]]),
    [join(dir, LLMS_TXT), [index, undefined]],
    [join(dir, LLMS_FULL_TXT), [full, allIds]],
  ])
  for (const [file, [content, source]] of contents) files.write(file, content, source)
  await files.finish()
  const copyBytes = copies.reduce((sum, copy) => sum + copy.text.length, 0)
  return {
    dir,
    pages: pages.length,
    bytes: { llmsTxt: Buffer.byteLength(index), llmsFull: full.reduce((sum, part) => sum + part.length, 0), copies: copyBytes },
    ...(files.sharedWith ? { sharedWith: files.sharedWith } : {}),
    ...(opts.title === undefined && !homeOf(pages, opts.siteUrl) ? { untitled: opts.fallbackTitle } : {}),
  }
}

/**
 * A site output folder inside the docs folder (VitePress's `docs/public`)
 * must not be read back as docs on the next run: the glob that skips it.
 */
export function excludeSiteOut(root: string, siteOut: string | undefined): string[] {
  if (!siteOut) return []
  const rel = relative(resolve(root), resolve(siteOut))
  if (!rel || rel.startsWith('..') || resolve(rel) === rel) return []
  return [`${rel.split(sep).join('/')}/**`]
}

/**
 * Sources must not sit inside the site output folder: the page copies
 * written there would be read as docs on the next run. (A built site may: its
 * pages are .html, the copies .md.) Checked before any work is done.
 */
export function checkSiteOut(opts: { siteOut: string; root: string; mode: 'source' | 'site' }): void {
  const up = relative(resolve(opts.siteOut), resolve(opts.root))
  if (opts.mode === 'source' && !up.startsWith('..') && resolve(up) !== up) {
    throw new LlmsError(
      `The site output folder ${resolve(opts.siteOut)} holds the docs folder ${resolve(opts.root)}: page copies written there would be read as docs on the next run. ` +
        'Give --site-out (or llms.siteOut) your built site\'s folder, or a folder inside the docs folder (like VitePress\'s docs/public), or pass --no-llms.',
    )
  }
}

/**
 * The sources a page copy could overwrite: none when neither folder holds
 * the other (the usual site output folder beside the docs), as `files` are
 * paths inside `root`.
 */
function sourcesIn(siteOut: string, root: string, files: readonly string[]): Pick<LlmsOptions, 'protect'> {
  const [dir, docs] = [resolve(siteOut), resolve(root)]
  if (!isInside(dir, docs) && !isInside(docs, dir)) return {}
  return { protect: new Set(files.map((f) => resolve(docs, f))) }
}

/** The agent files for one build: pages from the collect step, settings from the config. */
export async function writeAgentFiles(
  pages: readonly PageEntry[],
  opts: {
    siteOut: string
    root: string
    mode: 'source' | 'site'
    files: readonly string[]
    config: Pick<DocpilotConfig, 'urls' | 'llms'>
    record?: LlmsOptions['record']
    pageId?: LlmsOptions['pageId']
  },
): Promise<LlmsResult> {
  checkSiteOut(opts)
  return writeLlms(pages, {
    siteOut: opts.siteOut,
    siteUrl: opts.config.urls.base,
    ...(opts.config.llms.title ? { title: opts.config.llms.title } : {}),
    fallbackTitle: basename(resolve(opts.root)),
    ...sourcesIn(opts.siteOut, opts.root, opts.files),
    ...(opts.record ? { record: opts.record } : {}),
    ...(opts.pageId ? { pageId: opts.pageId } : {}),
  })
}
