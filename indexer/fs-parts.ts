/** The Node PartLoader: reads index parts from an index folder on disk. */
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
