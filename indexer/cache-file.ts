/**
 * The indexer's cache files (kept in the cache folder between runs): where
 * each one lives, and how it is replaced.
 */
import { mkdir, rename, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { sha256 } from './sha256.ts'

/** The `kind` cache's file for `key` (any text naming what it holds), named by a digest: short and safe on any file system. */
export function cacheFile(cacheDir: string, kind: string, key: string, ext: string): string {
  return join(cacheDir, kind, `${sha256(key).slice(0, 16)}${ext}`)
}

/**
 * `file` replaced whole or not at all: written beside it under this process's
 * own name, then renamed over it, so a killed run leaves the previous file
 * and two runs sharing a cache never mix their bytes.
 */
export async function replaceFile(file: string, data: string | Uint8Array): Promise<void> {
  await mkdir(dirname(file), { recursive: true })
  const tmp = `${file}.${process.pid}.tmp`
  await writeFile(tmp, data)
  await rename(tmp, file)
}
