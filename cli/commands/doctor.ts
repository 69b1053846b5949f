/**
 * `docpilot doctor --proxy`: the proxy routes the current config and
 * environment need, how to deploy them (Workers secrets, or nginx / Caddy),
 * and with --url a route-by-route check of a running proxy. Key variables are
 * named and reported set or not set; a value is never printed.
 */
import { existsSync, readFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { Command } from 'commander'
import type { DocpilotConfig } from '../../core/config/schema.ts'
import { MANIFEST_FILE } from '../../core/index/format.ts'
import { parseManifest } from '../../core/index/read-manifest.ts'
import { providerSpec, type MemberId } from '../../core/providers/table.ts'
import { keyRequired, upstreamBase } from '../../proxy/app.ts'
import { proxySettingsFromConfig, type ConfigProxySettings, type HostedEmbedder } from '../../proxy/from-config.ts'
import { routePaths, type RouteKind } from '../../proxy/protocol.ts'
import type { ProxyRoute } from '../../proxy/settings.ts'
import { CONFIG_OPTION_HELP } from '../config-file.ts'
import { DEFAULT_WRANGLER_FILE, settingsLine, writeWranglerConfig } from '../wrangler-config.ts'
import { indexDirFor, loadConfigFor, UsageError, type CliContext } from '../context.ts'

type Env = Record<string, string | undefined>

export interface RouteLine {
  member: MemberId
  kind: RouteKind
  /** Same-origin path the panel posts to (Gemini's first declared model filled in). */
  path: string
  /** Protocol path below the member's base URL. */
  upstreamPath: string
  /** The query the upstream is called with (Gemini's chat: `alt=sse`), or ''. */
  query: string
  upstream: string | null
  keyEnv: string | null
  keyRequired: boolean
  keySet: boolean | null
  baseUrlEnv: string
}

export interface ProxyPlan extends ConfigProxySettings {
  lines: RouteLine[]
  /** The output-token ceiling the panel asks for (chat.maxTokens), which proxy.maxTokens clamps. */
  answerMaxTokens: number
}

export function proxyPlan(config: DocpilotConfig, env: Env, manifestEmbedder?: HostedEmbedder | null): ProxyPlan {
  const planned = proxySettingsFromConfig(config, env, manifestEmbedder)
  const lines: RouteLine[] = []
  for (const route of planned.settings.routes) {
    const spec = providerSpec(route.member)
    const base = upstreamBase(spec, route, env) ?? null
    for (const kind of ['chat', 'embed'] as const) {
      const models = kind === 'chat' ? route.chatModels : route.embedModels
      if (!models.length) continue
      for (const { path: upstreamPath, query } of routePaths(spec.protocol, [kind], models[0])) {
        lines.push({
          member: route.member,
          kind,
          path: `/ai/${route.member}/${upstreamPath}`,
          upstreamPath,
          query,
          upstream: base ? `${base}/${upstreamPath}` : null,
          keyEnv: spec.keyEnv ?? null,
          keyRequired: keyRequired(spec),
          keySet: spec.keyEnv ? Boolean(env[spec.keyEnv]?.trim()) : null,
          baseUrlEnv: spec.baseUrlEnv,
        })
      }
    }
  }
  return { ...planned, lines, answerMaxTokens: config.chat.maxTokens }
}

const pad = (s: string, n: number) => (s.length >= n ? `${s}  ` : s + ' '.repeat(n - s.length))

function keyState(l: Pick<RouteLine, 'keyEnv' | 'keySet' | 'keyRequired'>): string {
  if (!l.keyEnv) return 'no key needed'
  if (l.keySet) return `${l.keyEnv} set`
  return l.keyRequired ? `${l.keyEnv} NOT SET` : `${l.keyEnv} not set (optional)`
}

/*
 * Only in front of the docpilot proxy: a reverse proxy that attached the keys itself would relay any model,
 * any max_tokens and any tool of the account to whoever finds the route, with nothing counted.
 */
const NGINX_SNIPPET = [
  '# docpilot proxy behind nginx (run it as `docpilot proxy --trust-proxy`):',
  'location /ai/ {',
  '    proxy_pass http://127.0.0.1:8787;',
  '    proxy_set_header Host $host;',
  '    proxy_set_header X-Forwarded-For $remote_addr;   # run it with --trust-proxy',
  '    proxy_buffering off;            # stream deltas as they arrive',
  '    proxy_read_timeout 120s;',
  '}',
].join('\n')

const CADDY_SNIPPET = [
  '# docpilot proxy behind Caddy (run it as `docpilot proxy --trust-proxy`):',
  'handle /ai/* {',
  '    reverse_proxy 127.0.0.1:8787 {',
  '        flush_interval -1',
  '    }',
  '}',
].join('\n')

/** Everything `doctor --proxy` prints without --url. */
export function renderProxyPlan(plan: ProxyPlan, wranglerFile = DEFAULT_WRANGLER_FILE, wrote?: string): string {
  const out: string[] = []
  const members = plan.resolved.members.map((m) => m.provider)
  out.push(`Proxy routes for this config (chat chain: ${members.join(' -> ') || 'empty'}${plan.embedder ? `; hosted embedder: ${plan.embedder.provider} ${plan.embedder.model}` : ''})`)
  out.push('')
  const w = Math.max(...plan.lines.map((l) => l.path.length), 10) + 2
  const wu = Math.max(...plan.lines.map((l) => (l.upstream ?? '').length), 10) + 2
  out.push(`  ${pad('route', w)}${pad('member', 12)}${pad('upstream', wu)}key`)
  for (const l of plan.lines) {
    out.push(`  ${pad(l.path, w)}${pad(l.member, 12)}${pad(l.upstream ?? `(set ${l.baseUrlEnv})`, wu)}${keyState(l)}`)
  }
  out.push('')
  out.push(`Models allowed: ${plan.settings.routes.map((r) => `${r.member}: ${[...r.chatModels, ...r.embedModels].join(', ')}`).join('; ')}`)
  const { maxBodyBytes, maxTokens, rateLimit, siteOrigins, allowedOrigins } = plan.settings.proxy
  const mcp = plan.settings.mcp
  out.push(
    `Limits: body ${maxBodyBytes} B, max_tokens clamped to ${maxTokens}, ${rateLimit.perMinute}/min per client (burst ${rateLimit.burst}), ` +
      (mcp.enabled ? `/ai/mcp ${mcp.rateLimit.perMinute}/min per client (burst ${mcp.rateLimit.burst}), ` : '') +
      `daily ceiling ${plan.settings.budget.dailyLimit ?? 'none'}, origins: ${[...siteOrigins, ...allowedOrigins].join(', ') || 'none'}`,
  )
  if (siteOrigins.length === 0 && plan.settings.routes.length > 0) {
    out.push('')
    out.push(
      "Not set: proxy.siteOrigins. The proxy (Node or Worker) refuses to serve without your site's own origin; set it in docpilot.config, " +
        "e.g. proxy: { siteOrigins: ['https://docs.example.com'] } (scheme and host, the address readers open). `docpilot dev` and `preview` use their own address.",
    )
  }
  if (plan.answerMaxTokens > maxTokens && plan.settings.routes.length > 0) {
    out.push('')
    out.push(
      `Note: chat.maxTokens (${plan.answerMaxTokens}) is above proxy.maxTokens (${maxTokens}), which the proxy clamps every request to: answers stop at ${maxTokens} tokens. ` +
        `Raise proxy.maxTokens to ${plan.answerMaxTokens} in docpilot.config (a Worker: then run doctor --proxy --wrangler again).`,
    )
  }
  if (plan.resolved.rationing.note) {
    out.push('')
    out.push(`${plan.resolved.rationing.enabled ? 'Note' : 'Warning'}: ${plan.resolved.rationing.note}`)
  }
  const missing = [...new Set(plan.lines.filter((l) => l.keyRequired && !l.keySet).map((l) => l.keyEnv!))]
  if (missing.length) {
    out.push('')
    out.push(`Not set in this environment: ${missing.join(', ')}. The proxy needs them where it runs (a Worker's secrets, or the Node process's environment).`)
  }

  const keyVars = [...new Set(plan.lines.filter((l) => l.keyEnv).map((l) => l.keyEnv!))]
  const urlVars = [...new Set(plan.lines.filter((l) => providerSpec(l.member).ownServer).map((l) => l.baseUrlEnv))]
  out.push('')
  const toml = wranglerFile
  out.push(`Cloudflare Workers: ${wrote ?? `\`npx docpilot doctor --proxy --wrangler ${toml}\` writes the Worker's config for this chain`}`)
  out.push('(DOCPILOT_PROXY holds the routes, models and limits). Create the feedback database once (put the id it prints')
  out.push(`into database_id in ${toml}), store each key as a secret (never a var), and deploy:`)
  out.push('  npx wrangler d1 create docpilot-feedback')
  for (const k of keyVars) out.push(`  npx wrangler secret put ${k} -c ${toml}`)
  for (const u of urlVars) out.push(`  npx wrangler secret put ${u} -c ${toml}    # your own server's URL`)
  out.push(`  npx wrangler deploy -c ${toml}`)
  out.push('The value, to paste under [vars] in a wrangler.toml of your own instead (with the LIMITS and FEEDBACK_DB bindings the written file holds):')
  out.push(`  ${settingsLine(plan.settings)}`)
  out.push('')
  out.push('nginx:')
  out.push(NGINX_SNIPPET.replace(/^/gm, '  '))
  out.push('')
  out.push('Caddy:')
  out.push(CADDY_SNIPPET.replace(/^/gm, '  '))
  return out.join('\n') + '\n'
}

