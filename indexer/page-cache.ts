/**
 * Parsed pages cached between index runs, so a re-index after one page
 * changes parses that page only. An entry is keyed by the file's path and the
 * digest of its bytes; the cache file is keyed by everything else a page
 * depends on (the collect options that shape chunks, and the docpilot
 * version), so a changed setting or a new docpilot starts a fresh file.
 *
 * Each file's fingerprint (read-source.ts: device, inode, size, change times)
 * is kept beside the key of the page its bytes gave, so the next run finds an
 * unchanged file's page from one stat, without reading or hashing it. A file
 * whose fingerprint differs (touched, copied, checked out again) is read and
 * looked up by digest as before; only a settled fingerprint is kept, so a file
 * changed again within the clock tick it was read in is read next time.
 *
 * The file is a journal, one JSON line per page or file record, a later line
 * replacing an earlier one: a run that changed one page appends two lines
 * instead of writing megabytes again. Lines no run uses any more (pages since
 * changed or deleted, fingerprints since replaced) are dropped by rewriting
 * the file once their bytes outweigh a quarter of the live lines', or
 * when its last append was cut short. Weighed by size, not counted: a run over
 * a fresh checkout replaces every file's fingerprint (a short line each) and
 * appends them, where counting lines would rewrite every page (megabytes).
 */
import { appendFile, mkdir, readFile } from 'node:fs/promises'
import { basename, dirname } from 'node:path'
import type { CollectedPage, CollectOptions } from './collect.ts'
import type { SourceFingerprint } from './read-source.ts'
import { cacheFile, replaceFile } from './cache-file.ts'
import { sha256 } from './sha256.ts'

/** Bumped when the page pipeline's output or this file's layout changes without a docpilot version change. */
const FORMAT = 4

/** A journal line: a page by its key, or a file's fingerprint and the key of its page. */
type Line = ['page', key: string, page: CollectedPage] | ['file', path: string, fingerprint: string, key: string]

/** A file as read this run (read-source.ts). */
export interface ReadFile {
  bytes: Uint8Array
  fingerprint?: SourceFingerprint
}

interface Journal {
  pages: Map<string, CollectedPage>
  files: Map<string, [fingerprint: string, key: string]>
  /** Bytes of the line that holds each page (by key) and each file's fingerprint (by path). */
  pageBytes: Map<string, number>
  fileBytes: Map<string, number>
  /** Bytes of the whole file, live lines and unused ones. */
  bytes: number
  /** The file ends in a cut-off line: the next save rewrites it. */
  damaged: boolean
}

export class PageCache {
  private readonly used = new Map<string, CollectedPage>()
  private readonly seen = new Map<string, [string, string]>()
  /** path -> the key of the page this run used for it. */
  private readonly keys = new Map<string, string>()

  private constructor(
    private readonly file: string,
    private readonly stored: Journal,
  ) {}

  /** The cache for these options; `scope` names the index it serves (its output folder). */
  static async open(cacheDir: string, opts: Omit<CollectOptions, 'root' | 'include' | 'exclude' | 'cache'>, version: string, scope: string): Promise<PageCache> {
    const shape = JSON.stringify([FORMAT, version, scope, opts.mode, opts.contentSelector ?? '', opts.slugger, opts.urls, opts.chunks, opts.limits ?? {}])
    const file = cacheFile(cacheDir, 'pages', shape, '.jsonl')
    return new PageCache(file, readJournal(await readFile(file).catch(() => Buffer.alloc(0))))
  }

  /**
   * The page of a file an earlier run read, when `fingerprint` (called only
   * for a file the cache has a fingerprint of) says it has not changed since.
   */
  unchanged(path: string, fingerprint: () => string | undefined): CollectedPage | undefined {
    const known = this.stored.files.get(path)
    if (!known || fingerprint() !== known[0]) return undefined
    const page = this.stored.pages.get(known[1])
    if (page) this.use(path, known[1], page, known[0])
    return page
  }

  get(path: string, read: ReadFile): CollectedPage | undefined {
    const key = this.key(path, read.bytes)
    const page = this.stored.pages.get(key)
    if (page) this.use(path, key, page, settled(read))
    return page
  }

