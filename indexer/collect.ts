/**
 * The build-time source pipeline: a docs folder (or a built HTML site) ->
 * chunk records, in a deterministic order (files sorted, chunks in page
 * order). Problems that stop a run throw CollectError; a problem with one
 * file is a warning naming it, and the run goes on.
 */
import { realpath, stat } from 'node:fs/promises'
import { basename, resolve } from 'node:path'
import type { ChunkRecord } from '../core/index/format.ts'
import type { DocpilotConfig, SluggerName } from '../core/config/schema.ts'
import { DEFAULT_FILE_LIMITS } from '../core/config/file-limits.ts'
import { parsePool, timeLeft } from './parse-pool.ts'
import { parseHere } from './parse-here.ts'
import type { ParseJob, ParseOutcome } from './parse-file.ts'
import type { ReadFile } from './page-cache.ts'
import { toSections } from './sections.ts'
import { toChunks } from './chunks.ts'
import { pathToUrl, UrlRefusedError } from './urls.ts'
import { fsInside, readSource, sourceFingerprint } from './read-source.ts'
import { listingHolds, recordedWalk, type FolderListing } from './folder-listing.ts'
import { pageEntry, type PageEntry } from './llms.ts'
import { embedDigest } from './embed-text.ts'
import { headingQuestions, type HeadingQuestion } from './suggest.ts'
import { now } from './clock.ts'
import { PAGEFIND_BODY } from './sources/regions.ts'

export interface CollectOptions {
  /** Docs dir (source mode) or built site dir (site mode). */
  root: string
  mode: 'source' | 'site'
  include?: string[]
  exclude?: string[]
  contentSelector?: string
  slugger: SluggerName
  urls: DocpilotConfig['urls']
  chunks: DocpilotConfig['chunks']
  /** Per-file limits (docs.maxFileBytes, docs.maxNesting, docs.parseTimeoutMs); defaults from the config schema. */
  limits?: Partial<Pick<DocpilotConfig['docs'], 'maxFileBytes' | 'maxNesting' | 'parseTimeoutMs'>>
  /**
   * Pages parsed by an earlier run (page-cache.ts): a file whose bytes are unchanged is not parsed again, and one
   * the file system says is unchanged (`unchanged`, given the file's current fingerprint on request) is not even read.
   */
  cache?: {
    unchanged?(file: string, fingerprint: () => string | undefined): CollectedPage | undefined
    get(file: string, read: ReadFile): CollectedPage | undefined
    set(file: string, read: ReadFile, page: CollectedPage): void
    /** The files an earlier walk of the folder found (folder-listing.ts), by what was walked (`walk`: the folder and the patterns). */
    listing?(walk: string): FolderListing | undefined
    /** Keeps the listing this run used for the next one. */
    keepListing?(walk: string, listing: FolderListing): void
  }
  /** Also describe each page for the agent files (llms.txt, page copies). */
  pages?: boolean
}

export interface CollectWarning {
  file: string
  message: string
}

export interface CollectResult {
  chunks: ChunkRecord[]
  /** Each chunk's embedDigest (embed-text.ts), in chunk order: hashed when its page was parsed, kept by the page cache. */
  digests: string[]
  /** Paths (relative to root) of the files indexed (that gave chunks), sorted. */
  files: string[]
  /** Files matched but skipped, each with a warning saying why. */
  skipped: number
  /** Built pages left out because they ask not to be in a search index (robots noindex; see CollectedPage.noindex), without a warning. */
  noindex: number
  /** Pages parsed this run (the others came from the cache). */
  parsed: number
  warnings: CollectWarning[]
  /** Each indexed page for the agent files, when asked for (CollectOptions.pages). */
  pages: PageEntry[]
  /** The questions the pages' section headings read as, in chunk order (suggest.ts). */
  questions: HeadingQuestion[]
}

export type CollectErrorCode = 'missing_dir' | 'empty_dir' | 'no_matches'

export class CollectError extends Error {
  override name = 'CollectError'
  constructor(
    readonly code: CollectErrorCode,
    message: string,
    readonly path: string,
  ) {
    super(message)
  }
}

export const DEFAULT_INCLUDE: Record<CollectOptions['mode'], string[]> = {
  source: ['**/*.md', '**/*.mdx'],
  site: ['**/*.html'],
}
const strictUtf8 = new TextDecoder('utf-8', { fatal: true })
/** Never content: dependencies and dot-dirs (.git, .vitepress, .astro ...). */
const ALWAYS_EXCLUDED = ['**/node_modules/**', '**/.*/**']
/**
 * Never a page of a built site: the not-found page, which static hosts (GitHub Pages, Netlify, Cloudflare Pages)
 * serve from the site's root by that name for every missing URL. Known by its name: the generators' own carry no
 * common mark (MkDocs' and Material for MkDocs' have no robots noindex, and no class or id they share).
 */
