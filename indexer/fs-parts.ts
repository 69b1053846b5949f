/** The Node PartLoaders: read index parts from an index folder on disk. */
import { closeSync, openSync, readFileSync, readSync } from 'node:fs'
import { open, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { PartMissingError, type PartLoader } from '../core/index/parts.ts'

export function fsPartLoader(dir: string): PartLoader {
  const read = async (name: string): Promise<Uint8Array> => {
    try {
      return await readFile(join(dir, name))
    } catch (err) {
      throw new PartMissingError(join(dir, name), err)
    }
  }
  return {
    bytes: read,
    async range(name, start, end) {
      let file
      try {
        file = await open(join(dir, name))
        const out = new Uint8Array(Math.max(0, end - start))
        // A file shorter than asked for gives what it has: the reader checks lengths and names the damage.
        const { bytesRead } = await file.read(out, 0, out.length, start)
        return out.subarray(0, bytesRead)
      } catch (err) {
        throw new PartMissingError(join(dir, name), err)
      } finally {
        await file?.close()
      }
    },
  }
}

/**
 * The same, each read done at once (blocking): for the indexer's own reads of
 * the index it has just written (its first-question cost), where a
 * promise-API read costs several times the CPU of the read itself. Servers
 * keep fsPartLoader.
 */
export function fsPartLoaderSync(dir: string): PartLoader {
  const readNow = <T>(name: string, read: (path: string) => T): Promise<T> => {
    try {
      return Promise.resolve(read(join(dir, name)))
    } catch (err) {
      return Promise.reject(new PartMissingError(join(dir, name), err))
    }
  }
  return {
    bytes: (name) => readNow(name, (path) => readFileSync(path)),
    range: (name, start, end) =>
      readNow(name, (path) => {
        const file = openSync(path, 'r')
        try {
          const out = new Uint8Array(Math.max(0, end - start))
          // As above: a file shorter than asked for gives what it has.
          return out.subarray(0, readSync(file, out, 0, out.length, start))
        } finally {
          closeSync(file)
        }
      }),
  }
}
