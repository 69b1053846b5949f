/**
 * What the last run stored in an index folder, kept in the cache between
 * runs: per part file, the content it holds and the file as it was left
 * (size, modification time, inode). A re-index links a part whose content
 * has not changed without reading the previous copy back, as long as that
 * file is still the one recorded; any other part is compared byte for byte
 * (write.ts), so a record that is missing, damaged or stale only costs time.
 */
import { createHash } from 'node:crypto'
import { statSync } from 'node:fs'
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'

/** Bumped when what a content key means changes. */
const FORMAT = 1

type Entry = [content: string, size: number, mtimeMs: number, ino: number]

export class PartRecord {
  private readonly kept: Record<string, Entry> = {}

  private constructor(
    private readonly file: string,
    private readonly previous: Record<string, Entry>,
  ) {}

  /** The record of the index at `out` (an absolute path). */
  static async open(cacheDir: string, out: string): Promise<PartRecord> {
    const file = join(cacheDir, 'parts', `${createHash('sha256').update(JSON.stringify([FORMAT, out])).digest('hex').slice(0, 16)}.json`)
    let previous: Record<string, Entry> = {}
    const raw = await readFile(file, 'utf8').catch(() => null)
    if (raw) {
      try {
        previous = JSON.parse(raw) as Record<string, Entry>
      } catch {
        // A damaged record only means comparing every part.
      }
    }
    return new PartRecord(file, previous)
  }

  /**
   * The stored size of part `name` of the previous index, at `path`, when the
   * record says it holds `content` and the file is still the one recorded;
   * undefined otherwise.
   */
  unchanged(name: string, path: string, content: string): number | undefined {
    const entry = this.previous[name]
    if (!Array.isArray(entry) || entry[0] !== content) return undefined
    const file = statSync(path, { throwIfNoEntry: false })
    return file && file.size === entry[1] && file.mtimeMs === entry[2] && file.ino === entry[3] ? file.size : undefined
  }

  /** Records part `name` of the new index as a link to part `previous` of the old one, which unchanged() confirmed. */
  carry(name: string, previous: string): void {
    this.kept[name] = this.previous[previous]!
  }

  /** Records part `name` of the new index, its file at `path` as it is now. */
  keep(name: string, path: string, content: string): void {
    const file = statSync(path)
    this.kept[name] = [content, file.size, file.mtimeMs, file.ino]
  }

  /** Writes what keep() recorded, once the new index is in place (atomically: a crash leaves the previous record). */
  async save(): Promise<void> {
    await mkdir(dirname(this.file), { recursive: true })
    const tmp = `${this.file}.${process.pid}.tmp`
    await writeFile(tmp, JSON.stringify(this.kept))
    await rename(tmp, this.file)
  }
}
