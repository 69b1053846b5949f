/**
 * Removes a folder of index parts (an index just replaced): listed once and
 * unlinked file by file, synchronously. fs.rm's recursive removal stats every
 * entry through the promise API first: ~30 ms of CPU for astro's 325 parts,
 * a quarter of a re-index's write step. Whatever this cannot remove (an
 * entry that changed meanwhile, a permission) is left to fs.rm.
 */
import { readdirSync, rmdirSync, unlinkSync } from 'node:fs'
import { rm } from 'node:fs/promises'
import { join } from 'node:path'

export async function removeFolder(dir: string): Promise<void> {
  try {
    const folders = [dir]
    for (const entry of readdirSync(dir, { recursive: true, withFileTypes: true })) {
      const path = join(entry.parentPath, entry.name)
      // A link to a folder is a link: removed, never followed.
      if (entry.isDirectory()) folders.push(path)
      else unlinkSync(path)
    }
    // Deepest first: a folder is empty once the folders below it are gone.
    for (const folder of folders.sort((a, b) => b.length - a.length)) rmdirSync(folder)
  } catch {
    await rm(dir, { recursive: true, force: true })
  }
}
