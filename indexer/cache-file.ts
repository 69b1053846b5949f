/**
 * The indexer's cache files (kept in the cache folder between runs): where
 * each one lives, and how it is replaced.
 */
import { mkdir, readdir, rename, stat, unlink, writeFile } from 'node:fs/promises'
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

const WRITER_PID = /\.(\d+)\.tmp$/

/** Who is writing `name`: nobody (not a replaceFile temp), a live process (this one or another), or a process that died mid-write. */
function writerOf(name: string): 'none' | 'alive' | 'dead' {
  const pid = Number(WRITER_PID.exec(name)?.[1])
  if (!pid) return 'none'
  if (pid === process.pid) return 'alive'
  try {
    process.kill(pid, 0)
    return 'alive'
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM' ? 'alive' : 'dead'
  }
}

/** How old a dead writer's temporary file must be to be removed though its entry is kept. */
const ABANDONED_AFTER_MS = 10 * 60_000

/** Which cache entries `pruneCache` keeps in a folder. */
export interface Pruning {
  /** The entry a file in the folder belongs to (undefined: not an entry's file, never removed). */
  entryOf: (name: string) => string | undefined
  /** Entries kept: the one in use and the `keep - 1` most recently used others. */
  keep: number
  /** The file of an entry whose modification time says when it was last used. */
  usedFile: (entry: string) => string
}

/**
 * Removes from `dir` the files of every entry but `inUse` and the most
 * recently used others, and every entry's write left unfinished by a run
 * that died long enough ago (a kept entry's too: no rename will ever land
 * it); nothing that is not an entry's, nor a live or recent run's unfinished
 * write.
 */
export async function pruneCache(dir: string, inUse: string, { entryOf, keep, usedFile }: Pruning): Promise<void> {
  const named = (await readdir(dir)).flatMap((name) => {
    const entry = entryOf(name)
    const writer = writerOf(name)
    return entry === undefined || writer === 'alive' ? [] : [{ name, entry, dead: writer === 'dead' }]
  })
  // A writer this process sees as dead may be alive in another PID namespace (two containers sharing a cache): its
  // temporary file is left alone until it is older than any write takes, and then it is abandoned.
  const now = Date.now()
  const aged = await Promise.all(named.map((f) => (f.dead ? stat(join(dir, f.name)).then((st) => now - st.mtimeMs > ABANDONED_AFTER_MS, () => false) : false)))
  const files = named.flatMap((f, i) => (!f.dead ? [{ ...f, abandoned: false }] : aged[i] ? [{ ...f, abandoned: true }] : []))
  const others = [...new Set(files.filter((f) => !f.abandoned).map((f) => f.entry))].filter((e) => e !== inUse)
  const used = await Promise.all(others.map((e) => stat(join(dir, usedFile(e))).then((st) => st.mtimeMs, () => 0)))
  const recent = others.map((entry, i) => ({ entry, used: used[i]! })).sort((a, b) => b.used - a.used)
  const kept = new Set([inUse, ...recent.slice(0, keep - 1).map((o) => o.entry)])
  await Promise.all(files.filter((f) => f.abandoned || !kept.has(f.entry)).map((f) => unlink(join(dir, f.name)).catch(() => {})))
}
