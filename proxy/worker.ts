/**
 * The Cloudflare Workers entry of the proxy. Keys are Worker secrets
 * (`wrangler secret put OPENAI_API_KEY`, or `.dev.vars` under `wrangler dev`);
 * the routes and limits arrive bundled as the `DOCPILOT_PROXY` var in
 * wrangler.toml, which `docpilot doctor --proxy` prints for the current config.
 *
 * State: a Durable Object (`ProxyLimits`) keeps the site's daily counter (one
 * object, so every isolate counts against one ceiling) and each client's token
 * bucket (one object per client address). Feedback and insights events go to D1.
 */
import { createProxyApp, ProxyConfigError, type ProxyEnv } from './app.ts'
import { EVENT_INSERT, EVENT_PRUNE, EVENT_RATE, EVENTS_DDL, eventParams, type EventRating, type EventRow } from './events.ts'
import { FEEDBACK_DDL, FEEDBACK_INSERT, FEEDBACK_PRUNE, feedbackParams, type FeedbackRow, type FeedbackStore } from './feedback.ts'
import { dayKey, nextUtcMidnight, takeToken, type Bucket, type DailyResult, type LimitStore, type RateLimit, type TakeResult } from './limits.ts'
import { parseProxySettings, type ProxySettings } from './settings.ts'
import { originMcp } from './mcp.ts'

// The few Workers types used here, declared locally so the repository's
// Node/DOM type environment stays untouched.
interface DurableObjectId {}
interface DurableObjectStub {
  fetch(input: string, init?: RequestInit): Promise<Response>
}
interface DurableObjectNamespace {
  idFromName(name: string): DurableObjectId
  get(id: DurableObjectId): DurableObjectStub
}
interface DurableObjectStorage {
  get<T>(key: string): Promise<T | undefined>
  put<T>(key: string, value: T): Promise<void>
  delete(key: string): Promise<boolean>
}
interface DurableObjectState {
  storage: DurableObjectStorage
}
interface D1PreparedStatement {
  bind(...values: unknown[]): D1PreparedStatement
  run(): Promise<unknown>
}
interface D1Database {
  prepare(sql: string): D1PreparedStatement
}

interface WorkerEnv {
  DOCPILOT_PROXY?: unknown
  LIMITS?: DurableObjectNamespace
  FEEDBACK_DB?: D1Database
  [name: string]: unknown
}

type LimitsOp =
  | { op: 'take'; limit: RateLimit; now: number }
  | { op: 'spend'; limit: number; now: number }
  | { op: 'refund'; now: number }
  | { op: 'used'; now: number }

const json = (value: unknown) => new Response(JSON.stringify(value), { headers: { 'content-type': 'application/json' } })

/**
 * Durable state for the abuse limits. A Durable Object handles one request at a
 * time per instance, so read-modify-write on its storage cannot interleave.
 */
export class ProxyLimits {
  constructor(private readonly state: DurableObjectState) {}

  async fetch(request: Request): Promise<Response> {
    const op = (await request.json()) as LimitsOp
    if (op.op === 'take') {
      const { bucket, result } = takeToken(await this.state.storage.get<Bucket>('bucket'), op.limit, op.now)
      await this.state.storage.put('bucket', bucket)
      return json(result)
    }
    const day = dayKey(op.now)
    const resetAt = nextUtcMidnight(op.now)
    const counter = (await this.state.storage.get<{ day: string; used: number }>('daily')) ?? { day, used: 0 }
    if (op.op === 'refund') {
      // A unit of a day already over is not given back.
      if (counter.day === day && counter.used > 0) await this.state.storage.put('daily', { day, used: counter.used - 1 })
      return json({ ok: true })
    }
    const used = counter.day === day ? counter.used : 0
    if (op.op === 'used') return json(used)
    if (used >= op.limit) return json({ ok: false, used, resetAt } satisfies DailyResult)
    await this.state.storage.put('daily', { day, used: used + 1 })
    return json({ ok: true, used: used + 1, resetAt } satisfies DailyResult)
  }
}

class DurableLimits implements LimitStore {
  constructor(private readonly ns: DurableObjectNamespace) {}

  private async call<T>(name: string, op: LimitsOp): Promise<T> {
    const stub = this.ns.get(this.ns.idFromName(name))
    const res = await stub.fetch('https://limits/', { method: 'POST', body: JSON.stringify(op) })
    return (await res.json()) as T
  }

  take(client: string, limit: RateLimit, now: number): Promise<TakeResult> {
    return this.call(`client:${client}`, { op: 'take', limit, now })
  }

  spendDaily(limit: number, now: number): Promise<DailyResult> {
    return this.call('daily', { op: 'spend', limit, now })
  }

  async refundDaily(reservedAt: number): Promise<void> {
    await this.call('daily', { op: 'refund', now: reservedAt })
  }

  usedDaily(now: number): Promise<number> {
    return this.call('daily', { op: 'used', now })
  }
}

class D1Feedback implements FeedbackStore {
  private ready: Promise<unknown> | undefined
  constructor(private readonly db: D1Database) {}

