/**
 * Parsed pages cached between index runs, so a re-index after one page
 * changes parses that page only. An entry is keyed by the file's path and the
 * digest of its bytes; the cache file is keyed by everything else a page
 * depends on (the collect options that shape chunks, and the docpilot
 * version), so a changed setting or a new docpilot starts a fresh file. Only
 * entries the run used are written back: deleted pages leave the cache.
 *
 * Each file's fingerprint (read-source.ts: device, inode, size, change times)
 * is kept beside the digest of the bytes it had, so the next run finds an
 * unchanged file's page from one stat, without reading or hashing it. A file
 * whose fingerprint differs (touched, copied, checked out again) is read and
 * looked up by digest as before; only a settled fingerprint is kept, so a file
 * changed again within the clock tick it was read in is read next time.
 */
import { createHash } from 'node:crypto'
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import type { CollectedPage, CollectOptions } from './collect.ts'
import type { SourceFingerprint } from './read-source.ts'

/** Bumped when the page pipeline's output or this file's layout changes without a docpilot version change. */
const FORMAT = 2

const sha = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex')

/** What the cache file holds: pages by key, and each file's last settled fingerprint with its page's key. */
interface Stored {
  pages: Record<string, CollectedPage>
  files: Record<string, [fingerprint: string, key: string]>
}

/** A file as read this run (read-source.ts). */
export interface ReadFile {
  bytes: Uint8Array
  fingerprint?: SourceFingerprint
}

export class PageCache {
  private readonly used = new Map<string, CollectedPage>()
  private readonly seen = new Map<string, [string, string]>()
  private added = false

  private constructor(
    private readonly file: string,
    private readonly stored: Stored,
  ) {}

  /** The cache for these options; `scope` names the index it serves (its output folder). */
  static async open(cacheDir: string, opts: Omit<CollectOptions, 'root' | 'include' | 'exclude' | 'cache'>, version: string, scope: string): Promise<PageCache> {
    const shape = JSON.stringify([FORMAT, version, scope, opts.mode, opts.contentSelector ?? '', opts.slugger, opts.urls, opts.chunks, opts.limits ?? {}])
    const file = join(cacheDir, 'pages', `${sha(shape).slice(0, 16)}.json`)
    return new PageCache(file, parseStored(await readFile(file, 'utf8').catch(() => null)))
  }

  /**
   * The page of a file an earlier run read, when `fingerprint` (called only
   * for a file the cache has a fingerprint of) says it has not changed since.
   */
  async unchanged(path: string, fingerprint: () => Promise<string | undefined>): Promise<CollectedPage | undefined> {
    const known = this.stored.files[path]
    if (!known || (await fingerprint()) !== known[0]) return undefined
    const page = this.stored.pages[known[1]]
    if (page) this.use(path, known[1], page, known[0])
    return page
  }

  get(path: string, read: ReadFile): CollectedPage | undefined {
    const key = this.key(path, read.bytes)
    const page = Object.hasOwn(this.stored.pages, key) ? this.stored.pages[key] : undefined
    if (page) this.use(path, key, page, settled(read))
    return page
  }

  set(path: string, read: ReadFile, page: CollectedPage): void {
    this.added = true
    this.use(path, this.key(path, read.bytes), page, settled(read))
  }

  /**
   * Writes the entries this run used, unless they are exactly what the file
   * holds already (atomically: a crash leaves the previous cache).
   */
  async save(): Promise<void> {
    if (!this.changed()) return
    const stored: Stored = { pages: Object.fromEntries(this.used), files: Object.fromEntries(this.seen) }
    await mkdir(dirname(this.file), { recursive: true })
    const tmp = `${this.file}.${process.pid}.tmp`
    await writeFile(tmp, JSON.stringify(stored))
    await rename(tmp, this.file)
  }

  private changed(): boolean {
    const { pages, files } = this.stored
    if (this.added || this.used.size !== Object.keys(pages).length || this.seen.size !== Object.keys(files).length) return true
    for (const [path, [fingerprint, key]] of this.seen) {
      const before = files[path]
      if (before?.[0] !== fingerprint || before[1] !== key) return true
    }
    return false
  }

  private key(path: string, bytes: Uint8Array): string {
    return sha(`${path}\0${sha(bytes)}`)
  }

  /** Keeps `page` for the next run, and the file's fingerprint when there is one to trust (else the next run reads the file). */
  private use(path: string, key: string, page: CollectedPage, fingerprint: string | undefined): void {
    this.used.set(key, page)
    if (fingerprint) this.seen.set(path, [fingerprint, key])
  }
}

const settled = (read: ReadFile): string | undefined => (read.fingerprint?.settled ? read.fingerprint.id : undefined)

/** The cache file's contents; a missing, damaged or older file is only a slower run: start empty. */
function parseStored(raw: string | null): Stored {
  const empty: Stored = { pages: {}, files: {} }
  if (!raw) return empty
  try {
    const stored = JSON.parse(raw) as Partial<Stored>
    return stored && typeof stored.pages === 'object' && typeof stored.files === 'object' ? (stored as Stored) : empty
  } catch {
    return empty
  }
}
