/**
 * Parsed pages cached between index runs, so a re-index after one page
 * changes parses that page only. An entry is keyed by the file's path and the
 * digest of its bytes; the cache file is keyed by everything else a page
 * depends on (the collect options that shape chunks, and the docpilot
 * version), so a changed setting or a new docpilot starts a fresh file. Only
 * entries the run used are written back: deleted pages leave the cache.
 */
import { createHash } from 'node:crypto'
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import type { CollectedPage, CollectOptions } from './collect.ts'

/** Bumped when the page pipeline's output changes without a docpilot version change. */
const FORMAT = 1

const sha = (data: string | Uint8Array) => createHash('sha256').update(data).digest('hex')

export class PageCache {
  private readonly used = new Map<string, CollectedPage>()
  hits = 0

  private constructor(
    private readonly file: string,
    private readonly entries: Map<string, CollectedPage>,
  ) {}

  /** The cache for these options; `scope` names the index it serves (its output folder). */
  static async open(cacheDir: string, opts: Omit<CollectOptions, 'root' | 'include' | 'exclude' | 'cache'>, version: string, scope: string): Promise<PageCache> {
    const shape = JSON.stringify([FORMAT, version, scope, opts.mode, opts.contentSelector ?? '', opts.slugger, opts.urls, opts.chunks, opts.limits ?? {}])
    const file = join(cacheDir, 'pages', `${sha(shape).slice(0, 16)}.json`)
    const entries = new Map<string, CollectedPage>()
    const raw = await readFile(file, 'utf8').catch(() => null)
    if (raw) {
      try {
        for (const [k, v] of Object.entries(JSON.parse(raw) as Record<string, CollectedPage>)) entries.set(k, v)
      } catch {
        // A damaged cache is only a slower run: start empty.
      }
    }
    return new PageCache(file, entries)
  }

  private key(path: string, bytes: Uint8Array): string {
    return sha(`${path}\0${sha(bytes)}`)
  }

  get(path: string, bytes: Uint8Array): CollectedPage | undefined {
    const key = this.key(path, bytes)
    const page = this.entries.get(key)
    if (page) {
      this.hits++
      this.used.set(key, page)
    }
    return page
  }

  set(path: string, bytes: Uint8Array, page: CollectedPage): void {
    this.used.set(this.key(path, bytes), page)
  }

  /** Writes the entries this run used (atomically: a crash leaves the previous cache). */
  async save(): Promise<void> {
    await mkdir(dirname(this.file), { recursive: true })
    const tmp = `${this.file}.${process.pid}.tmp`
    await writeFile(tmp, JSON.stringify(Object.fromEntries(this.used)))
    await rename(tmp, this.file)
  }
}
