/**
 * Which files of a docs folder the indexer may read, and reading them within
 * a size limit. Whatever it reads is published (text shards) and may be sent
 * to a hosted embedder, so a link is followed only to a regular file that
 * stays inside the docs folder: a symlink to /proc/self/environ, /etc/passwd,
 * a sibling folder, a device or a FIFO is never opened.
 */
import { closeSync, constants, fstatSync, openSync, readSync, realpathSync, statSync, type BigIntStats, type PathLike } from 'node:fs'
import { relative, resolve, sep } from 'node:path'
import type { FileSystemAdapter } from 'tinyglobby'

/** Whether `path` (already real) is `root` itself or below it. */
export function isInside(root: string, path: string): boolean {
  return path === root || path.startsWith(root.endsWith(sep) ? root : root + sep)
}

export type SourceRead = { ok: true; bytes: Uint8Array; fingerprint: SourceFingerprint } | { ok: false; reason: string }

/**
 * What the file system says about a file it read: which file (device and
 * inode), its size, and when its bytes and its inode last changed, to the
 * nanosecond. Another read finding the same `id` finds the same bytes, except
 * when the file changed again within the same clock tick as the read that
 * took it: such a fingerprint is not `settled` and must not be trusted later.
 * (mtime alone can be set back by tools that preserve it; ctime cannot.)
 */
export interface SourceFingerprint {
  id: string
  settled: boolean
}

/**
 * How long before a read a file's last change must lie for its fingerprint to
 * be trusted: well over a tick of the kernel clocks that stamp changes on
 * file systems that record fractions of a second (1 to 16 ms), and over the
 * granularity of those that record whole seconds (FAT: two). A stamp without
 * a fraction is taken to come from the latter.
 */
export const SETTLE_MS = { fine: 100, whole: 3000 } as const


/** Whether a file whose stamps are `info`, read at `readAtMs` (ms since 1970), can be trusted unchanged while its fingerprint holds. */
export function settledAt(info: Pick<BigIntStats, 'mtimeNs' | 'ctimeNs'>, readAtMs: number): boolean {
  const changed = info.mtimeNs > info.ctimeNs ? info.mtimeNs : info.ctimeNs
  const margin = info.mtimeNs % 1_000_000_000n || info.ctimeNs % 1_000_000_000n ? SETTLE_MS.fine : SETTLE_MS.whole
  return changed < BigInt(Math.floor(readAtMs - margin)) * 1_000_000n
}

/**
 * The fingerprint of `file` now (following links, as a read would), without
 * opening it; undefined when it is gone or not a regular file. Only compared
 * with the fingerprint of an earlier read that passed readSource's checks: the
 * same file, unchanged, holds the bytes those checks let through.
 */
export function sourceFingerprint(realRoot: string, file: string): string | undefined {
  // Joined, not resolved: `file` is a relative path the glob found below `realRoot`, and a run stats every
  // file of the folder, where resolving each path (a walk over its characters, cold) cost more than the stat.
  return fileStamp(`${realRoot}/${file}`)
}

/**
 * Which regular file is at `path` (following links) and when its bytes and its inode last changed: device, inode,
 * size, mtime and ctime to the nanosecond, as one string; undefined when it is gone, unreadable or not a regular file.
 * Equal stamps, untouched file: a tool that rewrites a file in place and sets its mtime back cannot set back its ctime.
 * Synchronous: callers stat every file of a run, and through the promise API a stat costs several times itself.
 */
export function fileStamp(path: string): string | undefined {
  let info
  try {
    info = statSync(path, { bigint: true })
  } catch {
    return undefined // gone, or a folder on its path is not one any more: whoever reads it says why
  }
  return info.isFile() ? fingerprintId(info) : undefined
}

/**
 * The stamp of the folder at `path` (following links), as fileStamp takes a file's: a folder's stamp changes
 * whenever an entry is added, removed or renamed in it. `settled` as a read's fingerprint: the folder last
 * changed well before now. Undefined when it is gone or not a folder.
 */
export function folderStamp(path: string): SourceFingerprint | undefined {
  const readAt = Date.now()
  let info
  try {
    info = statSync(path, { bigint: true })
  } catch {
    return undefined
  }
  return info.isDirectory() ? { id: fingerprintId(info), settled: settledAt(info, readAt) } : undefined
}

