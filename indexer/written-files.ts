/**
 * Files the indexer writes into a folder it does not own (the agent files in
 * the site's output folder), remembered between runs: a run rewrites only the
 * files whose bytes changed, and removes those no page produces any more.
 *
 * The record (kept in the cache folder, never in the site) holds each file's
 * digest and what the file system said of it just after it was written
 * (inode, size, change times). A file is left alone only when it is still
 * exactly that file and its new bytes have the same digest; a file that is
 * gone, was rewritten by anyone else or was copied back is written again. A
 * file this run no longer produces is removed only while it is still the file
 * an earlier run wrote, so nothing the owner put there or changed is touched.
 *
 * The record names the index it belongs to (its scope: the index folder).
 * Two indexes may share a site folder (docs/a with --out out-a, docs/b with
 * --out out-b, both with the default site folder): a run finding the other
 * index's record removes none of its files, which are that index's pages, not
 * gone ones (`sharedWith` says so, for a warning).
 */
import { mkdir, readFile, rmdir, unlink, writeFile } from 'node:fs/promises'
import { dirname, relative, resolve, sep } from 'node:path'
import { fileStamp } from './read-source.ts'
import { cacheFile, replaceFile } from './cache-file.ts'
import { sha256 } from './sha256.ts'

/** Per file: its digest ('' for one made from a named source), its stamp as written, and that source (write's `source`). */
type Remembered = Record<string, [digest: string, stamp: string, source?: string]>

interface StoredRecord {
  scope: string
  files: Remembered
}

export class WrittenFiles {
  private readonly kept: Remembered = {}
  private readonly dirs = new Map<string, Promise<unknown>>()
  /** Files written this run (the others were already on disk as they should be). */
  written = 0

  private constructor(
    private readonly dir: string,
    private readonly record: { file: string; scope: string } | undefined,
    private readonly before: Remembered,
    /** The other index whose files the last run here wrote, when it was not this one. */
    readonly sharedWith: string | undefined,
  ) {}

  /**
   * The files written into `dir` for the index `record.scope`, remembered under
   * `record.cacheDir` (without a record, every file is written).
   */
  static async open(dir: string, record: { cacheDir: string; scope: string } | undefined): Promise<WrittenFiles> {
    const root = resolve(dir)
    const file = record ? cacheFile(record.cacheDir, 'written', root, '.json') : undefined
    const raw = file ? await readFile(file, 'utf8').catch(() => null) : null
    let stored: Partial<StoredRecord> = {}
    try {
      if (raw) stored = JSON.parse(raw) as Partial<StoredRecord>
    } catch {
      // A damaged record only means every file is written again.
    }
    // A record without a scope (an older format, or damaged) is no record.
    const before = typeof stored.scope === 'string' && stored.files && typeof stored.files === 'object' ? stored.files : {}
    const sharedWith = record && typeof stored.scope === 'string' && stored.scope !== record.scope ? stored.scope : undefined
    return new WrittenFiles(root, file && record ? { file, scope: record.scope } : undefined, before, sharedWith)
  }

  /**
   * Writes `text` to `file` (inside the folder) unless it is on disk already,
   * as written by an earlier run. `source` names what the text is made from,
   * when the caller knows (a page's id: same id, same text): a file is then
   * kept when an earlier run made it from the same source, and otherwise
   * written without comparing digests (writing llms-full.txt's 2.6 MB on
   * astro costs less CPU than hashing them).
   */
  async write(file: string, text: string | Uint8Array, source?: string): Promise<void> {
    const rel = this.inside(file)
    const earlier = Object.hasOwn(this.before, rel) ? this.before[rel] : undefined
    if (source !== undefined) {
      if (earlier?.[2] === source && fileStamp(file) === earlier[1]) this.kept[rel] = earlier
      else await this.put(file, rel, text, (stamp) => ['', stamp, source])
      return
    }
    const digest = sha256(text)
    if (earlier?.[0] === digest && fileStamp(file) === earlier[1]) this.kept[rel] = [digest, earlier[1]]
    else await this.put(file, rel, text, (stamp) => [digest, stamp])
  }

  private async put(file: string, rel: string, text: string | Uint8Array, entry: (stamp: string) => Remembered[string]): Promise<void> {
    await this.parent(file)
    await writeFile(file, text)
    this.written++
    const stamp = fileStamp(file)
    if (stamp) this.kept[rel] = entry(stamp)
  }

  /**
   * Removes what earlier runs of this index wrote and this one did not (while
   * untouched), then remembers this run's files.
   */
  async finish(): Promise<void> {
    if (!this.sharedWith) {
      const gone = Object.entries(this.before).filter(([rel]) => !Object.hasOwn(this.kept, rel))
      await Promise.all(gone.map(([rel, [, stamp]]) => this.remove(rel, stamp)))
    }
    if (!this.record) return
    const { file, scope } = this.record
    await replaceFile(file, JSON.stringify({ scope, files: this.kept } satisfies StoredRecord))
  }

  private async remove(rel: string, stamp: string): Promise<void> {
    const file = resolve(this.dir, rel)
    if (!file.startsWith(this.dir + sep) || fileStamp(file) !== stamp) return
    await unlink(file)
    // Folders emptied by it go too; the first one still holding anything stops the climb.
    for (let folder = dirname(file); folder.startsWith(this.dir + sep); folder = dirname(folder)) {
      if (!(await rmdir(folder).then(() => true, () => false))) break
    }
  }

  private inside(file: string): string {
    const rel = relative(this.dir, resolve(file))
    if (!rel || rel.startsWith('..') || resolve(rel) === rel) throw new Error(`${file} is outside ${this.dir}`)
    return rel.split(sep).join('/')
  }

  private parent(file: string): Promise<unknown> {
    const folder = dirname(file)
    let made = this.dirs.get(folder)
    if (!made) this.dirs.set(folder, (made = mkdir(folder, { recursive: true })))
    return made
  }
}
