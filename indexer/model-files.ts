/** Reading a local model folder's files, with errors that name the file and what the folder needs. */
import { readFile, stat } from 'node:fs/promises'
import type { Stats } from 'node:fs'
import { join } from 'node:path'

/** An `embed` setting that cannot be honoured; the message says what to change. */
export class EmbedConfigError extends Error {
  override name = 'EmbedConfigError'
}

function unreadable(path: string, err: unknown, needs: string): EmbedConfigError {
  const why = (err as { code?: string }).code === 'ENOENT' ? 'is missing' : `cannot be read (${err instanceof Error ? err.message : String(err)})`
  return new EmbedConfigError(`model file ${path} ${why}; ${needs}`)
}

/** Reads one model file. */
export async function modelFile(dir: string, name: string, needs: string): Promise<Uint8Array> {
  return readFile(join(dir, name)).catch((err: unknown) => Promise.reject(unreadable(join(dir, name), err, needs)))
}

/** Whether one model file is there, and its size and times, without reading it. */
export async function modelFileStat(dir: string, name: string, needs: string): Promise<Stats> {
  return stat(join(dir, name)).catch((err: unknown) => Promise.reject(unreadable(join(dir, name), err, needs)))
}
