/**
 * What the last run stored in an index folder, kept in the cache between
 * runs: per part file, the content it holds and the file as it was left
 * (its stamp: device, inode, size, mtime and ctime to the nanosecond). A
 * re-index links a part whose content has not changed without reading the
 * previous copy back, as long as that file is still the one recorded; any
 * other part is compared byte for byte (write.ts), so a record that is
 * missing, damaged or stale only costs time. The ctime is what tells a part
 * rewritten in place with its size and mtime kept (rsync --inplace -t, a
 * precompress step) from the part as stored.
 */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fileStamp } from './read-source.ts'
import { cacheFile, replaceFile } from './cache-file.ts'

/** Bumped when what a content key or an entry means changes. */
const FORMAT = 2

type Entry = [content: string, size: number, stamp: string]

export class PartRecord {
  /** The new index's parts: their content and stored size, stamped once they are in place (save). */
  private readonly kept = new Map<string, [content: string, size: number]>()

  private constructor(
    private readonly file: string,
    private readonly out: string,
    private readonly previous: Record<string, Entry>,
  ) {}

  /** The record of the index at `out` (an absolute path). */
  static async open(cacheDir: string, out: string): Promise<PartRecord> {
    const file = cacheFile(cacheDir, 'parts', JSON.stringify([FORMAT, out]), '.json')
    let previous: Record<string, Entry> = {}
    const raw = await readFile(file, 'utf8').catch(() => null)
    if (raw) {
      try {
        previous = JSON.parse(raw) as Record<string, Entry>
      } catch {
        // A damaged record only means comparing every part.
      }
    }
    return new PartRecord(file, out, previous)
  }

  /**
   * The stored size of part `name` of the previous index, at `path`, when the
   * record says it holds `content` and the file is still the one recorded;
   * undefined otherwise.
   */
  unchanged(name: string, path: string, content: string): number | undefined {
    const entry = Object.hasOwn(this.previous, name) ? this.previous[name] : undefined
    if (!Array.isArray(entry) || entry[0] !== content || fileStamp(path) !== entry[2]) return undefined
    return entry[1]
  }

  /** Records part `name` of the new index as a link to part `previous` of the old one, which unchanged() confirmed. */
  carry(name: string, previous: string): void {
    const [content, size] = this.previous[previous]!
    this.kept.set(name, [content, size])
  }

  /** Records part `name` of the new index, holding `content` in `size` stored bytes. */
  keep(name: string, content: string, size: number): void {
    this.kept.set(name, [content, size])
  }

  /**
   * Writes what the run kept, each part stamped where it now lies, once the new
   * index is in place: linking a part and removing the old index's name for it
   * both change its ctime. Atomically: a crash leaves the previous record.
   */
  async save(): Promise<void> {
    const entries: Record<string, Entry> = {}
    for (const [name, [content, size]] of this.kept) {
      const stamp = fileStamp(join(this.out, name))
      if (stamp) entries[name] = [content, size, stamp]
    }
    await replaceFile(this.file, JSON.stringify(entries))
  }
}
