/**
 * A file-system error a command did not expect, in words: `--out package.json`
 * met `mkdir` with "EEXIST: file already exists, mkdir '.../package.json'",
 * which names the call, not the mistake. Only errors that name their path and
 * say something about it are rephrased; the code stays at the end for a search.
 */
import { statSync } from 'node:fs'

const SAYS: Record<string, (path: string) => string> = {
  EEXIST: (path) => `${path} is a file, and a folder is needed there; choose another path`,
  EISDIR: (path) => `${path} is a folder, and a file is needed there; name a file`,
  ENOTDIR: (path) => `${path}: part of this path is a file, and a folder is needed there; choose another path`,
  EACCES: (path) => `no permission to write or read ${path}`,
  EPERM: (path) => `no permission to write or read ${path}`,
  EROFS: (path) => `${path} is on a read-only file system`,
  ENOSPC: (path) => `no space left on the device to write ${path}`,
}

export function fsErrorMessage(err: unknown): string | undefined {
  const { code, path } = (err ?? {}) as NodeJS.ErrnoException
  const says = code ? SAYS[code] : undefined
  if (!says || typeof path !== 'string') return undefined
  // EEXIST is also a plain mkdir meeting a folder (or a rename meeting a file): only a file in a folder's place is the slip.
  if (code === 'EEXIST' && !statSync(path, { throwIfNoEntry: false })?.isFile()) return undefined
  return `${says(path)} (${code})`
}
