import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { readSqliteEvents } from './store.ts'

const work = mkdtempSync(join(tmpdir(), 'docpilot-insights-store-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))

describe('readSqliteEvents', () => {
  it('names the file and what to pass when --db is not a SQLite database (a folder, another file)', () => {
    const notDb = join(work, 'docpilot.config.json')
    writeFileSync(notDb, '{ "insights": { "enabled": true } }')
    for (const path of [work, notDb]) {
      expect(() => readSqliteEvents(path)).toThrow(`Cannot read ${path} as the proxy's SQLite database (`)
      expect(() => readSqliteEvents(path)).toThrow(/\). Pass the file your proxy writes with --db \(docpilot proxy: \.docpilot\/proxy\.sqlite/)
    }
  })
})
