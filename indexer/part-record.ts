/**
 * What the last run stored in an index folder, kept in the cache between
 * runs: per part file, the content it holds and the file as it was left
 * (its stamp: device, inode, size, mtime and ctime to the nanosecond). A
 * re-index leaves a part whose content has not changed where it is, without
 * reading it back, as long as that file is still the one recorded; any
 * other part is compared byte for byte (write.ts), so a record that is
 * missing, damaged or stale only costs time. The ctime is what tells a part
 * rewritten in place with its size and mtime kept (rsync --inplace -t, a
 * precompress step) from the part as stored.
 */
import { readFile } from 'node:fs/promises'
import { fileStamp } from './read-source.ts'
import { cacheFile, replaceFile } from './cache-file.ts'

/** Bumped when what a content key or an entry means changes. */
const FORMAT = 2

type Entry = [content: string, size: number, stamp: string]

export class PartRecord {
  /** The new index's parts: their content, stored size, and stamp when known (a part left in place keeps the recorded one). */
  private readonly kept = new Map<string, [content: string, size: number, stamp?: string]>()

  private constructor(
    private readonly file: string,
    private readonly out: string,
    private readonly previous: Record<string, Entry>,
    /** The record as read, so a run that changed nothing does not write it again. */
    private readonly raw: string | null,
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
    return new PartRecord(file, out, previous, raw)
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

  /**
   * Records part `name` of the new index as part `previous` of the old one,
   * which unchanged() confirmed: the same file left where it was (its stamp
   * holds), or a link to it under another name (stamped at save: a link
   * changes its ctime).
   */
  carry(name: string, previous: string): void {
    const [content, size, stamp] = this.previous[previous]!
    this.kept.set(name, name === previous ? [content, size, stamp] : [content, size])
  }

  /** Records part `name` of the new index, holding `content` in `size` stored bytes (written or linked this run: stamped at save). */
  keep(name: string, content: string, size: number): void {
    this.kept.set(name, [content, size])
  }

  /**
   * Writes what the run kept, once the new index is in place, each part it
   * wrote or linked stamped where it now lies. Atomically: a crash leaves the
   * previous record. Not at all when nothing changed.
   */
  async save(): Promise<void> {
    const entries: Record<string, Entry> = {}
    for (const [name, [content, size, known]] of this.kept) {
      const stamp = known ?? fileStamp(`${this.out}/${name}`)
      if (stamp) entries[name] = [content, size, stamp]
    }
    const json = JSON.stringify(entries)
    if (json !== this.raw) await replaceFile(this.file, json)
  }
}
