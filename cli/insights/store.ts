/**
 * Reads the stored insights events: from the Node proxy's SQLite file, or
 * from D1 through the owner's wrangler (`wrangler d1 execute --json`), local
 * (`wrangler dev` state) or remote.
 */
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { createRequire } from 'node:module'
import { dirname, join, resolve } from 'node:path'
import type Database from 'better-sqlite3'
import { EVENT_SELECT, type EventRow } from '../../proxy/events.ts'

const require = createRequire(import.meta.url)

export class StoreReadError extends Error {
  override name = 'StoreReadError'
}

const PASS_DB = 'Pass the file your proxy writes with --db (docpilot proxy: .docpilot/proxy.sqlite; dev: .docpilot/dev-proxy.sqlite), or read D1 with --d1 <database>.'

export function readSqliteEvents(path: string): EventRow[] {
  if (!existsSync(path)) {
    throw new StoreReadError(`No proxy database at ${path}. ${PASS_DB}`)
  }
  let Sqlite: typeof Database
  try {
    Sqlite = require('better-sqlite3') as typeof Database
  } catch {
    throw new StoreReadError(`Reading ${path} needs SQLite: install it with \`npm install better-sqlite3\` (the proxy that wrote it had it).`)
  }
  let db: Database.Database | undefined
  try {
    db = new Sqlite(path, { readonly: true, fileMustExist: true })
    const table = db.prepare("SELECT name FROM sqlite_master WHERE type = 'table' AND name = 'events'").get()
    return table ? (db.prepare(EVENT_SELECT).all() as EventRow[]) : []
  } catch (err) {
    // SQLite's own words ('file is not a database', 'disk I/O error' for a folder) name neither the file nor the fix.
    throw new StoreReadError(`Cannot read ${path} as the proxy's SQLite database (${(err as Error).message}). ${PASS_DB}`)
  } finally {
    db?.close()
  }
}

export interface D1Source {
  database: string
  /** The deployed database instead of wrangler dev's local copy. */
  remote?: boolean
  /** wrangler.toml (default: the one in the working directory). */
  config?: string
  /** wrangler dev's --persist-to folder, when it was given one. */
  persistTo?: string
}

/** The owner's wrangler: the nearest node_modules/.bin/wrangler up from `cwd`. */
function findWrangler(cwd: string): string {
  for (let dir = resolve(cwd); ; dir = dirname(dir)) {
    const bin = join(dir, 'node_modules', '.bin', 'wrangler')
    if (existsSync(bin)) return bin
    if (dirname(dir) === dir) break
  }
  throw new StoreReadError('Reading D1 needs wrangler in this project: install it with `npm install --save-dev wrangler`.')
}

export async function readD1Events(source: D1Source, cwd: string, env: NodeJS.ProcessEnv = process.env): Promise<EventRow[]> {
  const args = ['d1', 'execute', source.database, source.remote ? '--remote' : '--local', '--json', '--command', EVENT_SELECT]
  if (source.config) args.push('--config', resolve(cwd, source.config))
  if (source.persistTo) args.push('--persist-to', resolve(cwd, source.persistTo))
  const { code, stdout, stderr } = await run(findWrangler(cwd), args, cwd, env)
  if (code !== 0) {
    if (/no such table: events/.test(stdout + stderr)) return []
    throw new StoreReadError(`wrangler d1 execute ${source.database} failed (exit ${code}): ${(stderr || stdout).trim().split('\n').slice(-5).join('\n')}`)
  }
  try {
    const out = JSON.parse(stdout) as { results?: EventRow[] }[]
    return out[0]?.results ?? []
  } catch {
    throw new StoreReadError(`wrangler d1 execute ${source.database} printed something other than JSON: ${stdout.slice(0, 200)}`)
  }
}

function run(bin: string, args: string[], cwd: string, env: NodeJS.ProcessEnv): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done, fail) => {
    const child = spawn(bin, args, { cwd, env: { WRANGLER_SEND_METRICS: 'false', ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    child.on('error', fail)
    child.on('exit', (code) => done({ code: code ?? 1, stdout, stderr }))
  })
}
