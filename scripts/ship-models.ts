/**
 * Copies the models docpilot ships (models/) into dist/models (run by `npm
 * run build:node`). A static model goes with its rows pack made here, once,
 * instead of its table (indexer/static-folder.ts, PREPACKED): every index a
 * user builds with a fresh cache then links the pack rather than making it,
 * and the package stays the size it was (the pack holds the table's rows).
 *
 * Each file is replaced whole (written beside, then renamed) and stale ones
 * removed after: another build's `npm pack` may be reading the folder.
 */
import { readdirSync, readFileSync, rmSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { STATIC_MODEL_FORMAT, type StaticModelDescriptor } from '../core/embed/static-model.ts'
import { replaceFile } from '../indexer/cache-file.ts'
import { PREPACKED, writePrepackedRows } from '../indexer/static-folder.ts'

const FROM = resolve(import.meta.dirname, '../models')
const TO = resolve(import.meta.dirname, '../dist/models')

const listing = (dir: string) => {
  try {
    return readdirSync(dir)
  } catch {
    return []
  }
}

const models = readdirSync(FROM)
for (const name of models) {
  const [dir, out] = [join(FROM, name), join(TO, name)]
  const descriptor = JSON.parse(readFileSync(join(dir, 'model.json'), 'utf8')) as StaticModelDescriptor
  const table = descriptor.format === STATIC_MODEL_FORMAT ? descriptor.files.vectors : undefined
  const shipped = readdirSync(dir).filter((file) => file !== table)
  for (const file of shipped) await replaceFile(join(out, file), readFileSync(join(dir, file)))
  if (table) await writePrepackedRows(dir, out)
  const kept = new Set([...shipped, ...(table ? Object.values(PREPACKED) : [])])
  for (const file of listing(out)) if (!kept.has(file)) rmSync(join(out, file), { recursive: true, force: true })
}
for (const name of listing(TO)) if (!models.includes(name)) rmSync(join(TO, name), { recursive: true, force: true })
