/** Opens an index folder for the CLI with messages that say what to do. */
import { stat } from 'node:fs/promises'
import { basename, dirname, join } from 'node:path'
import type { DenseOptions } from '../core/retrieval/hybrid.ts'
import { MANIFEST_FILE, type Manifest } from '../core/index/format.ts'
import { IndexFormatError, readManifest } from '../core/index/read-manifest.ts'
import { PartMissingError } from '../core/index/parts.ts'
import { openIndex, type DocIndex } from '../core/retrieval/search.ts'
import { fsPartLoader } from '../indexer/fs-parts.ts'

/** `opts` reach the dense channel (e.g. how a hosted embedder reaches its provider). */
export async function openIndexDir(dir: string, opts: DenseOptions = {}): Promise<DocIndex> {
  await checkIndexDir(dir)
  return inFolder(dir, () => openIndex(fsPartLoader(dir), opts))
}

/** Refuses a folder with no manifest.json, saying what to pass or build; nothing is opened (a server opens its own kept index). */
export async function checkIndexDir(dir: string): Promise<void> {
  const hasManifest = await stat(join(dir, MANIFEST_FILE)).then(
    (s) => s.isFile(),
    () => false,
  )
  if (!hasManifest) {
    // `--index public/docpilot/manifest.json` names the file the folder holds: say so, rather than that it is missing.
    if (basename(dir) === MANIFEST_FILE && (await stat(dir).then((s) => s.isFile(), () => false))) {
      throw new IndexFormatError(`${dir} is the index's manifest; pass the folder that holds it: --index ${dirname(dir)}`)
    }
    throw new IndexFormatError(`No index at ${dir} (manifest.json is missing). Build one with \`docpilot index <docs-dir> --out ${dir}\`, or pass --index.`)
  }
}

/**
 * Why the index `open` gives cannot be searched, or undefined. Its lexical
 * head, which every search reads first, is read now: a server started on a
 * half-copied or damaged folder says so at startup, naming the file, rather
 * than in the error of every search.
 */
export async function unsearchable(dir: string, open: () => Promise<DocIndex>): Promise<string | undefined> {
  try {
    await (await open()).lexical()
    return undefined
  } catch (err) {
    const why = err instanceof Error ? err.message : String(err)
    return `the index at ${dir} cannot be searched: ${why}${err instanceof PartMissingError ? '. Copy the whole folder, or rebuild it with `docpilot index`.' : ''}`
  }
}

/** The checked manifest of the index folder `dir` (core/index/read-manifest.ts). */
export function readIndexManifest(dir: string): Promise<Manifest> {
  return inFolder(dir, () => readManifest(fsPartLoader(dir)))
}

/** A format error names the folder it is about. */
async function inFolder<T>(dir: string, read: () => Promise<T>): Promise<T> {
  try {
    return await read()
  } catch (err) {
    if (err instanceof IndexFormatError) throw new IndexFormatError(`${dir}: ${err.message}`)
    throw err
  }
}