function fingerprintId(info: BigIntStats): string {
  return `${info.dev}:${info.ino}:${info.size}:${info.mtimeNs}:${info.ctimeNs}`
}

/**
 * Reads `file` (relative to `realRoot`, the docs folder with its own links
 * resolved) when it resolves to a regular file inside the folder and holds at
 * most `maxBytes`. The size is checked on the open file, and the read stops
 * after `maxBytes + 1`, so a file that grows or lies about its size (a /proc
 * file reports 0) still cannot be read past the limit.
 *
 * Synchronous on purpose: a docs page is read in microseconds, and each of
 * the six calls costs several times more through the promise API than the
 * read itself (astro, 420 pages: about 230 ms of CPU against 20).
 */
export function readSource(realRoot: string, file: string, maxBytes: number): SourceRead {
  let target: string
  try {
    target = realpathSync.native(resolve(realRoot, file))
  } catch (error) {
    return { ok: false, reason: `could not be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); skipped` }
  }
  if (!isInside(realRoot, target)) return { ok: false, reason: `is a link to ${target}, outside the docs folder; skipped (only files inside the folder are indexed)` }
  let fd: number
  try {
    // O_NONBLOCK: opening a FIFO must not wait for a writer; it is refused below as not a regular file.
    fd = openSync(target, constants.O_RDONLY | constants.O_NONBLOCK)
  } catch (error) {
    return { ok: false, reason: `could not be read (${(error as NodeJS.ErrnoException).code ?? (error as Error).message}); skipped` }
  }
  try {
    const readAt = Date.now()
    const info = fstatSync(fd, { bigint: true })
    if (!info.isFile()) return { ok: false, reason: 'is not a regular file (a device, FIFO or socket); skipped' }
    const reported = Number(info.size)
    if (reported > maxBytes) return { ok: false, reason: tooLarge(`is ${reported} bytes`, maxBytes) }
    // Sized by the file's own report (one byte more, to see it grow), doubled while it keeps giving bytes.
    let buffer = new Uint8Array(Math.min(maxBytes + 1, Math.max(reported + 1, 4096)))
    let size = 0
    for (;;) {
      const bytesRead = readSync(fd, buffer, size, buffer.length - size, null)
      if (bytesRead === 0) break
      size += bytesRead
      if (size < buffer.length) continue
      if (buffer.length > maxBytes) break
      const grown = new Uint8Array(Math.min(maxBytes + 1, buffer.length * 2))
      grown.set(buffer)
      buffer = grown
    }
    if (size > maxBytes) return { ok: false, reason: tooLarge(`holds more than ${maxBytes} bytes`, maxBytes) }
    // A file that grew or shrank while it was read changed after its fingerprint was taken.
    const settled = size === reported && settledAt(info, readAt)
    return { ok: true, bytes: buffer.subarray(0, size), fingerprint: { id: fingerprintId(info), settled } }
  } finally {
    closeSync(fd)
  }
}

function tooLarge(what: string, maxBytes: number): string {
  return `${what}, over the per-file limit docs.maxFileBytes = ${maxBytes}; skipped (raise docs.maxFileBytes to index it)`
}

/**
 * An `fs` for the glob that never walks out of the docs folder: a link whose
 * target lies outside resolves to an error (which the crawler skips), and its
 * path is reported, so a link to `/` cannot make the glob crawl the disk.
 */
export function fsInside(realRoot: string, onEscape: (link: string, target: string) => void): FileSystemAdapter {
  // The synchronous crawl (globSync) resolves links with realpathSync only; what it throws, it skips.
  const realpathInside = (path: PathLike): string => {
    const resolved = realpathSync(path)
    if (isInside(realRoot, resolved)) return resolved
    onEscape(relative(realRoot, String(path)).split(sep).join('/'), resolved)
    throw Object.assign(new Error(`${String(path)} leaves the docs folder`), { code: 'EOUTSIDE' })
  }
  return { realpathSync: realpathInside as unknown as FileSystemAdapter['realpathSync'] }
}
