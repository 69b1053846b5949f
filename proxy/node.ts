/**
 * The Node entry of the proxy (`docpilot dev`, self-hosters). Per-client
 * buckets live in memory; the daily ceiling and feedback live in one SQLite
 * file, so several processes pointed at the same file share one ceiling and
 * a restart keeps the day's count.
 */
import { mkdirSync } from 'node:fs'
import { basename, dirname, resolve } from 'node:path'
import type { AddressInfo } from 'node:net'
import Database from 'better-sqlite3'
import { serve, getRequestListener, type ServerType } from '@hono/node-server'
import { getConnInfo } from '@hono/node-server/conninfo'
import type { Context, Hono } from 'hono'
import { createProxyApp, type ProxyEnv } from './app.ts'
import { FEEDBACK_DDL, FEEDBACK_INSERT, feedbackParams, type FeedbackRow, type FeedbackStore } from './feedback.ts'
import { MemoryBuckets, dayKey, nextUtcMidnight, type DailyResult, type LimitStore, type RateLimit, type TakeResult } from './limits.ts'
import type { ProxySettings } from './settings.ts'

export const DEFAULT_DB_PATH = '.docpilot/proxy.sqlite'

/** SQLite's name for a database that lives in memory and is never written to disk. */
export const IN_MEMORY = ':memory:'

/**
 * A state path as given on a command line or in options, resolved against
 * `cwd`, except ':memory:', which is a name and not a file: resolving it would
 * create a file literally called `:memory:` in the working directory.
 */
export function resolveDbPath(cwd: string, path: string): string {
  return path === IN_MEMORY ? IN_MEMORY : resolve(cwd, path)
}

/** Daily counter and feedback in SQLite; buckets in this process's memory. */
export class SqliteState implements LimitStore, FeedbackStore {
  private readonly db: Database.Database
  private readonly buckets = new MemoryBuckets()
  private readonly spend: Database.Statement<[{ day: string; limit: number }], { used: number }>
  private readonly usedToday: Database.Statement<[string], { used: number }>
  private readonly insertFeedback: Database.Statement<unknown[]>

  constructor(path: string) {
    if (path !== IN_MEMORY) {
      if (basename(path) === IN_MEMORY) {
        throw new Error(`Proxy state path ${path} is ':memory:' joined to a folder; pass ':memory:' itself for state kept in memory (resolveDbPath does this).`)
      }
      mkdirSync(dirname(path), { recursive: true })
    }
    this.db = new Database(path)
    this.db.pragma('journal_mode = WAL')
    this.db.pragma('busy_timeout = 5000')
    this.db.exec('CREATE TABLE IF NOT EXISTS daily (day TEXT PRIMARY KEY, used INTEGER NOT NULL)')
    this.db.exec(FEEDBACK_DDL)
    // One statement, so two processes on one file can never both take the last request.
    this.spend = this.db.prepare(
      'INSERT INTO daily (day, used) VALUES (@day, 1) ON CONFLICT(day) DO UPDATE SET used = used + 1 WHERE used < @limit RETURNING used',
    )
    this.usedToday = this.db.prepare('SELECT used FROM daily WHERE day = ?')
    this.insertFeedback = this.db.prepare(FEEDBACK_INSERT)
  }

  async take(client: string, limit: RateLimit, now: number): Promise<TakeResult> {
    return this.buckets.take(client, limit, now)
  }

  async spendDaily(limit: number, now: number): Promise<DailyResult> {
    const day = dayKey(now)
    const row = this.spend.get({ day, limit })
    const resetAt = nextUtcMidnight(now)
    if (row) return { ok: true, used: row.used, resetAt }
    return { ok: false, used: this.usedToday.get(day)?.used ?? limit, resetAt }
  }

  async save(row: FeedbackRow): Promise<void> {
    this.insertFeedback.run(...feedbackParams(row))
  }

  /** Stored feedback, newest last (for owners' scripts and tests). */
  feedbackRows(): FeedbackRow[] {
    return this.db
      .prepare('SELECT id, created_at AS createdAt, rating, page, receipt, ladder, question, answer, comment FROM feedback ORDER BY created_at, rowid')
      .all() as FeedbackRow[]
  }

  close(): void {
    this.db.close()
  }
}

export interface NodeProxyOptions {
  settings: ProxySettings
  /** Keys and base-URL overrides; defaults to process.env. */
  env?: ProxyEnv
  /** SQLite file for the daily counter and feedback; ':memory:' keeps nothing. */
  dbPath?: string
  /** Behind a reverse proxy: take the client address from X-Forwarded-For. */
  trustProxy?: boolean
  fetch?: typeof fetch
  now?: () => number
}

export interface NodeProxy {
  app: Hono
  state: SqliteState
  close(): void
}

function clientIp(c: Context, trustProxy: boolean): string {
  if (trustProxy) {
    const forwarded = c.req.header('x-forwarded-for')?.split(',')[0]?.trim()
    if (forwarded) return forwarded
  }
  try {
    return getConnInfo(c).remote.address ?? 'unknown'
  } catch {
    // Mounted somewhere that is not @hono/node-server: one shared bucket.
    return 'unknown'
  }
}

/** The proxy as a Hono app (mount it, or serve it with `serveProxy`). */
export function createNodeProxy(options: NodeProxyOptions): NodeProxy {
  const state = new SqliteState(options.dbPath ?? DEFAULT_DB_PATH)
  const env = options.env ?? process.env
  const trustProxy = options.trustProxy ?? false
  const app = createProxyApp({
    runtime: (c) => ({ settings: options.settings, env, limits: state, feedback: state, clientIp: clientIp(c, trustProxy) }),
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.now ? { now: options.now } : {}),
  })
  return { app, state, close: () => state.close() }
}

/** A Node `(req, res)` handler for servers that are not Hono. */
export function proxyRequestListener(proxy: NodeProxy): ReturnType<typeof getRequestListener> {
  return getRequestListener(proxy.app.fetch)
}

export interface ServedProxy extends NodeProxy {
  url: string
  server: ServerType
}

export async function serveProxy(options: NodeProxyOptions & { port?: number; hostname?: string }): Promise<ServedProxy> {
  const proxy = createNodeProxy(options)
  const hostname = options.hostname ?? '127.0.0.1'
  const server = await new Promise<ServerType>((resolve) => {
    const s = serve({ fetch: proxy.app.fetch, port: options.port ?? 0, hostname }, () => resolve(s))
  })
  const { port } = server.address() as AddressInfo
  return {
    ...proxy,
    server,
    url: `http://${hostname}:${port}`,
    close: () => {
      server.close()
      if ('closeAllConnections' in server) server.closeAllConnections()
      proxy.close()
    },
  }
}