export interface CheckResult {
  ok: boolean
  text: string
}

interface HealthRoute {
  member: string
  keyEnv: string | null
  keyRequired: boolean
  keySet: boolean | null
  upstreamConfigured: boolean
  probe?: { status: number | null; result: string }
}

/** The site's daily ceiling as /ai/health reports it (null without budget.dailyLimit). */
interface HealthDaily {
  limit: number
  used: number
  resetAt: string
}

/** The longest the check waits out the proxy's own rate limit, in all. */
const RATE_LIMIT_WAIT_MS = 60_000

/** Checks a running proxy route by route, spending no provider tokens and no daily quota. */
export async function checkRunningProxy(url: string, plan: ProxyPlan, doFetch: typeof fetch = fetch): Promise<CheckResult> {
  const base = url.replace(/\/+$/, '')
  const out: string[] = [`Checking the proxy at ${base}`]
  let ok = true
  const fail = (line: string) => {
    ok = false
    out.push(`  FAIL ${line}`)
  }
  // The proxy's per-client limit is meant for readers, and a long chain (or a second run soon
  // after the first) asks more at once than its burst: wait as its Retry-After says instead of
  // failing routes that are fine, up to a minute in all.
  let waited = 0
  const ask = async (path: string, init: RequestInit, timeoutMs: number) => {
    for (;;) {
      const res = await doFetch(`${base}${path}`, { ...init, signal: AbortSignal.timeout(timeoutMs) })
      const body = (await res.json().catch(() => undefined)) as { routes?: HealthRoute[]; daily?: HealthDaily | null; error?: { code: string; message: string } } | undefined
      const wait = Number(res.headers.get('retry-after')) * 1000
      if (res.status !== 429 || body?.error?.code !== 'rate_limited' || !(wait > 0) || waited + wait > RATE_LIMIT_WAIT_MS) return { res, body }
      waited += wait
      await new Promise((done) => setTimeout(done, wait))
    }
  }
  let health: { routes: HealthRoute[] } | undefined
  try {
    const { res, body } = await ask('/ai/health?probe=1', {}, 20_000)
    // 503 with the routes is the proxy saying readers would get no answer (a route that cannot serve, a spent day): the lines below say which.
    if ((res.status === 200 || res.status === 503) && Array.isArray(body?.routes)) {
      health = { routes: body.routes }
      out.push(`  ok   ${base}/ai/health answers`)
      const daily = body.daily
      if (daily && daily.used >= daily.limit) {
        out.push(`  note the site's daily limit of ${daily.limit} AI requests (budget.dailyLimit) is spent; readers get the rate-limited answer until ${daily.resetAt}`)
      } else if (daily) out.push(`  ok   daily limit: ${daily.used} of ${daily.limit} AI requests used today`)
    } else {
      // A refusal in the proxy's own words already says what to fix; anything else may not be the proxy at all.
      fail(`${base}/ai/health answered ${res.status}${body?.error ? ` ${body.error.code}: ${body.error.message}` : '; is this a docpilot proxy (and is /ai/ routed to it)?'}`)
    }
  } catch (err) {
    fail(`${base}/ai/health is unreachable (${(err as Error).message}); is the proxy running at this URL?`)
  }
  if (!health) return { ok, text: out.join('\n') + '\n' }

  const cannotAnswer = new Set<string>()
  for (const route of plan.settings.routes) {
    const h = health.routes.find((r) => r.member === route.member)
    const problem = memberProblem(route.member, h)
    if (problem) {
      cannotAnswer.add(route.member)
      fail(`${route.member}: ${problem}`)
    } else if (h) out.push(`  ok   ${route.member}: ${h.keyEnv ? `${h.keyEnv} set, ` : ''}upstream answered (${h.probe?.status ?? 'not probed'})`)
  }

  // Each route: a body that cannot be JSON is refused by the proxy itself (400) only once the
  // member and path are known to it, so nothing reaches the upstream and nothing is spent.
  for (const l of plan.lines) {
    try {
      const { res, body } = await ask(l.path, { method: 'POST', headers: { 'content-type': 'application/json' }, body: 'doctor' }, 10_000)
      const code = body?.error?.code
      // Routed is all this shows: whether the member can answer is its line above.
      if (res.status === 400 && code === 'invalid_body') out.push(cannotAnswer.has(l.member) ? `  note ${l.path} is routed, but ${l.member} cannot answer (above)` : `  ok   ${l.path}`)
      else if (res.status === 429) fail(`${l.path}: the proxy rate-limited the check (${code}); run doctor again in ${res.headers.get('retry-after') ?? 'a few'} s`)
      else fail(`${l.path}: ${res.status}${code ? ` ${code}: ${body?.error?.message}` : ''}`)
    } catch (err) {
      fail(`${l.path}: ${(err as Error).message}`)
    }
  }
  if (!plan.settings.routes.length) out.push(ok ? 'No provider routes to check: readers get search answers, as this configuration says.' : 'The proxy failed; see FAIL lines above.')
  else out.push(ok ? 'All routes ok.' : 'Some routes failed; see FAIL lines above.')
  return { ok, text: out.join('\n') + '\n' }
}

