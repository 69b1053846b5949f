/** Opens an index folder for the CLI with messages that say what to do. */
import { stat } from 'node:fs/promises'
import { join } from 'node:path'
import type { DenseOptions } from '../core/retrieval/hybrid.ts'
import { openIndex, IndexFormatError, type DocIndex } from '../core/retrieval/search.ts'
import { fsPartLoader } from '../indexer/fs-parts.ts'

/** `opts` reach the dense channel (e.g. how a hosted embedder reaches its provider). */
export async function openIndexDir(dir: string, opts: DenseOptions = {}): Promise<DocIndex> {
  const hasManifest = await stat(join(dir, 'manifest.json')).then(
    (s) => s.isFile(),
    () => false,
  )
  if (!hasManifest) {
    throw new IndexFormatError(`No index at ${dir} (manifest.json is missing). Build one with \`docpilot index <docs-dir> --out ${dir}\`, or pass --index.`)
  }
  try {
    return await openIndex(fsPartLoader(dir), opts)
  } catch (err) {
    if (err instanceof IndexFormatError) throw new IndexFormatError(`${dir}: ${err.message}`)
    throw err
  }
}
