/**
 * The files a walk of the docs folder found, kept between runs with the
 * stamp of every folder it read (read-source.ts: device, inode, size, change
 * times). A folder's entries cannot be added, removed or renamed without its
 * stamp changing, so while every stamp holds, a walk would find the same
 * files: a re-index takes them from the listing and does not walk (on astro
 * the walk and its matchers cost ~13 ms; the 24 stats, well under one).
 *
 * Kept only when nothing could change the walk's answer behind those stamps:
 * a walk that met a link (its target can change while every folder stays as
 * it is), could not read a folder, or read one that changed too close to the
 * walk for its stamp to be trusted (settledAt) is not kept, and the next run
 * walks again.
 */
import { readdirSync, realpathSync, type PathLike } from 'node:fs'
import type { FileSystemAdapter } from 'tinyglobby'
import { folderStamp } from './read-source.ts'

/** The files of a walk and the folders it read, each with its stamp then. */
export interface FolderListing {
  folders: Array<[path: string, stamp: string]>
  files: string[]
}

/** Whether every folder the listing's walk read still has the stamp it had: then a walk would find the same files. */
export function listingHolds(listing: FolderListing): boolean {
  return listing.folders.every(([path, stamp]) => folderStamp(path)?.id === stamp)
}

/**
 * The glob's `fs` that stamps each folder before reading it (a change during
 * the read shows as a changed stamp next run), and the listing of the walk
 * once done, when it can be kept.
 */
export function recordedWalk(fs: FileSystemAdapter): { fs: FileSystemAdapter; listing(files: string[]): FolderListing | undefined } {
  const folders: FolderListing['folders'] = []
  let trusted = true
  const readFolder = ((path: PathLike, options: unknown) => {
    const stamp = folderStamp(String(path))
    if (!stamp?.settled) trusted = false
    else folders.push([String(path), stamp.id])
    try {
      return (fs.readdirSync ?? readdirSync)(path, options as { withFileTypes: true })
    } catch (error) {
      trusted = false
      throw error
    }
  }) as FileSystemAdapter['readdirSync']
  // The synchronous walk resolves only links with realpathSync.
  const resolveLink = ((path: PathLike) => {
    trusted = false
    return ((fs.realpathSync ?? realpathSync) as (path: PathLike) => string)(path)
  }) as unknown as FileSystemAdapter['realpathSync']
  return {
    fs: { ...fs, readdirSync: readFolder, realpathSync: resolveLink },
    listing: (files) => (trusted ? { folders, files } : undefined),
  }
}