/** Why a member of the running proxy cannot answer, as its /ai/health line says (`h` absent: no route for it), or undefined. */
function memberProblem(member: MemberId, h: HealthRoute | undefined): string | undefined {
  const spec = providerSpec(member)
  if (!h) return 'the running proxy has no route for it; redeploy with the DOCPILOT_PROXY value printed by `docpilot doctor --proxy`'
  if (h.keyRequired && !h.keySet) return `${h.keyEnv} is not set on the proxy; set it (wrangler secret put ${h.keyEnv}, or the Node process's environment)`
  if (!h.upstreamConfigured) return `no upstream URL on the proxy; set ${spec.baseUrlEnv}`
  if (h.probe?.result === 'auth') return `the upstream refused ${h.keyEnv ?? 'the request'} (${h.probe.status}); check the key's value`
  if (h.probe?.result === 'unreachable') return `the proxy cannot reach its upstream; check ${spec.baseUrlEnv} and the network`
  if (h.probe && h.probe.result !== 'ok') return `the upstream's model list answered ${h.probe.status}`
  return undefined
}

/** The hosted embedder the built index is bound to; null for an index bound to a local embedder; undefined with no (readable) index. */
export function manifestEmbedder(indexDir: string): HostedEmbedder | null | undefined {
  const file = join(indexDir, MANIFEST_FILE)
  if (!existsSync(file)) return undefined
  try {
    const e = parseManifest(readFileSync(file)).embedder
    return e?.kind === 'hosted' && e.provider ? { kind: 'hosted', provider: e.provider, model: e.model } : null
  } catch {
    return undefined
  }
}

