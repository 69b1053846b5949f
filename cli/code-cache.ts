/**
 * V8's code cache for the bundled command, kept in docpilot's cache folder.
 *
 * Node 20 compiles every module again on every run, and there it cannot give
 * an ES module a code cache (Node 22's module.enableCompileCache can:
 * compile-cache.ts). So an installed docpilot runs its command as one
 * CommonJS script (scripts/cli-bundle.ts), compiled by `vm.Script` from the
 * data an earlier run left: on astro, a re-index after a one-page edit spends
 * about 35 ms less CPU before it starts its work (~10% of the run).
 *
 * - Where: `<cache folder>/code/`, and only while the cache folder exists (an
 *   index run makes it), so a `docpilot --help` in any folder writes nothing.
 * - Keyed by the bundle file (device, inode, size, modification and change
 *   times), Node's version and the command: V8 checks only a source's length
 *   and its own flags, so a cache must never outlive the bytes it was made
 *   from.
 * - V8 caches what was compiled when the data is made. A command's first run
 *   saves what it compiled (generation 1); the next, given that, saves again
 *   with what it compiled besides (generation 2: a full build's, then a
 *   re-index's); later runs only read. A cache V8 rejects (another V8, other
 *   flags) is made again, and so is one whose bytes fail their checksum:
 *   V8 checks its data's header, not the code in it, and runs damaged code
 *   (a crash at best).
 * - NODE_DISABLE_COMPILE_CACHE, Node's switch for its own cache, turns it off.
 */
import { isAscii } from 'node:buffer'
import { open, readFile, stat } from 'node:fs/promises'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { Script } from 'node:vm'
import { crc32 } from 'node:zlib'
import { pruneCache, replaceFile } from '../indexer/cache-file.ts'
import { sha256 } from '../indexer/sha256.ts'

/** Generations a command's cache goes through before runs only read it. */
const GENERATIONS = 2
/** Caches kept in the folder: one per command, and a few of an earlier docpilot or Node. */
const KEEP = 16
/** `<command>.<key>.bin`: its generation (one byte), the CRC-32 of V8's data (u32, little-endian), then the data; and replaceFile's temporary name for it. */
const CACHE_FILE = /^([a-z][a-z0-9-]*\.[0-9a-f]{16})\.bin(?:\.\d+\.tmp)?$/

export interface CachedBundle<T> {
  exports: T
  /** What became of the cache this run found: none, used, or rejected by V8. */
  cache: 'none' | 'accepted' | 'rejected'
  /** Saves what this run compiled, when its generation calls for it (never throws: a cache only saves time). */
  save(): Promise<void>
}

/** Runs the CommonJS file `file` (its module.exports returned), compiled from the cache of `command`'s earlier runs when there is one. */
export async function loadBundle<T>(file: string, opts: { cacheDir: string; command: string }): Promise<CachedBundle<T>> {
  const { source, entry } = await readBundle(file, opts.command)
  const dir = join(opts.cacheDir, 'code')
  const off = Boolean(process.env.NODE_DISABLE_COMPILE_CACHE)
  const found = off || !(await isDir(opts.cacheDir)) ? undefined : await cached(dir, entry)
  const usable = found?.intact ? found : undefined
  // No import() runs in the script (cli-bundle.ts makes them require()): Node 20 allows one there only as an experiment.
  const script = new Script(source, { filename: file, ...(usable ? { cachedData: usable.data } : {}) })
  const module = { exports: {} as T }
  ;(script.runInThisContext() as (...args: unknown[]) => void)(module.exports, createRequire(file), module, file, dirname(file))
  const cache = !found ? 'none' : !usable || script.cachedDataRejected ? 'rejected' : 'accepted'
  const generation = usable && cache === 'accepted' ? usable.generation + 1 : 1
  return {
    exports: module.exports,
    cache,
    async save() {
      if (off || generation > GENERATIONS || !(await isDir(opts.cacheDir))) return
      try {
        const data = script.createCachedData()
        const head = Buffer.alloc(HEAD)
        head.writeUInt8(generation, 0)
        head.writeUInt32LE(crc32(data), 1)
        await replaceFile(join(dir, `${entry}.bin`), Buffer.concat([head, data]))
        await pruneCache(dir, entry, { entryOf: (name) => CACHE_FILE.exec(name)?.[1], keep: KEEP, usedFile: (e) => `${e}.bin` })
      } catch {
        // A cache folder that cannot be written costs the next run its compile, nothing else.
      }
    },
  }
}

/** The bundle's text is run as this function's body (CommonJS's arguments), as Node's own loader wraps a module. */
const WRAPPER = ['(function (exports, require, module, __filename, __dirname) { ', '\n});'] as const

/**
 * The bundle's text, wrapped, and the cache entry of `command` for the file as read (stamped through the same file
 * handle: a file replaced between a stat and a read would otherwise lend its stamp to other bytes).
 *
 * Read into one buffer with its wrapper, so that V8 gets the script as one string, not a concatenation it would copy
 * into another (2 MB); and, the bundle being ASCII (cli-bundle.ts), decoded as Latin-1: a copy, where UTF-8 decoding
 * scans every byte first. A bundle that is not ASCII (an edited copy) is decoded as UTF-8.
 */
async function readBundle(file: string, command: string): Promise<{ source: string; entry: string }> {
  const handle = await open(file)
  try {
    const st = await handle.stat({ bigint: true })
    const [head, tail] = WRAPPER
    const size = Number(st.size)
    const bytes = Buffer.allocUnsafe(head.length + size + tail.length)
    bytes.write(head, 0, 'latin1')
    for (let read = 0; read < size; ) {
      const { bytesRead } = await handle.read(bytes, head.length + read, size - read, read)
      if (bytesRead === 0) throw new Error(`${file}: ended after ${read} of its ${size} bytes (changed while read?)`)
      read += bytesRead
    }
    bytes.write(tail, head.length + size, 'latin1')
    const source = bytes.toString(isAscii(bytes) ? 'latin1' : 'utf8')
    const key = sha256([st.dev, st.ino, st.size, st.mtimeNs, st.ctimeNs, process.version, process.arch, file].join(' ')).slice(0, 16)
    return { source, entry: `${/^[a-z][a-z0-9-]{0,31}$/.test(command) ? command : 'docpilot'}.${key}` }
  } finally {
    await handle.close()
  }
}

const HEAD = 5

/** The entry's cache in the folder, if any, and whether its data is as it was written. */
async function cached(dir: string, entry: string): Promise<{ generation: number; data: Buffer; intact: boolean } | undefined> {
  const bytes = await readFile(join(dir, `${entry}.bin`)).catch(() => undefined)
  if (!bytes || bytes.length <= HEAD) return undefined
  const data = bytes.subarray(HEAD)
  return { generation: bytes[0]!, data, intact: crc32(data) === bytes.readUInt32LE(1) }
}

const isDir = (path: string) => stat(path).then((st) => st.isDirectory(), () => false)
