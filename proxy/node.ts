/**
 * The Node entry of the proxy (`docpilot dev`, `preview`, self-hosters).
 * Per-client buckets live in memory; the daily ceiling and feedback live in
 * one SQLite file, so several processes pointed at the same file share one
 * ceiling and a restart keeps the day's count.
 *
 * SQLite comes from better-sqlite3, a native module and an optional peer
 * dependency: an owner who only indexes never installs (or compiles) it. It is
 * loaded on first use; without it, state kept in memory (':memory:') needs
 * nothing, and a file path fails with the package to install.
 */
import { mkdirSync } from 'node:fs'
import { createRequire } from 'node:module'
import { basename, dirname, resolve } from 'node:path'
import { createServer, type AddressInfo } from 'node:net'
import type Database from 'better-sqlite3'
import { serve, type ServerType } from '@hono/node-server'
import { getConnInfo } from '@hono/node-server/conninfo'
import type { Context } from 'hono'
import { checkKeys, checkOrigins, checkUpstreamUrls, createProxyApp, type ProxyApp, type ProxyEnv } from './app.ts'
import { EVENT_INSERT, EVENT_PRUNE, EVENT_RATE, EVENT_SELECT, EVENTS_DDL, eventParams, type EventRating, type EventRow } from './events.ts'
import { FEEDBACK_DDL, FEEDBACK_INSERT, FEEDBACK_PRUNE, feedbackParams, type FeedbackRow, type FeedbackStore } from './feedback.ts'
import { MemoryBuckets, dayKey, forwardedClient, nextUtcMidnight, type DailyResult, type LimitStore, type RateLimit, type TakeResult } from './limits.ts'
import type { ProxySettings } from './settings.ts'
import { diskMcp, type DiskDocs } from './mcp-disk.ts'

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

/** What the Node proxy keeps: request buckets, the daily counter and feedback. */
export interface ProxyState extends LimitStore, FeedbackStore {
  /** Stored feedback, newest last (for owners' scripts and tests). */
  feedbackRows(): FeedbackRow[]
  /** Stored insights events, oldest first (what `docpilot insights` reads). */
  eventRows(): EventRow[]
  close(): void
}

type SqliteModule = typeof Database

const require = createRequire(import.meta.url)
let sqlite: SqliteModule | null | undefined

/** better-sqlite3, or null when it is not installed. */
function loadSqlite(): SqliteModule | null {
  if (sqlite !== undefined) return sqlite
  try {
    sqlite = require('better-sqlite3') as SqliteModule
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code !== 'MODULE_NOT_FOUND') throw err
    sqlite = null
  }
  return sqlite
}

export function sqliteInstalled(): boolean {
  return loadSqlite() !== null
}

/** A state file was asked for, and better-sqlite3 is not installed. */
export class SqliteMissingError extends Error {
  constructor(path: string) {
    super(
      `Keeping the proxy's daily counter and feedback in ${path} needs SQLite: install it with \`npm install better-sqlite3\` ` +
        `(or keep them in this process's memory with ':memory:', lost on restart).`,
    )
    this.name = 'SqliteMissingError'
  }
}

/** Daily counter and feedback in this process's memory: what ':memory:' keeps when SQLite is not installed. */
export class MemoryState implements ProxyState {
  private readonly buckets = new MemoryBuckets()
  private readonly daily = new Map<string, number>()
  private feedback: FeedbackRow[] = []
  private events: EventRow[] = []

  async take(client: string, limit: RateLimit, now: number): Promise<TakeResult> {
    return this.buckets.take(client, limit, now)
  }

  async spendDaily(limit: number, now: number): Promise<DailyResult> {
    const day = dayKey(now)
    const used = this.daily.get(day) ?? 0
    const resetAt = nextUtcMidnight(now)
    if (used >= limit) return { ok: false, used, resetAt }
    // Only today's count matters; yesterday's is dropped.
    this.daily.clear()
    this.daily.set(day, used + 1)
    return { ok: true, used: used + 1, resetAt }
  }

  async refundDaily(reservedAt: number): Promise<void> {
    const day = dayKey(reservedAt)
    const used = this.daily.get(day)
    if (used) this.daily.set(day, used - 1)
  }

  async usedDaily(now: number): Promise<number> {
    return this.daily.get(dayKey(now)) ?? 0
  }

  async save(row: FeedbackRow, deleteBefore: string): Promise<void> {
    this.feedback = [...this.feedback.filter((f) => f.createdAt >= deleteBefore), row]
  }

  feedbackRows(): FeedbackRow[] {
    return [...this.feedback]
  }

  async saveEvent(row: EventRow, deleteBefore: string): Promise<void> {
    if (!this.events.some((e) => e.id === row.id)) this.events.push(row)
    this.events = this.events.filter((e) => e.createdAt >= deleteBefore)
  }

  async rateEvent({ id, tab, rating }: EventRating): Promise<void> {
    const event = this.events.find((e) => e.id === id && e.tab === tab)
    if (event) event.rating = rating
  }

  eventRows(): EventRow[] {
    return this.events.map((e) => ({ ...e }))
  }