interface DoctorFlags {
  proxy?: boolean
  url?: string
  wrangler?: string | true
  config?: string
  index?: string
}

export function defineDoctorCommand(program: Command, ctx: CliContext): void {
  program
    .command('doctor')
    .summary('check your setup: the proxy routes your chain needs')
    .description(
      'With --proxy: print the same-origin /ai/... routes the current config and environment need (one per chain member,\n' +
        'plus the hosted embedder), the upstream each maps to, the key variable each needs and whether it is set here\n' +
        '(never its value); how to deploy it on Cloudflare Workers (--wrangler writes the Worker\'s wrangler.toml); nginx\n' +
        'and Caddy equivalents. With --url, also check a running proxy route by route; any failure exits 1.',
    )
    .option('--proxy', 'check the proxy setup')
    .option('--url <url>', 'a running proxy (the docs site origin, or the Node proxy) to check route by route')
    .option('--wrangler [file]', `write (or update) the Cloudflare Worker's wrangler.toml for this config (default file: ${DEFAULT_WRANGLER_FILE})`)
    .option('--config <file>', CONFIG_OPTION_HELP)
    .option('--index <dir>', 'built index whose embedder the proxy must serve (default: `out` from the config)')
    .addHelpText(
      'after',
      `
Examples:
  $ docpilot doctor --proxy
  $ docpilot doctor --proxy --wrangler                       writes ${DEFAULT_WRANGLER_FILE}
  $ docpilot doctor --proxy --url https://docs.example.com
  $ docpilot doctor --proxy --url http://127.0.0.1:8787

The check uses GET /ai/health?probe=1 (each upstream's model list: no tokens, no daily quota)
and one deliberately malformed POST per route, which the proxy refuses before any upstream call.`,
    )
    .action(async (flags: DoctorFlags) => {
      if (!flags.proxy) throw new UsageError('say what to check: `docpilot doctor --proxy` (add --url URL to check a running proxy)')
      const loaded = await loadConfigFor(ctx, flags.config)
      const code = await runDoctorProxy({
        config: loaded.config,
        env: ctx.env,
        ...(flags.url ? { url: flags.url } : {}),
        embedder: manifestEmbedder(indexDirFor(ctx, loaded, flags.index)),
        ...(flags.wrangler ? { wrangler: flags.wrangler === true ? DEFAULT_WRANGLER_FILE : flags.wrangler } : {}),
        cwd: ctx.cwd,
        stdout: ctx.stdout,
      })
      // main() turns a thrown error into exit code 1.
      if (code !== 0) throw new Error('doctor: the proxy check failed (FAIL lines above).')
    })
}

