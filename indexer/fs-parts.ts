/** The Node PartLoader: reads index parts from an index folder on disk. */
import { readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { PartMissingError, type PartLoader } from '../core/retrieval/parts.ts'

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
    async json<T>(name: string) {
      return JSON.parse(new TextDecoder().decode(await read(name))) as T
    },
  }
}
