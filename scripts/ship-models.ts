/**
 * Copies the models docpilot ships (models/) into dist/models (run by `npm
 * run build:node`). A static model goes with its rows pack made here, once,
 * instead of its table (indexer/static-folder.ts, PREPACKED): every index a
 * user builds with a fresh cache then links the pack rather than making it,
 * and the package stays the size it was (the pack holds the table's rows).
 */
import { cpSync, readdirSync, readFileSync, rmSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { STATIC_MODEL_FORMAT, type StaticModelDescriptor } from '../core/embed/static-model.ts'
import { writePrepackedRows } from '../indexer/static-folder.ts'

const FROM = resolve(import.meta.dirname, '../models')
const TO = resolve(import.meta.dirname, '../dist/models')

rmSync(TO, { recursive: true, force: true })
for (const name of readdirSync(FROM)) {
  const [dir, out] = [join(FROM, name), join(TO, name)]
  const descriptor = JSON.parse(readFileSync(join(dir, 'model.json'), 'utf8')) as StaticModelDescriptor
  const table = descriptor.format === STATIC_MODEL_FORMAT ? join(dir, descriptor.files.vectors) : undefined
  cpSync(dir, out, { recursive: true, filter: (path) => path !== table })
  if (table) await writePrepackedRows(dir, out)
}