  close(): void {}
}

/** The state for a path: SQLite when installed; without it, memory for ':memory:' and an error for a file. */
export function openProxyState(path: string): ProxyState {
  if (!sqliteInstalled()) {
    if (path === IN_MEMORY) return new MemoryState()
    throw new SqliteMissingError(path)
  }
  return new SqliteState(path)
}

/** Daily counter and feedback in SQLite; buckets in this process's memory. */
export class SqliteState implements ProxyState {
  private readonly db: Database.Database
  private readonly buckets = new MemoryBuckets()
  private readonly spend: Database.Statement<[{ day: string; limit: number }], { used: number }>
  private readonly usedToday: Database.Statement<[string], { used: number }>
  private readonly refund: Database.Statement<[string]>
  private readonly insertFeedback: Database.Statement<unknown[]>
  private readonly insertEvent: Database.Statement<unknown[]>
  private readonly rate: Database.Statement<unknown[]>
  private readonly prune: Database.Statement<[string]>
  private readonly pruneFeedback: Database.Statement<[string]>

  constructor(path: string) {
    if (path !== IN_MEMORY && basename(path) === IN_MEMORY) {
      throw new Error(`Proxy state path ${path} is ':memory:' joined to a folder; pass ':memory:' itself for state kept in memory (resolveDbPath does this).`)
    }
    const Sqlite = loadSqlite()
    if (!Sqlite) throw new SqliteMissingError(path)
    if (path !== IN_MEMORY) mkdirSync(dirname(path), { recursive: true })
    this.db = new Sqlite(path)
    this.db.pragma('journal_mode = WAL')
    this.db.pragma('busy_timeout = 5000')
    this.db.exec('CREATE TABLE IF NOT EXISTS daily (day TEXT PRIMARY KEY, used INTEGER NOT NULL)')
    this.db.exec(FEEDBACK_DDL)
    for (const ddl of EVENTS_DDL) this.db.exec(ddl)
    // One statement, so two processes on one file can never both take the last request.
    this.spend = this.db.prepare(
      'INSERT INTO daily (day, used) VALUES (@day, 1) ON CONFLICT(day) DO UPDATE SET used = used + 1 WHERE used < @limit RETURNING used',
    )
    this.usedToday = this.db.prepare('SELECT used FROM daily WHERE day = ?')
    this.refund = this.db.prepare('UPDATE daily SET used = used - 1 WHERE day = ? AND used > 0')
    this.insertFeedback = this.db.prepare(FEEDBACK_INSERT)
    this.insertEvent = this.db.prepare(EVENT_INSERT)
    this.rate = this.db.prepare(EVENT_RATE)
    this.prune = this.db.prepare(EVENT_PRUNE)
    this.pruneFeedback = this.db.prepare(FEEDBACK_PRUNE)
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

  async refundDaily(reservedAt: number): Promise<void> {
    this.refund.run(dayKey(reservedAt))
  }

  async usedDaily(now: number): Promise<number> {
    return this.usedToday.get(dayKey(now))?.used ?? 0
  }

  async save(row: FeedbackRow, deleteBefore: string): Promise<void> {
    this.insertFeedback.run(...feedbackParams(row))
    this.pruneFeedback.run(deleteBefore)
  }

  /** Stored feedback, newest last (for owners' scripts and tests). */
  feedbackRows(): FeedbackRow[] {
    return this.db
      .prepare('SELECT id, created_at AS createdAt, rating, page, receipt, ladder, question, answer, comment FROM feedback ORDER BY created_at, rowid')
      .all() as FeedbackRow[]
  }

  async saveEvent(row: EventRow, deleteBefore: string): Promise<void> {
    this.insertEvent.run(...eventParams(row))
    this.prune.run(deleteBefore)
  }

  async rateEvent({ id, tab, rating }: EventRating): Promise<void> {
    this.rate.run(rating, id, tab)
  }

  eventRows(): EventRow[] {
    return this.db.prepare(EVENT_SELECT).all() as EventRow[]
  }

  close(): void {
    this.db.close()
  }
}

export interface NodeProxyOptions {
  settings: ProxySettings
  /** Keys and base-URL overrides; defaults to process.env. */
  env?: ProxyEnv
  /** SQLite file for the daily counter and feedback; ':memory:' keeps nothing (and needs no SQLite). */
  dbPath?: string
  /**
   * Reverse proxies in front of this one that append the client address to
   * X-Forwarded-For (0, the default: use the connection's address).
   */
  trustedHops?: number
  /**
   * The site's own origins, when they are known only once a server listens
   * (`dev`, `preview` on a free port); otherwise settings.proxy.siteOrigins.
   */
  siteOrigins?: () => string[]
  fetch?: typeof fetch
  now?: () => number
  /** Serve the docs to agents on /ai/mcp from these folders (proxy/mcp-disk.ts). */
  mcp?: DiskDocs
  /** Where warnings and internal errors are written, keys redacted (default console.error). */
  log?: (line: string) => void
}

export interface NodeProxy {
  app: ProxyApp
  state: ProxyState
  close(): void
}

function clientIp(c: Context, trustedHops: number): string {
  let connection = 'unknown'
  try {
    connection = getConnInfo(c).remote.address ?? 'unknown'
  } catch {
    // Mounted somewhere that is not @hono/node-server: one shared bucket.
  }
  return forwardedClient(c.req.header('x-forwarded-for'), trustedHops, connection)
}

/**
 * The proxy as a Hono app (mount it, or serve it with `serveProxy`). A
 * configuration it cannot serve (no site origin, a key that is not a valid
 * header value) is a ProxyConfigError here, at start, naming what to fix.
 */
export function createNodeProxy(options: NodeProxyOptions): NodeProxy {
  const env = options.env ?? process.env
  const settingsNow = (): ProxySettings =>
    options.siteOrigins ? { ...options.settings, proxy: { ...options.settings.proxy, siteOrigins: options.siteOrigins() } } : options.settings
  // Origins given by a function are known once the server listens; the keys are checked now either way.
  checkKeys(options.settings, env)
  checkUpstreamUrls(options.settings, env)
  if (!options.siteOrigins) checkOrigins(options.settings)
  const state = openProxyState(options.dbPath ?? DEFAULT_DB_PATH)
  const trustedHops = options.trustedHops ?? 0
  const log = options.log ?? ((line: string) => console.error(line))
  let forwardedUntrusted = false
  const app = createProxyApp({
    env: () => env,
    runtime: (c) => {
      // Behind nginx or Caddy without --trust-proxy, every reader is the reverse proxy's one address: one bucket for the site.
      if (!trustedHops && !forwardedUntrusted && c.req.header('x-forwarded-for')) {
        forwardedUntrusted = true
        log(
          'docpilot proxy: requests arrive with X-Forwarded-For, but without --trust-proxy the client is the connection\'s address: ' +
            'if a reverse proxy of yours sets that header, every reader shares one rate-limit bucket (proxy.rateLimit). ' +
            'Start it with --trust-proxy (a CDN and a proxy in front: --trust-proxy 2). Said once.',
        )
      }
      return { settings: settingsNow(), env, limits: state, feedback: state, clientIp: clientIp(c, trustedHops) }
    },
    log,
    ...(options.fetch ? { fetch: options.fetch } : {}),
    ...(options.now ? { now: options.now } : {}),
    ...(options.mcp ? { mcp: diskMcp(options.mcp) } : {}),
  })
  return { app, state, close: () => state.close() }
}

export interface ServedProxy extends NodeProxy {
  url: string
  server: ServerType
}

/** Something else already listens on the port asked for. */
export class PortInUseError extends Error {
  constructor(
    readonly port: number,
    readonly hostname: string,
  ) {
    super(`port ${port} on ${hostname} is already in use (another docpilot, or another server): pick another with --port <number>, or --port 0 for any free one`)
    this.name = 'PortInUseError'
  }
}

/** Serves a fetch handler on a port (0: any free one); a port already taken rejects with PortInUseError, not an uncaught error event. */
export async function listen(fetch: (request: Request) => Response | Promise<Response>, port: number, hostname: string): Promise<ServerType> {
  return new Promise<ServerType>((resolve, reject) => {
    const s = serve({ fetch, port, hostname }, () => {
      s.off('error', failed)
      resolve(s)
    })
    function failed(err: NodeJS.ErrnoException) {
      reject(err.code === 'EADDRINUSE' ? new PortInUseError(port, hostname) : err)
    }
    s.once('error', failed)
  })
}

/**
 * Rejects with PortInUseError when something already listens on the port (0: any free one, never taken), by
 * listening on it for a moment: for a command that does slow work, or writes, before it listens, and would
 * otherwise find out at the end.
 */
export async function checkPortFree(port: number, hostname: string): Promise<void> {
  if (port === 0) return
  const probe = createServer()
  await new Promise<void>((resolve, reject) => {
    probe.once('error', (err: NodeJS.ErrnoException) => reject(err.code === 'EADDRINUSE' ? new PortInUseError(port, hostname) : err))
    probe.listen(port, hostname, () => probe.close(() => resolve()))
  })
}

/** Stops accepting, drops open (streaming) connections, and resolves once the server is closed. */
export function stopServer(server: ServerType): Promise<void> {
  return new Promise<void>((done) => {
    server.close(() => done())
    if ('closeAllConnections' in server) server.closeAllConnections()
  })
}

export async function serveProxy(options: NodeProxyOptions & { port?: number; hostname?: string }): Promise<ServedProxy> {
  const proxy = createNodeProxy(options)
  const hostname = options.hostname ?? '127.0.0.1'
  let server: ServerType
  try {
    server = await listen(proxy.app.fetch, options.port ?? 0, hostname)
  } catch (err) {
    proxy.close()
    throw err
  }
  const { port } = server.address() as AddressInfo
  return {
    ...proxy,
    server,
    url: `http://${hostname}:${port}`,
    close: () => {
      void stopServer(server)
      proxy.close()
    },
  }
}
