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
 * The file is a journal, one record per page or file, a later record
 * replacing an earlier one: a run that changed one page appends two records
 * instead of writing megabytes again. A record is a JSON line; a page's is
 * followed by its bodies (each chunk's text, then its Markdown copy) as raw
 * UTF-8, whose byte lengths the line lists, then the page's key, the
 * CRC-32 of the line and the bodies (8 hex digits) and a newline: a length
 * that lands elsewhere (two runs appending to one journal at once, a cut
 * append) finds no key there, and bytes changed in place (the framing
 * intact) fail the check, where they would have gone into the index (a
 * text shard made again, llms-full.txt) as the page's text. The bodies are
 * most of the file (5 of astro's 7 MB): as raw UTF-8 they are decoded only
 * when read (stored-text.ts), where as JSON strings they were all parsed,
 * which cost most of reading the file. Lines no run uses any more (pages since
 * changed or deleted, fingerprints since replaced) are dropped by rewriting
 * the file once their bytes outweigh a quarter of the live lines', or
 * when its last append was cut short. Weighed by size, not counted: a run over
 * a fresh checkout replaces every file's fingerprint (a short line each) and
 * appends them, where counting lines would rewrite every page (megabytes).
 *
 * The journal also keeps the docs folder's listing (folder-listing.ts): the
 * files the last walk found and the stamps of the folders it read, so a run
 * whose folders are unchanged does not walk them again.
 */
import { appendFile, mkdir, readFile } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import { crc32 } from 'node:zlib'
import type { ChunkRecord } from '../core/index/format.ts'
import { hasLoneSurrogate } from '../core/text/lone-surrogate.ts'
import type { CollectedPage, CollectOptions } from './collect.ts'
import type { FolderListing } from './folder-listing.ts'
import type { SourceFingerprint } from './read-source.ts'
import { cacheFile, pruneCache, replaceFile } from './cache-file.ts'
import { sha256 } from './sha256.ts'
import { decodedWhenRead, heldBytes, utf8Of } from './stored-text.ts'

/** Bumped when the page pipeline's output or this file's layout changes without a docpilot version change. */
const FORMAT = 22

/** A journal record: a page by its key, a file's fingerprint and the key of its page, or the docs folder's listing (folder-listing.ts) by what was walked. */
type Line =
  | ['page', key: string, page: CollectedPage]
  | ['file', path: string, fingerprint: string, key: string]
  | ['listing', walk: string, folders: FolderListing['folders'], files: string[]]

/**
 * A page record's JSON line: the page with each body replaced by its number,
 * and the bodies' byte lengths. When its chunks share their path, URL and
 * title (as toChunks makes them), those are written once (`shared`) and each
 * chunk as a PackedChunk, its text the body of the same number: a third of
 * the line's bytes, for fewer to parse and fewer strings.
 */
type PageHead = ['page', key: string, page: CollectedPage, bodyBytes: number[], shared?: Shared]

/** What all of a page's chunks share: path, URL, title. */
type Shared = [path: string, url: string, title: string]

/** A chunk but for what it shares with its page's and its text: its anchor, trail, and id unless that is path#anchor. */
type PackedChunk = [anchor: string, trail: string[], id?: string]

/** A chunk's fields, in the order toChunks writes them. */
const CHUNK_FIELDS = 'id,path,url,anchor,title,trail,text'

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
  /** The last listing, by what was walked, and the bytes of its line. */
  listing?: { walk: string; listing: FolderListing; bytes: number }
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
  private listed?: { walk: string; listing: FolderListing }
  /** What each page id starts with: this cache file's name. */
  private readonly idPrefix: string

  private constructor(
    private readonly file: string,
    private readonly stored: Journal,
  ) {
    this.idPrefix = `${basename(file)}:`
  }

  /** The cache for these options; `scope` names the index it serves (its output folder). */
  static async open(cacheDir: string, opts: Omit<CollectOptions, 'root' | 'include' | 'exclude' | 'cache'>, version: string, scope: string): Promise<PageCache> {
    const shape = JSON.stringify([FORMAT, version, scope, opts.mode, opts.contentSelector ?? '', opts.slugger, opts.urls, opts.chunks, opts.limits ?? {}])
    // One folder per index: a journal of other settings there is dead (a format bump or a settings change), another index's is not.
    const file = cacheFile(cacheDir, join('pages', sha256(scope).slice(0, 16)), shape, '.jsonl')
    const [bytes] = await Promise.all([readFile(file).catch(() => Buffer.alloc(0)), pruneJournals(file).catch(() => {})])
    return new PageCache(file, readJournal(bytes))
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

  /** The docs folder's listing an earlier run kept for the same walk (the folder and the patterns). */
  listing(walk: string): FolderListing | undefined {
    const kept = this.stored.listing
    return kept?.walk === walk ? kept.listing : undefined
  }

  /** Keeps the listing this run used (the one `listing` gave, or its own walk's) for the next run. */
  keepListing(walk: string, listing: FolderListing): void {
    this.listed = { walk, listing }
  }

  /**
   * What names the page this run used for `path` across runs (undefined for a
   * page it did not keep): this cache file, named by everything a page depends
   * on but its bytes, and the page's key there. Same id, same page.
   */
  pageId(path: string): string | undefined {
    const key = this.keys.get(path)
    return key === undefined ? undefined : this.idPrefix + key
  }

  /**
   * Appends what this run added to the journal, or rewrites it with only what
   * this run used when the unused lines have piled up (atomically: a crash
   * leaves the previous file). A run that changed nothing writes nothing.
   */
  async save(): Promise<void> {
    const { pages, files, pageBytes, fileBytes, bytes, damaged, listing } = this.stored
    const added: Buffer[] = []
    let live = 0
    const add = (line: Line) => {
      const record = serialize(line)
      added.push(record)
      return record.length
    }
    for (const [key, page] of this.used) live += pages.has(key) ? pageBytes.get(key)! : add(['page', key, page])
    for (const [path, [fingerprint, key]] of this.seen) {
      const before = files.get(path)
      live += before?.[0] === fingerprint && before[1] === key ? fileBytes.get(path)! : add(['file', path, fingerprint, key])
    }
    const listed = this.listed
    if (listed) live += listing?.listing === listed.listing ? listing.bytes : add(listingLine(listed))
    const unused = bytes + added.reduce((sum, record) => sum + record.length, 0) - live
    const compact = damaged || unused > live / 4
    if (!compact && !added.length) return
    await mkdir(dirname(this.file), { recursive: true })
    if (!compact) return appendFile(this.file, Buffer.concat(added))
    const all: Line[] = [
      ...[...this.used].map(([key, page]): Line => ['page', key, page]),
      ...[...this.seen].map(([path, [fingerprint, key]]): Line => ['file', path, fingerprint, key]),
      ...(listed ? [listingLine(listed)] : []),
    ]
    await replaceFile(this.file, Buffer.concat(all.map(serialize)))
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

const JOURNAL_FILE = /^([0-9a-f]{16}\.jsonl)(?:\.\d+\.tmp)?$/

/** Removes the journals beside `file` (its index's, of other settings), and their unfinished rewrites. */
const pruneJournals = (file: string) =>
  pruneCache(dirname(file), basename(file), { entryOf: (name) => JOURNAL_FILE.exec(name)?.[1], keep: 1, usedFile: (name) => name })

const listingLine = ({ walk, listing }: { walk: string; listing: FolderListing }): Line => ['listing', walk, listing.folders, listing.files]

const settled = (read: ReadFile): string | undefined => (read.fingerprint?.settled ? read.fingerprint.id : undefined)

const NEWLINE = 0x0a

/** A page record's checksum as it is written after its key: the CRC-32 as 8 hex digits. */
const checksumText = (crc: number): string => crc.toString(16).padStart(8, '0')
const CHECKSUM_CHARS = 8

/** A record's bytes: a file's JSON line; a page's JSON line, its bodies, its key, their checksum and a newline (the whole page in its line when a body holds a lone surrogate). */
function serialize(line: Line): Buffer {
  if (line[0] !== 'page') return Buffer.from(`${JSON.stringify(line)}\n`)
  const [, key, page] = line
  const bodies: Array<[object: object, field: string]> = [...page.chunks.map((chunk): [object, string] => [chunk, 'text']), ...(page.entry ? [[page.entry, 'markdown'] as [object, string]] : [])]
  // A body still held as the bytes it was read from is UTF-8, which holds no lone surrogate: looking would decode it.
  if (bodies.some(([object, field]) => !heldBytes(object, field) && hasLoneSurrogate((object as Record<string, string>)[field]!))) return Buffer.from(`${JSON.stringify(line)}\n`)
  const shared = sharedOf(page.chunks)
  // Otherwise each body's place holds its number (keeping the fields' order, which the written parts follow).
  const chunks = shared ? page.chunks.map(packed) : page.chunks.map((chunk, i) => ({ ...chunk, text: i }))
  const head = { ...page, chunks, ...(page.entry ? { entry: withField(page.entry, 'markdown', chunks.length) } : {}) }
  const encoded = bodies.map(([object, field]) => utf8Of(object as Record<string, string>, field))
  const lengths = encoded.map((body) => body.length)
  const headLine = Buffer.from(`${JSON.stringify(['page', key, head, lengths, ...(shared ? [shared] : [])])}\n`)
  const sum = encoded.reduce((crc, body) => crc32(body, crc), crc32(headLine))
  return Buffer.concat([headLine, ...encoded, Buffer.from(`${key}${checksumText(sum)}\n`)])
}

/** `object` with `field` (in its place) holding `value`, the field's own value never read (a held body stays undecoded). */
const withField = <T extends object>(object: T, field: keyof T, value: unknown): Record<string, unknown> =>
  Object.fromEntries(Object.keys(object).map((name) => [name, name === field ? value : object[name as keyof T]]))

/** The path, URL and title every chunk of the page has, when each has those fields and no others. */
function sharedOf(chunks: readonly ChunkRecord[]): Shared | undefined {
  const [first] = chunks
  if (!first) return undefined
  const same = chunks.every((c) => c.path === first.path && c.url === first.url && c.title === first.title && Object.keys(c).join() === CHUNK_FIELDS)
  return same ? [first.path, first.url, first.title] : undefined
}

const packed = (chunk: ChunkRecord): PackedChunk =>
  chunk.id === `${chunk.path}#${chunk.anchor}` ? [chunk.anchor, chunk.trail] : [chunk.anchor, chunk.trail, chunk.id]

const isPacked = (chunk: unknown): chunk is PackedChunk =>
  Array.isArray(chunk) && typeof chunk[0] === 'string' && Array.isArray(chunk[1]) && (chunk.length === 2 || (chunk.length === 3 && typeof chunk[2] === 'string'))

/**
 * The journal's contents; a missing file is an empty cache. A damaged record
 * ends the reading (the records after it cannot be told apart from its
 * bodies), and the next save rewrites the file. Decoded line by line from the
 * bytes: lines in ASCII (most pages) become one-byte strings, which decode and
 * parse faster than the one two-byte string the whole file becomes when any
 * page holds a non-ASCII character.
 */
function readJournal(raw: Buffer): Journal {
  const journal: Journal = { pages: new Map(), files: new Map(), pageBytes: new Map(), fileBytes: new Map(), bytes: raw.length, damaged: false }
  for (let start = 0; start < raw.length; ) {
    const newline = raw.indexOf(NEWLINE, start)
    const end = newline === -1 ? raw.length : newline
    const text = raw.toString('utf8', start, end)
    let next = end + 1
    // serialize writes no empty line: one is damage (a body shorter than its length says, say).
    const record = parseRecord(text)
    if (!record) {
      journal.damaged = true
      break
    }
    if (record[0] === 'page') {
      const [, key, page, lengths] = record
      if (lengths) {
        const bodiesEnd = next + lengths.reduce((sum, n) => sum + n, 0)
        const keyEnd = bodiesEnd + key.length
        const recordEnd = keyEnd + CHECKSUM_CHARS
        // The bodies are followed by the page's key, the record's checksum and a newline: a wrong length (or another
        // record's bytes in the middle of this one's), or bytes changed in place, are caught here, never read as a page.
        if (
          recordEnd >= raw.length ||
          raw[recordEnd] !== NEWLINE ||
          raw.toString('latin1', bodiesEnd, keyEnd) !== key ||
          raw.toString('latin1', keyEnd, recordEnd) !== checksumText(crc32(raw.subarray(start, bodiesEnd)))
        ) {
          journal.damaged = true
          break
        }
        attachBodies(page, raw, next, lengths, record[4])
        next = recordEnd + 1
      }
      journal.pages.set(key, page)
      // The record's bytes with its newlines, as serialize writes it.
      journal.pageBytes.set(key, next - start)
    } else if (record[0] === 'file') {
      journal.files.set(record[1], [record[2], record[3]])
      journal.fileBytes.set(record[1], next - start)
    } else journal.listing = { walk: record[1], listing: { folders: record[2], files: record[3] }, bytes: next - start }
    start = next
  }
  if (raw.length && raw[raw.length - 1] !== NEWLINE) journal.damaged = true
  return journal
}

type JournalRecord = Line | PageHead

/** A journal line as a record, or undefined when it is not one (damaged). */
function parseRecord(text: string): JournalRecord | undefined {
  let line: unknown
  try {
    line = JSON.parse(text)
  } catch {
    return undefined
  }
  if (!Array.isArray(line)) return undefined
  if (line[0] === 'file' && line.length === 4 && line.every((field) => typeof field === 'string')) return line as Line
  if (line[0] === 'listing') return isListing(line) ? (line as Line) : undefined
  if (line[0] !== 'page' || typeof line[1] !== 'string' || !Array.isArray(line[2]?.chunks)) return undefined
  const [, , page, lengths, shared] = line as PageHead
  if (lengths === undefined) return line.length === 3 ? (line as Line) : undefined
  if (shared !== undefined && !(Array.isArray(shared) && shared.length === 3 && shared.every((field) => typeof field === 'string'))) return undefined
  const bodies = page.chunks.length + (page.entry ? 1 : 0)
  const inPlace = page.chunks.every((chunk, i) => (shared ? isPacked(chunk) : (chunk.text as unknown) === i))
  const numbered = inPlace && (!page.entry || (page.entry.markdown as unknown) === page.chunks.length)
  return line.length === (shared ? 5 : 4) && Array.isArray(lengths) && lengths.length === bodies && lengths.every((n) => Number.isSafeInteger(n) && n >= 0) && numbered
    ? (line as PageHead)
    : undefined
}

const isString = (value: unknown): value is string => typeof value === 'string'

function isListing(line: unknown[]): boolean {
  const [, walk, folders, files] = line
  return (
    line.length === 4 &&
    isString(walk) &&
    Array.isArray(folders) &&
    folders.every((folder) => Array.isArray(folder) && folder.length === 2 && folder.every(isString)) &&
    Array.isArray(files) &&
    files.every(isString)
  )
}

/**
 * Puts each body in the place that holds its number, decoded only when read
 * (stored-text.ts): a re-index reads the texts of few unchanged chunks (those
 * sharing a texts shard with a changed one), and writes an unchanged page's
 * copy, if at all, as the bytes it was stored as. A page whose chunks are
 * not packed (a rare shape) has its texts decoded here.
 */
function attachBodies(page: CollectedPage, raw: Buffer, from: number, lengths: number[], shared: Shared | undefined): void {
  let at = from
  if (shared) {
    const [path, url, title] = shared
    const rows = page.chunks as unknown as PackedChunk[]
    page.chunks = rows.map(([anchor, trail, id], i) => decodedWhenRead({ id: id ?? `${path}#${anchor}`, path, url, anchor, title, trail }, 'text', raw, at, (at += lengths[i]!)))
  } else for (const [i, chunk] of page.chunks.entries()) chunk.text = raw.toString('utf8', at, (at += lengths[i]!))
  if (page.entry) decodedWhenRead(page.entry, 'markdown', raw, at, at + lengths[page.chunks.length]!)
}