export const SITE_NOT_PAGES = ['404.html']

export async function collectChunks(
  opts: CollectOptions,
  onProgress?: (done: number, total: number, file: string) => void,
): Promise<CollectResult> {
  await assertDir(resolve(opts.root), opts.mode)
  // Every path below is checked against the folder's real path, so a docs folder that is itself a link still works.
  const root = await realpath(resolve(opts.root))
  const limits = { ...DEFAULT_FILE_LIMITS, ...opts.limits }
  const include = opts.include?.length ? opts.include : DEFAULT_INCLUDE[opts.mode]
  const warnings: CollectWarning[] = []
  const escaping = new Set<string>()
  const files = await docsFiles(root, include, opts, (link, target) => {
    if (!escaping.has(link)) warnings.push({ file: link, message: `is a link to ${target}, outside the docs folder; skipped (only files inside the folder are indexed)` })
    escaping.add(link)
  })
  if (files.length === 0) await throwNoFiles(root, include, opts)

  const chunks: ChunkRecord[] = []
  const digests: string[] = []
  const indexed: string[] = []
  const pages: PageEntry[] = []
  const questions: HeadingQuestion[] = []
  const seenIds = new Set<string>()
  const withChunks: Array<[file: string, page: CollectedPage]> = []
  const noindex: Array<[file: string, page: CollectedPage]> = []
  // A page cached by a run that wrote no agent files has no entry for them: it is parsed again.
  const usable = (page: CollectedPage | undefined): page is CollectedPage => Boolean(page && (page.entry || !opts.pages || !page.chunks.length))
  const { cache } = opts
  // The first report comes before any file is read.
  onProgress?.(0, files.length, files[0]!)
  // What each file gives without a parse: its page from the cache (found by the file's fingerprint without
  // a read, else by its bytes), the reason it cannot be read, or the bytes to parse. Reading is cheap; knowing
  // how many pages need a parse before the first one decides where they are parsed.
  const found = files.map((file): CollectedPage | ReadFile => {
    const known = cache?.unchanged?.(file, () => sourceFingerprint(root, file))
    if (usable(known)) return known
    const read = readSource(root, file, limits.maxFileBytes)
    if (!read.ok) return { chunks: [], warnings: [read.reason] }
    const cached = cache?.get(file, read)
    return usable(cached) ? cached : read
  })
  const parsed = found.filter((f) => 'bytes' in f).length
  const parse = parserFor(parsed)
  /** One file turned into chunks (or the reason it gives none); a re-index reuses what did not change. */
  const load = async (file: string, i: number): Promise<CollectedPage> => {
    const source = found[i]!
    if (!('bytes' in source)) return source
    const { page, lasting } = await pageOf(file, source.bytes, opts, limits, parse)
    if (lasting) cache?.set(file, source, page)
    found[i] = page // the bytes are not needed any more
    return page
  }
  // Pages are parsed (in the parse thread) a few ahead of the one being chunked, and taken in order.
  const ahead: Promise<CollectedPage>[] = []
  let next = 0
  for (const [i, file] of files.entries()) {
    if (i > 0) onProgress?.(i, files.length, file)
    while (next < files.length && ahead.length < PARSE_AHEAD) {
      const pending = load(files[next]!, next++)
      pending.catch(() => {}) // rethrown below, in order
      ahead.push(pending)
    }
    const page = await ahead.shift()!
    // A page kept out of search is left out as quietly as an excluded one: what it would warn about does not matter.
    if (page.noindex) {
      noindex.push([file, page])
      continue
    }
    for (const message of page.warnings) warnings.push({ file, message })
    if (page.chunks.length) withChunks.push([file, page])
  }
  onProgress?.(files.length, files.length, '')
  // Every page asking it is the site's own setting (a preview build kept out of search engines, Docusaurus' noIndex),
  // not a choice of pages: the site is indexed as if none asked.
  const siteWide = noindex.length > 0 && withChunks.length === 0
  if (siteWide) {
    for (const [file, page] of noindex) {
      for (const message of page.warnings) warnings.push({ file, message })
      if (page.chunks.length) withChunks.push([file, page])
    }
  }
  const leftOut = siteWide ? 0 : noindex.length
  const docsPages = docsPagesOf(withChunks, opts)
  for (const [file, page] of docsPages) {
    const pageChunks = page.chunks
    digests.push(...(page.digests ?? pageChunks.map(embedDigest)))
    questions.push(...(page.questions ?? headingQuestions(pageChunks)))
    indexed.push(file)
    if (opts.pages && page.entry) pages.push(page.entry)
    for (const chunk of pageChunks) {
      // Built HTML can repeat an id on one page; ids must stay unique in the index.
      let id = chunk.id
      for (let n = 2; seenIds.has(id); n++) id = `${chunk.id}~dup${n}`
      seenIds.add(id)
      chunks.push(id === chunk.id ? chunk : { ...chunk, id })
    }
  }
  // A page left out as no docs page (docsPagesOf) is neither indexed nor skipped, as an excluded file.
  const notDocs = withChunks.length - docsPages.length
  const skipped = files.length - notDocs - leftOut - indexed.length + escaping.size
  return { chunks, digests, files: indexed, skipped, noindex: leftOut, parsed, warnings, pages, questions }
}

