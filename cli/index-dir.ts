/** Opens an index folder for the CLI with messages that say what to do. */
import { stat } from 'node:fs/promises'
import { join } from 'node:path'
import { openIndex, IndexFormatError, type DocIndex } from '../core/retrieval/search.ts'
import { fsPartLoader } from '../indexer/fs-parts.ts'

export async function openIndexDir(dir: string): Promise<DocIndex> {
  const hasManifest = await stat(join(dir, 'manifest.json')).then(
    (s) => s.isFile(),
    () => false,
  )
  if (!hasManifest) {
    throw new IndexFormatError(`No index at ${dir} (manifest.json is missing). Build one with \`docpilot index <docs-dir> --out ${dir}\`, or pass --index.`)
  }
  try {
    return await openIndex(fsPartLoader(dir))
  } catch (err) {
    if (err instanceof IndexFormatError) throw new IndexFormatError(`${dir}: ${err.message}`)
    throw err
  }
}
