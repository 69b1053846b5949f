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
 * gone ones (`sharedWith` says so, for a warning). That holds only while the
 * other index is still there: once its folder holds no index (the owner
 * deleted it, or moved --out), nothing else writes here, and its record is
 * taken over as this index's own, so the copies only it made are removed.
 */
import { closeSync, constants, ftruncateSync, mkdirSync, openSync, writevSync } from 'node:fs'
import { readFile, rmdir, unlink } from 'node:fs/promises'
import { dirname, join, resolve, sep } from 'node:path'
import { MANIFEST_FILE } from '../core/index/format.ts'
import { fileStamp, isInside } from './read-source.ts'
import { cacheFile, replaceFile } from './cache-file.ts'
import { sha256 } from './sha256.ts'
import { isFile } from './stat.ts'

/** A file's bytes: text (written as UTF-8), or bytes, whole or in pieces written in turn (llms-full.txt, from its pages' stored copies). */
export type FileContent = string | Uint8Array | readonly Uint8Array[]

/** Per file: its digest ('' for one made from a named source), its stamp as written, and that source (write's `source`). */
type Remembered = Record<string, [digest: string, stamp: string, source?: string]>

interface StoredRecord {
  scope: string
  files: Remembered
}

export class WrittenFiles {
  private readonly kept: Remembered = {}
  /** Folders made (or found) this run. */
  private readonly dirs = new Set<string>()
  /** The folder with a separator after it: what the path of each file inside begins with. */
  private readonly prefix: string
  /** Files written this run (the others were already on disk as they should be). */
  written = 0

  private constructor(
    private readonly dir: string,
    private readonly record: { file: string; scope: string } | undefined,
    private readonly before: Remembered,
    /** The other index whose files the last run here wrote, when it was not this one. */
    readonly sharedWith: string | undefined,
  ) {
    this.prefix = dir.endsWith(sep) ? dir : dir + sep
  }

  /**
   * The files written into `dir` for the index `record.scope`, remembered under
   * `record.cacheDir` (without a record, every file is written); `record.kind`
   * keeps another writer's record of the same folder apart (the widget's).
   */
  static async open(dir: string, record: { cacheDir: string; scope: string; kind?: string } | undefined): Promise<WrittenFiles> {
    const root = resolve(dir)
    const file = record ? cacheFile(record.cacheDir, record.kind ?? 'written', root, '.json') : undefined
    const raw = file ? await readFile(file, 'utf8').catch(() => null) : null
    let stored: Partial<StoredRecord> = {}
    try {
      if (raw) stored = JSON.parse(raw) as Partial<StoredRecord>
    } catch {
      // A damaged record only means every file is written again.
    }
    // A record without a scope (an older format, or damaged) is no record.
    const before = typeof stored.scope === 'string' && stored.files && typeof stored.files === 'object' ? stored.files : {}
    const other = record && typeof stored.scope === 'string' && stored.scope !== record.scope ? stored.scope : undefined
    const sharedWith = other !== undefined && (await isFile(join(other, MANIFEST_FILE))) ? other : undefined
    return new WrittenFiles(root, file && record ? { file, scope: record.scope } : undefined, before, sharedWith)
  }

  /**
   * Writes `content` to `file` (inside the folder) unless it is on disk already,
   * as written by an earlier run. `source` names what the content is made from,
   * when the caller knows (a page's id: same id, same content): a file is then
   * kept when an earlier run made it from the same source, and otherwise
   * written without comparing digests (writing llms-full.txt's 2.6 MB on
   * astro costs less CPU than hashing them). A file kept costs one stat, and
   * synchronous calls: a re-index keeps hundreds of page copies, and the
   * few files it writes cost less CPU written at once than through the
   * thread pool.
   */
  write(file: string, content: FileContent, source?: string): void {
    const rel = this.inside(file)
    const earlier = Object.hasOwn(this.before, rel) ? this.before[rel] : undefined
    if (source !== undefined) {
      if (earlier?.[2] === source && fileStamp(file) === earlier[1]) this.kept[rel] = earlier
      else this.put(file, rel, content, (stamp) => ['', stamp, source])
      return
    }
    // Pieces come with a source where it matters (llms-full.txt from page ids): joined only on this rarer way.
    const digest = sha256(typeof content === 'string' || content instanceof Uint8Array ? content : Buffer.concat(content))
    if (earlier?.[0] === digest && fileStamp(file) === earlier[1]) this.kept[rel] = [digest, earlier[1]]
    else this.put(file, rel, content, (stamp) => [digest, stamp])
  }

  private put(file: string, rel: string, content: FileContent, entry: (stamp: string) => Remembered[string]): void {
    const folder = dirname(file)
    if (!this.dirs.has(folder)) {
      mkdirSync(folder, { recursive: true })
      this.dirs.add(folder)
    }
    writeContent(file, content)
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
    const file = fileBelow(this.dir, rel)
    if (file === undefined || fileStamp(file) !== stamp) return
    await unlink(file)
    // Folders emptied by it go too; the first one still holding anything stops the climb.
    for (let folder = dirname(file); folder.startsWith(this.dir + sep); folder = dirname(folder)) {
      if (!(await rmdir(folder).then(() => true, () => false))) break
    }
  }

  /** The record's name of `file`: its path below the folder, '/'-separated. */
  private inside(file: string): string {
    // A path fileBelow joined needs no resolving back (see there).
    const below = file.startsWith(this.prefix) ? file.slice(this.prefix.length) : undefined
    if (sep === '/' && below !== undefined && !ODD_SEGMENT.test(below)) return below
    const path = resolve(file)
    if (!isInside(this.dir, path) || path === this.dir) throw new Error(`${file} is outside ${this.dir}`)
    const rel = path.slice(this.prefix.length)
    return sep === '/' ? rel : rel.split(sep).join('/')
  }
}

/** An empty, '.' or '..' segment of a '/'-separated path (a leading, doubled or trailing '/' makes an empty one). */
const ODD_SEGMENT = /(?:^|\/)(?:\.\.?)?(?:\/|$)/

/**
 * The file at `rel` ('/'-separated) below the folder `dir` (a resolved path),
 * named as path.resolve names it; undefined when that is not below the folder.
 * A plain `rel` (no empty, '.' or '..' segment) is joined as it is: resolve
 * costs ~10 µs a call before V8 has optimised it, and a run places hundreds of files.
 */
export function fileBelow(dir: string, rel: string): string | undefined {
  if (sep === '/' && !ODD_SEGMENT.test(rel)) return dir.endsWith(sep) ? dir + rel : dir + sep + rel
  const file = resolve(dir, rel)
  return isInside(dir, file) && file !== dir ? file : undefined
}

/**
 * Writes `content` over `file`, pieces in one call (writev), never joined
 * into one buffer first. Over the old bytes, cut to the new length after,
 * rather than emptied first: the file's pages are reused instead of freed and
 * allocated again (a quarter of the CPU, for astro's 2.6 MB llms-full.txt).
 */
function writeContent(file: string, content: FileContent): void {
  const parts = typeof content === 'string' ? [Buffer.from(content)] : content instanceof Uint8Array ? [content] : content
  const size = parts.reduce((sum, part) => sum + part.length, 0)
  const fd = openSync(file, constants.O_WRONLY | constants.O_CREAT)
  try {
    const written = writevSync(fd, parts as Uint8Array[])
    if (written !== size) throw new Error(`${file}: wrote ${written} of ${size} bytes`)
    ftruncateSync(fd, size)
  } finally {
    closeSync(fd)
  }
}