/**
 * The pages that are docs pages. In a built site where any page marks its
 * content with data-pagefind-body, only the pages that do: Pagefind's rule
 * (its other pages are a splash page, a listing, a page the generator was told
 * to keep out of search, as Starlight's `pagefind: false` leaves its mark
 * off), so the index holds what Pagefind's holds. An owner's own
 * docs.contentSelector decides alone.
 */
function docsPagesOf(pages: Array<[file: string, page: CollectedPage]>, opts: CollectOptions): Array<[string, CollectedPage]> {
  if (opts.mode !== 'site' || opts.contentSelector || !pages.some(([, page]) => page.pagefindBody)) return pages
  return pages.filter(([, page]) => page.pagefindBody)
}

/**
 * The files of the docs folder the patterns match, sorted: those of the
 * listing an earlier run kept while the folders it read are unchanged
 * (folder-listing.ts), else walked. `onEscape`: a link the walk met that
 * leaves the folder (a walk that meets one is never kept).
 */
async function docsFiles(root: string, include: string[], opts: CollectOptions, onEscape: (link: string, target: string) => void): Promise<string[]> {
  const { cache } = opts
  const ignore = [...ALWAYS_EXCLUDED, ...(opts.mode === 'site' ? SITE_NOT_PAGES : []), ...(opts.exclude ?? [])]
  const walk = JSON.stringify([root, include, ignore])
  const kept = cache?.listing?.(walk)
  if (kept && listingHolds(kept)) {
    cache!.keepListing?.(walk, kept)
    return kept.files
  }
  // Loaded only to walk: a re-index over unchanged folders never does.
  const { globSync } = await import('tinyglobby')
  const recorded = recordedWalk(fsInside(root, onEscape))
  // Synchronous for the reason readSource is: a crawl of a docs folder is many small calls.
  const files = globSync(include, { cwd: root, ignore, onlyFiles: true, dot: false, fs: recorded.fs }).sort(comparePaths)
  const listing = recorded.listing(files)
  if (listing) cache?.keepListing?.(walk, listing)
  return files
}

/** One file's chunks (before ids are made unique across the index) and what to warn about it. */
export interface CollectedPage {
  chunks: ChunkRecord[]
  warnings: string[]
  /** Each chunk's embedDigest, taken at the parse (absent: hashed when the page is collected). */
  digests?: string[]
  /** The questions its section headings read as (suggest.ts), taken at the parse (absent: asked when the page is collected). */
  questions?: HeadingQuestion[]
  /** The page for the agent files, when they were asked for (CollectOptions.pages). */
  entry?: PageEntry
  /** Built HTML whose content was read from its data-pagefind-body region (see docsPagesOf). */
  pagefindBody?: true
  /** Built HTML that asks not to be in a search index (ParsedPage.noindex): left out, unless every page asks it. */
  noindex?: true
}

/** How many pages may be parsed ahead of the one being chunked. */
const PARSE_AHEAD = 8

type Parse = (job: ParseJob, timeoutMs: number) => Promise<ParseOutcome>

/**
 * At most this many pages to parse (a re-index after a few edits) are parsed
 * on this thread (parse-here.ts): starting the parse thread costs more than
 * they do. More than that (a first build) go to the parse thread, which
 * parses while this thread chunks.
 */
export const PARSE_HERE_PAGES = 16
/** A page longer than this (in characters) always goes to the parse thread, whose heap is its own. */
export const PARSE_HERE_CHARS = 256 * 1024

function parserFor(pages: number): Parse {
  if (pages > PARSE_HERE_PAGES) return (job, timeoutMs) => parsePool().parse(job, timeoutMs)
  return async (job, timeoutMs) => {
    if (job.source.length > PARSE_HERE_CHARS) return parsePool().parse(job, timeoutMs)
    const started = now()
    const here = await parseHere(job, timeoutMs).catch((): undefined => undefined)
    if (here && (here.ok || !here.threw)) return here
    // A parse that failed here (deep HTML overflows this thread's smaller stack) is not the page's last word: the
    // parse thread, which parses every page of a first build, tries it in the time left, so both give one index.
    return parsePool().parse(job, timeLeft(timeoutMs, started), timeoutMs)
  }
}