  set(path: string, read: ReadFile, page: CollectedPage): void {
    this.use(path, this.key(path, read.bytes), page, settled(read))
  }

  /**
   * What names the page this run used for `path` across runs (undefined for a
   * page it did not keep): this cache file, named by everything a page depends
   * on but its bytes, and the page's key there. Same id, same page.
   */
  pageId(path: string): string | undefined {
    const key = this.keys.get(path)
    return key === undefined ? undefined : `${basename(this.file)}:${key}`
  }

  /**
   * Appends what this run added to the journal, or rewrites it with only what
   * this run used when the unused lines have piled up (atomically: a crash
   * leaves the previous file). A run that changed nothing writes nothing.
   */
  async save(): Promise<void> {
    const { pages, files, pageBytes, fileBytes, bytes, damaged } = this.stored
    const added: string[] = []
    let live = 0
    const add = (line: Line) => {
      const text = serialize([line])
      added.push(text)
      return Buffer.byteLength(text)
    }
    for (const [key, page] of this.used) live += pages.has(key) ? pageBytes.get(key)! : add(['page', key, page])
    for (const [path, [fingerprint, key]] of this.seen) {
      const before = files.get(path)
      live += before?.[0] === fingerprint && before[1] === key ? fileBytes.get(path)! : add(['file', path, fingerprint, key])
    }
    const unused = bytes + added.reduce((sum, text) => sum + Buffer.byteLength(text), 0) - live
    const compact = damaged || unused > live / 4
    if (!compact && !added.length) return
    await mkdir(dirname(this.file), { recursive: true })
    if (!compact) return appendFile(this.file, added.join(''))
    const all: Line[] = [...[...this.used].map(([key, page]): Line => ['page', key, page]), ...[...this.seen].map(([path, [fingerprint, key]]): Line => ['file', path, fingerprint, key])]
    await replaceFile(this.file, serialize(all))
  }

  private key(path: string, bytes: Uint8Array): string {
    return sha256(`${path}\0${sha256(bytes)}`)
  }

  /** Keeps `page` for the next run, and the file's fingerprint when there is one to trust (else the next run reads the file). */
  private use(path: string, key: string, page: CollectedPage, fingerprint: string | undefined): void {
    this.used.set(key, page)
    this.keys.set(path, key)
    if (fingerprint) this.seen.set(path, [fingerprint, key])
  }
}

const settled = (read: ReadFile): string | undefined => (read.fingerprint?.settled ? read.fingerprint.id : undefined)

const NEWLINE = 0x0a

const serialize = (lines: Line[]) => lines.map((line) => `${JSON.stringify(line)}\n`).join('')

/**
 * The journal's contents; a missing file is an empty cache, and a damaged line is skipped (the next save rewrites the file).
 * Decoded line by line from the bytes: lines in ASCII (most pages) become one-byte strings, which decode and parse
 * faster than the one two-byte string the whole file becomes when any page holds a non-ASCII character.
 */
function readJournal(raw: Buffer): Journal {
  const journal: Journal = { pages: new Map(), files: new Map(), pageBytes: new Map(), fileBytes: new Map(), bytes: raw.length, damaged: false }
  for (let start = 0; start < raw.length; ) {
    const newline = raw.indexOf(NEWLINE, start)
    const end = newline === -1 ? raw.length : newline
    // Each line's bytes with its newline, as serialize writes it.
    const size = end + 1 - start
    const text = raw.toString('utf8', start, end)
    start = end + 1
    if (!text) continue
    let line: Line
    try {
      line = JSON.parse(text) as Line
    } catch {
      journal.damaged = true
      continue
    }
    if (line[0] === 'page') {
      journal.pages.set(line[1], line[2])
      journal.pageBytes.set(line[1], size)
    } else if (line[0] === 'file') {
      journal.files.set(line[1], [line[2], line[3]])
      journal.fileBytes.set(line[1], size)
    } else journal.damaged = true
  }
  if (raw.length && raw[raw.length - 1] !== NEWLINE) journal.damaged = true
  return journal
}