export interface DoctorProxyOptions {
  config: DocpilotConfig
  env: Env
  url?: string
  /** The built index's embedder (manifestEmbedder): null for a local one, undefined with no index. */
  embedder?: HostedEmbedder | null | undefined
  /** Write (or update) the Worker's wrangler.toml at this path, relative to cwd. */
  wrangler?: string
  cwd?: string
  stdout: (text: string) => void
  fetch?: typeof fetch
}

/** Prints the plan (and, with a URL, the check); returns the exit code. */
export async function runDoctorProxy(opts: DoctorProxyOptions): Promise<number> {
  // A usage error comes before the report and before --wrangler writes anything.
  const url = opts.url === undefined ? undefined : absoluteUrl(opts.url)
  const plan = proxyPlan(opts.config, opts.env, opts.embedder)
  if (plan.lines.length === 0) {
    opts.stdout(NO_ROUTES)
    if (opts.wrangler) opts.stdout(`Nothing to deploy, so ${opts.wrangler} was not written.\n`)
  } else if (opts.wrangler) {
    const { created } = await writeWranglerConfig(resolve(opts.cwd ?? process.cwd(), opts.wrangler), opts.wrangler, plan.settings)
    opts.stdout(renderProxyPlan(plan, opts.wrangler, `${created ? 'wrote' : 'updated'} ${opts.wrangler} for this chain`))
  } else {
    opts.stdout(renderProxyPlan(plan))
  }
  if (!url) return 0
  opts.stdout('\n')
  const result = await checkRunningProxy(url.toString(), plan, opts.fetch)
  opts.stdout(result.text)
  return result.ok ? 0 : 1
}

/** --url as a URL to fetch: `localhost:8787` parses too (as the scheme "localhost:"), and is refused with the rest. */
function absoluteUrl(text: string): URL {
  const url = URL.canParse(text) ? new URL(text) : undefined
  if (url && (url.protocol === 'http:' || url.protocol === 'https:')) return url
  throw new UsageError(`--url must be an absolute URL such as https://docs.example.com (got "${text}")`)
}

/** An empty chain is a working setup (search answers), not a failure: say what readers get and what turns models on. */
export const NO_ROUTES =
  'No proxy routes: no chat provider is configured, so readers get search answers (the ranked passages, no model).\n' +
  'For model answers, name a provider in the config (chat: { provider: \'openai\' }) or set its key where you run\n' +
  'docpilot index and this command (e.g. OPENAI_API_KEY); `docpilot doctor --proxy` then lists the routes to deploy.\n'

export type { ProxyRoute }