  /** The tables, created once per isolate (IF NOT EXISTS: any isolate may be first). */
  private tables(): Promise<unknown> {
    this.ready ??= (async () => {
      await this.db.prepare(FEEDBACK_DDL).run()
      for (const ddl of EVENTS_DDL) await this.db.prepare(ddl).run()
    })()
    return this.ready
  }

  async save(row: FeedbackRow, deleteBefore: string): Promise<void> {
    await this.tables()
    await this.db.prepare(FEEDBACK_INSERT).bind(...feedbackParams(row)).run()
    await this.db.prepare(FEEDBACK_PRUNE).bind(deleteBefore).run()
  }

  async saveEvent(row: EventRow, deleteBefore: string): Promise<void> {
    await this.tables()
    await this.db.prepare(EVENT_INSERT).bind(...eventParams(row)).run()
    await this.db.prepare(EVENT_PRUNE).bind(deleteBefore).run()
  }

  async rateEvent({ id, tab, rating }: EventRating): Promise<void> {
    await this.tables()
    await this.db.prepare(EVENT_RATE).bind(rating, id, tab).run()
  }
}

const feedbackStores = new WeakMap<D1Database, D1Feedback>()
function feedbackStore(db: D1Database): D1Feedback {
  let store = feedbackStores.get(db)
  if (!store) feedbackStores.set(db, (store = new D1Feedback(db)))
  return store
}

let cached: { source: unknown; settings: ProxySettings } | undefined

function settingsOf(env: WorkerEnv): ProxySettings {
  if (cached && cached.source === env.DOCPILOT_PROXY) return cached.settings
  {
    if (env.DOCPILOT_PROXY === undefined) {
      throw new ProxyConfigError('DOCPILOT_PROXY is not set: add the [vars] block that `docpilot doctor --proxy` prints to wrangler.toml.')
    }
    let settings: ProxySettings
    try {
      settings = parseProxySettings(env.DOCPILOT_PROXY)
    } catch (err) {
      throw new ProxyConfigError(`DOCPILOT_PROXY: ${(err as Error).message}`)
    }
    // The proxy's own check would say to set it in docpilot.config, which a Worker never reads: the fix goes through DOCPILOT_PROXY.
    if (settings.proxy.siteOrigins.length === 0) {
      throw new ProxyConfigError(
        'proxy.siteOrigins is not set in DOCPILOT_PROXY: the proxy serves only pages from your own site, so it must know its origin. ' +
          "Set proxy.siteOrigins in docpilot.config, e.g. ['https://docs.example.com'], run `npx docpilot doctor --proxy --wrangler` again to rewrite DOCPILOT_PROXY in wrangler.toml, and deploy again.",
      )
    }
    cached = { source: env.DOCPILOT_PROXY, settings }
    return settings
  }
}

/**
 * The bindings the proxy keeps its state in, which a wrangler.toml of the
 * owner's own may lack (docs/proxy.md lets them paste DOCPILOT_PROXY into one).
 */
function bindingsOf(env: WorkerEnv): { limits: DurableObjectNamespace; feedbackDb: D1Database } {
  const written = 'to wrangler.toml, as `npx docpilot doctor --proxy --wrangler` writes'
  if (!env.LIMITS) {
    throw new ProxyConfigError(
      `The Worker has no LIMITS binding (the Durable Object that keeps the rate limits and the daily ceiling): add the [[durable_objects.bindings]] block (name = "LIMITS", class_name = "ProxyLimits") and its [[migrations]] block ${written} them.`,
    )
  }
  if (!env.FEEDBACK_DB) {
    throw new ProxyConfigError(
      `The Worker has no FEEDBACK_DB binding (the D1 database for feedback and insights): add the [[d1_databases]] block (binding = "FEEDBACK_DB") ${written} it, with the database_id that \`npx wrangler d1 create docpilot-feedback\` prints.`,
    )
  }
  return { limits: env.LIMITS, feedbackDb: env.FEEDBACK_DB }
}

function stringsOf(env: WorkerEnv): ProxyEnv {
  const out: ProxyEnv = {}
  for (const [k, v] of Object.entries(env)) if (typeof v === 'string') out[k] = v
  return out
}

/**
 * A Worker has no start-up to fail, so what `docpilot proxy` refuses at start
 * (no proxy.siteOrigins, a key that is not a header value) is checked on every
 * request and answered 503 proxy_misconfigured, naming the field or variable.
 */
const app = createProxyApp({
  env: (c) => stringsOf(c.env as WorkerEnv),
  runtime: (c, strings) => {
    const env = c.env as WorkerEnv
    const settings = settingsOf(env)
    const { limits, feedbackDb } = bindingsOf(env)
    return {
      settings,
      env: strings,
      limits: new DurableLimits(limits),
      feedback: feedbackStore(feedbackDb),
      clientIp: c.req.header('cf-connecting-ip') ?? 'unknown',
    }
  },
  mcp: originMcp,
})

export default app