/**
 * A page is a function of its path, its bytes and the options (`lasting`: a
 * later run may reuse it), except when the parse was cut by the clock or its
 * thread died: that page is tried again next run.
 */
async function pageOf(
  file: string,
  bytes: Uint8Array,
  opts: CollectOptions,
  limits: { maxNesting: number; parseTimeoutMs: number },
  parse: Parse,
): Promise<{ page: CollectedPage; lasting: boolean }> {
  let noindex = false
  const skipped = (message: string, warnings: string[] = []) => ({
    page: { chunks: [], warnings: [...warnings, message], ...(noindex ? { noindex: true as const } : {}) },
    lasting: true,
  })
  let source: string
  try {
    source = strictUtf8.decode(bytes)
  } catch {
    return skipped('is not UTF-8 text (binary, or text in another encoding: save it as UTF-8 to index it); skipped')
  }
  let url: string
  try {
    url = pathToUrl(file, opts.urls)
  } catch (error) {
    if (!(error instanceof UrlRefusedError)) throw error
    return skipped(error.message)
  }
  const job = {
    file,
    source,
    mode: opts.mode,
    maxNesting: limits.maxNesting,
    ...(opts.contentSelector ? { contentSelector: opts.contentSelector } : {}),
    ...(opts.pages ? { copy: true } : {}),
  }
  const parsed = await parse(job, limits.parseTimeoutMs)
  if (!parsed.ok) return { ...skipped(parsed.reason), lasting: !parsed.transient }
  const { page } = parsed
  noindex = page.noindex === true
  const notes = page.notes ?? []
  if (opts.mode === 'site' && page.nodes.length === 0 && opts.contentSelector) {
    return skipped(`content selector "${opts.contentSelector}" matched nothing; page skipped`, notes)
  }
  const sections = toSections(page, opts.slugger, titleFromFileName(file))
  const where = { path: file, url }
  const chunks = toChunks(sections, where, opts.chunks)
  if (!chunks.length) return skipped('has no text to index; skipped', notes)
  const questions = headingQuestions(chunks)
  const marked = 'region' in page && page.region === PAGEFIND_BODY
  return {
    page: { chunks, warnings: notes, digests: chunks.map(embedDigest), questions, ...(opts.pages ? { entry: pageEntry(where, sections.title, page) } : {}), ...(marked ? { pagefindBody: true as const } : {}), ...(noindex ? { noindex: true as const } : {}) },
    lasting: true,
  }
}

function titleFromFileName(file: string): string {
  const name = basename(file).replace(/\.[^.]+$/, '')
  const dir = file.split('/').slice(-2, -1)[0]
  return name === 'index' && dir ? dir : name
}

/** Code-point order, independent of locale, so output is the same everywhere. */
function comparePaths(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0
}

async function assertDir(root: string, mode: CollectOptions['mode']): Promise<void> {
  const what = mode === 'site' ? 'built site folder' : 'docs folder'
  let info
  try {
    info = await stat(root)
  } catch {
    throw new CollectError(
      'missing_dir',
      `The ${what} ${root} does not exist. Pass the folder that holds your ${mode === 'site' ? 'built HTML (e.g. dist/)' : 'Markdown/MDX pages'}, or set docs.${mode === 'site' ? 'site' : 'dir'} in docpilot.config.`,
      root,
    )
  }
  if (!info.isDirectory()) {
    throw new CollectError('missing_dir', `${root} is a file, not a folder. Pass the ${what} that contains it.`, root)
  }
}

async function throwNoFiles(root: string, include: string[], opts: CollectOptions): Promise<never> {
  const { glob } = await import('tinyglobby')
  const anything = await glob(['**/*'], { cwd: root, ignore: ALWAYS_EXCLUDED, onlyFiles: true })
  if (anything.length === 0) {
    throw new CollectError(
      'empty_dir',
      `The ${opts.mode === 'site' ? 'built site folder' : 'docs folder'} ${root} is empty. ${opts.mode === 'site' ? 'Build the site first, then index its output folder.' : 'Point docpilot at the folder that holds your .md/.mdx pages.'}`,
      root,
    )
  }
  const excluded = opts.exclude?.length ? ` (minus exclude ${JSON.stringify(opts.exclude)})` : ''
  throw new CollectError(
    'no_matches',
    `No files in ${root} match include ${JSON.stringify(include)}${excluded}. ` +
      (opts.mode === 'site'
        ? 'Is this the built output folder (with .html files)? Otherwise adjust docs.include (or --include).'
        : 'Check docs.include/docs.exclude (or --include/--exclude), or pass --site if this is a built HTML site.'),
    root,
  )
}
