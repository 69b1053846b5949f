import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { FREE_ONLY_NOTE, MIXED_CHAIN_NOTE } from '../../core/chain/rationing.ts'
import { validateConfig } from '../../core/config/validate.ts'
import { startFakeProviders, type FakeProviders } from '../../fixtures/providers/index.ts'
import { listen, serveProxy, stopServer, type ServedProxy } from '../../proxy/node.ts'
import { parseProxySettings } from '../../proxy/settings.ts'
import { main } from '../main.ts'
import { proxyPlan, renderProxyPlan, runDoctorProxy } from './doctor.ts'

const tmp = () => mkdtempSync(join(tmpdir(), 'docpilot-doctor-'))

describe('doctor --proxy (printing)', () => {
  const env = { OPENAI_API_KEY: 'sk-doctor-openai-4b1d', OPENROUTER_API_KEY: 'sk-or-doctor-77aa' }
  const config = validateConfig({ chat: { chain: 'auto' } }, 'test')

  it('prints one route per member and protocol path, the key variable and whether it is set, never its value', () => {
    const text = renderProxyPlan(proxyPlan(config, env))
    expect(text).toMatch(/\/ai\/openai\/chat\/completions\s+openai\s+https:\/\/api\.openai\.com\/v1\/chat\/completions\s+OPENAI_API_KEY set/)
    // embed: 'auto' follows the head (openai), so the embeddings route is needed too.
    expect(text).toMatch(/\/ai\/openai\/embeddings\s+openai/)
    expect(text).toMatch(/\/ai\/openrouter\/chat\/completions\s+openrouter\s+https:\/\/openrouter\.ai\/api\/v1\/chat\/completions\s+OPENROUTER_API_KEY set/)
    for (const value of Object.values(env)) expect(text).not.toContain(value)
  })

  it('says when proxy.siteOrigins is missing (the proxy would refuse to start), and lists the origins when set', () => {
    expect(renderProxyPlan(proxyPlan(config, env))).toMatch(/Not set: proxy\.siteOrigins\. The proxy \(Node or Worker\) refuses to serve without your site's own origin; set it in docpilot\.config/)
    const set = validateConfig({ chat: { chain: 'auto' }, proxy: { siteOrigins: ['https://docs.example.com'] } }, 'test')
    const text = renderProxyPlan(proxyPlan(set, env))
    expect(text).not.toMatch(/Not set: proxy\.siteOrigins/)
    expect(text).toMatch(/origins: https:\/\/docs\.example\.com/)
  })

  it("prints the chat and the MCP route's per-client limits, each from its own config field", () => {
    const limits = validateConfig({ chat: { chain: 'auto' }, proxy: { rateLimit: { perMinute: 12, burst: 4 } }, mcp: { rateLimit: { perMinute: 90, burst: 45 } } }, 'test')
    expect(renderProxyPlan(proxyPlan(limits, env))).toContain('12/min per client (burst 4), /ai/mcp 90/min per client (burst 45), ')
    const closed = validateConfig({ chat: { chain: 'auto' }, mcp: { enabled: false } }, 'test')
    expect(renderProxyPlan(proxyPlan(closed, env))).not.toContain('/ai/mcp')
  })

  it('says when chat.maxTokens asks for longer answers than proxy.maxTokens lets through, and what to raise', () => {
    const origins = { siteOrigins: ['https://docs.example.com'] }
    const long = validateConfig({ chat: { chain: 'auto', maxTokens: 4000 }, proxy: origins }, 'test')
    expect(renderProxyPlan(proxyPlan(long, env))).toContain(
      'Note: chat.maxTokens (4000) is above proxy.maxTokens (2048), which the proxy clamps every request to: answers stop at 2048 tokens. Raise proxy.maxTokens to 4000 in docpilot.config (a Worker: then run doctor --proxy --wrangler again).',
    )
    const raised = validateConfig({ chat: { chain: 'auto', maxTokens: 4000 }, proxy: { ...origins, maxTokens: 4000 } }, 'test')
    expect(renderProxyPlan(proxyPlan(raised, env))).not.toContain('chat.maxTokens')
  })

  it('prints the mixed-chain rationing warning only when it applies', () => {
    expect(renderProxyPlan(proxyPlan(config, env))).toContain(MIXED_CHAIN_NOTE)
    const withCeiling = validateConfig({ chat: { chain: 'auto' }, budget: { dailyLimit: 200 } }, 'test')
    expect(renderProxyPlan(proxyPlan(withCeiling, env))).not.toContain(MIXED_CHAIN_NOTE)
    expect(renderProxyPlan(proxyPlan(config, { OPENAI_API_KEY: 'x' }))).not.toContain(MIXED_CHAIN_NOTE)
  })

  it("a free-tier-only chain gets the free tier's daily ceiling in the proxy settings, and says so", () => {
    const plan = proxyPlan(config, { OPENROUTER_API_KEY: 'sk-or-only' })
    expect(plan.settings.budget.dailyLimit).toBe(50)
    expect(renderProxyPlan(plan)).toContain(FREE_ONLY_NOTE)
    const stated = validateConfig({ chat: { chain: 'auto' }, budget: { dailyLimit: 1000 } }, 'test')
    expect(proxyPlan(stated, { OPENROUTER_API_KEY: 'sk-or-only' }).settings.budget.dailyLimit).toBe(1000)
    // A billed member has no free-tier day to ration against.
    expect(proxyPlan(config, { OPENAI_API_KEY: 'x' }).settings.budget.dailyLimit).toBeUndefined()
  })

  it('prints the wrangler secret commands, a DOCPILOT_PROXY value the Worker accepts, and nginx and Caddy snippets', () => {
    const text = renderProxyPlan(proxyPlan(config, env))
    expect(text).toContain('npx wrangler secret put OPENAI_API_KEY -c docpilot-proxy/wrangler.toml')
    expect(text).toContain('npx wrangler secret put OPENROUTER_API_KEY -c docpilot-proxy/wrangler.toml')
    expect(text).toContain('`npx docpilot doctor --proxy --wrangler docpilot-proxy/wrangler.toml` writes')
    const value = /DOCPILOT_PROXY = '(.*)'$/m.exec(text)?.[1]
    const settings = parseProxySettings(value!)
    expect(settings.routes.map((r) => r.member)).toEqual(['openai', 'openrouter'])
    expect(settings.routes[1]!.chatModels).toEqual(['openrouter/free'])
    expect(text).toContain('location /ai/ {\n      proxy_pass http://127.0.0.1:8787;')
    expect(text).toContain('handle /ai/* {\n      reverse_proxy 127.0.0.1:8787 {')
  })

  it('prints no nginx or Caddy config that attaches a key itself: that would relay any model, max_tokens and tool of the account', () => {
    for (const provider of ['openai', 'anthropic', 'gemini'] as const) {
      const text = renderProxyPlan(proxyPlan(validateConfig({ chat: { provider } }, 'test'), {}))
      expect(text, provider).not.toMatch(/proxy_set_header (Authorization|X-Api-Key|X-Goog-Api-Key) "[^"]/)
      expect(text, provider).not.toMatch(/header_up (Authorization|X-Api-Key|X-Goog-Api-Key) "/)
      expect(text, provider).not.toMatch(/_API_KEY\}/)
    }
  })

  it('says which required key is not set here', () => {
    const named = validateConfig({ chat: { provider: 'anthropic' } }, 'test')
    const text = renderProxyPlan(proxyPlan(named, {}))
    expect(text).toMatch(/\/ai\/anthropic\/messages\s+anthropic\s+.*ANTHROPIC_API_KEY NOT SET/)
    expect(text).toContain('Not set in this environment: ANTHROPIC_API_KEY')
  })
})

describe('doctor --proxy with nothing configured', () => {
  it('exits 0, says readers get search answers and what to set for model answers, and prints nothing on stderr', async () => {
    const o = { out: '', err: '' }
    const ctx = { cwd: tmp(), env: {}, stdout: (t: string) => (o.out += t), stderr: (t: string) => (o.err += t), stderrIsTTY: false }
    expect(await main(['doctor', '--proxy'], ctx)).toBe(0)
    expect(o.out).toContain('readers get search answers')
    expect(o.out).toMatch(/chat: \{ provider: 'openai' \}.*\n?.*OPENAI_API_KEY/s)
    expect(o.err).toBe('')
  })

  it('with a key, prints the routes and nothing on stderr', async () => {
    const o = { out: '', err: '' }
    const ctx = { cwd: tmp(), env: { OPENAI_API_KEY: 'sk-x' }, stdout: (t: string) => (o.out += t), stderr: (t: string) => (o.err += t), stderrIsTTY: false }
    expect(await main(['doctor', '--proxy'], ctx)).toBe(0)
    expect(o.out).toContain('/ai/openai/chat/completions')
    expect(o.err).toBe('')
  })
})

describe('doctor --proxy and the built index', () => {
  it("follows the index's embedder: an index built with the offline model needs no embeddings route, whatever embed 'auto' would pick with a key", async () => {
    const dir = tmp()
    writeFileSync(join(dir, 'docpilot.config.json'), JSON.stringify({ chat: { provider: 'openai' } }))
    const docs = join(dir, 'docs')
    mkdirSync(docs)
    writeFileSync(join(docs, 'guide.md'), '# Guide\n\nInstall the package and run the indexer.\n')
    const io = (env: Record<string, string>) => {
      const o = { out: '', err: '' }
      return { o, ctx: { cwd: dir, env, stdout: (t: string) => (o.out += t), stderr: (t: string) => (o.err += t), stderrIsTTY: false } }
    }
    // No key where the index is built: 'auto' takes the offline model.
    const built = io({})
    expect(await main(['index', 'docs', '--out', 'ix'], built.ctx)).toBe(0)
    expect(built.o.out).toContain('offline default model')
    // The proxy's environment has the key; the index still binds every reader to the offline model.
    const checked = io({ OPENAI_API_KEY: 'sk-x' })
    expect(await main(['doctor', '--proxy', '--index', 'ix'], checked.ctx)).toBe(0)
    expect(checked.o.out).toContain('/ai/openai/chat/completions')
    expect(checked.o.out).not.toContain('/ai/openai/embeddings')
    expect(checked.o.out).not.toContain('hosted embedder')
    // With no index yet, the config decides: 'auto' with a key means the head's embeddings.
    const none = io({ OPENAI_API_KEY: 'sk-x' })
    expect(await main(['doctor', '--proxy', '--index', 'no-index-here'], none.ctx)).toBe(0)
    expect(none.o.out).toContain('/ai/openai/embeddings')
  }, 60_000)
})

describe('doctor --proxy --wrangler', () => {
  const run = async (dir: string, args: string[]) => {
    const o = { out: '', err: '' }
    const ctx = { cwd: dir, env: { OPENAI_API_KEY: 'sk-x' }, stdout: (t: string) => (o.out += t), stderr: (t: string) => (o.err += t), stderrIsTTY: false }
    return { code: await main(['doctor', '--proxy', ...args], ctx), ...o }
  }

  it("writes a Worker config whose entry is this install's worker and whose DOCPILOT_PROXY is the plan's, and keeps the owner's edits when run again", async () => {
    const dir = tmp()
    const first = await run(dir, ['--wrangler'])
    expect(first.code).toBe(0)
    expect(first.out).toContain('wrote docpilot-proxy/wrangler.toml for this chain')
    const file = join(dir, 'docpilot-proxy', 'wrangler.toml')
    const text = readFileSync(file, 'utf8')
    const main = /^main = "(.+)"$/m.exec(text)?.[1]
    expect(existsSync(resolve(dirname(file), main!))).toBe(true)
    const value = /^DOCPILOT_PROXY = '(.*)'$/m.exec(text)?.[1]
    expect(parseProxySettings(value!).routes.map((r) => r.member)).toEqual(['openai'])
    expect(text).toContain('class_name = "ProxyLimits"')
    // In the owner's project a bare docs/agents.md names their own docs folder.
    expect(text).not.toMatch(/\(docs\/[a-z-]+\.md\)/)
    expect(text).toContain("(agents.md in docpilot's docs)")

    writeFileSync(file, text.replace('database_id = "00000000-0000-0000-0000-000000000000"', 'database_id = "my-real-id"'))
    writeFileSync(join(dir, 'docpilot.config.json'), JSON.stringify({ chat: { provider: 'openai', model: 'gpt-4.1-mini' } }))
    const again = await run(dir, ['--wrangler', 'docpilot-proxy/wrangler.toml'])
    expect(again.out).toContain('updated docpilot-proxy/wrangler.toml')
    const updated = readFileSync(file, 'utf8')
    expect(updated).toContain('database_id = "my-real-id"')
    expect(parseProxySettings(/^DOCPILOT_PROXY = '(.*)'$/m.exec(updated)![1]!).routes[0]!.chatModels).toEqual(['gpt-4.1-mini'])
  })

  it('a --url that is not a URL is a usage error before anything is printed or written', async () => {
    const dir = tmp()
    const r = await run(dir, ['--wrangler', '--url', 'docs.example.com'])
    expect(r.code).toBe(2)
    expect(r.err).toContain('--url must be an absolute URL such as https://docs.example.com (got "docs.example.com")')
    expect(r.out).toBe('')
    expect(existsSync(join(dir, 'docpilot-proxy'))).toBe(false)
    // Parsed as the scheme "localhost:", it would be fetched and reported unreachable.
    const schemeless = await run(dir, ['--url', 'localhost:8787'])
    expect(schemeless.code).toBe(2)
    expect(schemeless.err).toContain('(got "localhost:8787")')
  })

  it('asks for a file inside a folder given to --wrangler, instead of "EISDIR: illegal operation on a directory, read"', async () => {
    const dir = tmp()
    mkdirSync(join(dir, 'worker'))
    const r = await run(dir, ['--wrangler', 'worker'])
    expect(r.code).toBe(2)
    expect(r.err).toContain(`--wrangler worker is a folder; name the file to write, e.g. --wrangler ${join('worker', 'wrangler.toml')}`)
  })

  it('refuses to touch a file that is not a docpilot Worker config', async () => {
    const dir = tmp()
    writeFileSync(join(dir, 'wrangler.toml'), 'name = "my-site"\n')
    const r = await run(dir, ['--wrangler', 'wrangler.toml'])
    expect(r.code).toBe(1)
    expect(r.err).toContain('wrangler.toml has no `main =` and `DOCPILOT_PROXY =` lines to update')
    expect(readFileSync(join(dir, 'wrangler.toml'), 'utf8')).toBe('name = "my-site"\n')
  })
})

describe('doctor --proxy --url (checking a running proxy)', () => {
  let fakes: FakeProviders
  const running: ServedProxy[] = []
  const config = validateConfig({ chat: { chain: 'auto' }, embed: 'auto', proxy: { siteOrigins: ['https://docs.example.com'] } }, 'test')
  let env: Record<string, string>

  beforeAll(async () => {
    fakes = await startFakeProviders()
    const all = fakes.env()
    env = { OPENAI_API_KEY: all.OPENAI_API_KEY!, OPENAI_BASE_URL: all.OPENAI_BASE_URL!, GEMINI_API_KEY: all.GEMINI_API_KEY!, GEMINI_BASE_URL: all.GEMINI_BASE_URL! }
  })
  afterAll(async () => {
    for (const p of running) p.close()
    await fakes?.close()
  })

  /** A proxy deployed with the routes `cfg` needs in the full environment, running with `proxyEnv`. */
  const serve = async (proxyEnv: Record<string, string>, cfg = config) => {
    const plan = proxyPlan(cfg, env)
    const p = await serveProxy({ settings: plan.settings, env: proxyEnv, dbPath: ':memory:' })
    running.push(p)
    return p
  }

  const run = async (url: string, checkEnv = env) => {
    let out = ''
    const code = await runDoctorProxy({ config, env: checkEnv, url, stdout: (t) => (out += t) })
    return { code, out }
  }

  it('passes route by route against a proxy that has every key, without spending a chat or embedding request', async () => {
    const p = await serve(env)
    await fakes.reset()
    const { code, out } = await run(p.url)
    expect(out).toContain('All routes ok.')
    expect(out).toMatch(/ok {3}\/ai\/openai\/chat\/completions/)
    expect(out).toMatch(/ok {3}\/ai\/gemini\/models\/gemini-2\.0-flash:streamGenerateContent/)
    expect(code).toBe(0)
    const spent = (await fakes.requests()).filter((r) => r.endpoint === 'chat' || r.endpoint === 'embed')
    expect(spent).toEqual([])
    expect(out).not.toContain(env.OPENAI_API_KEY)
  })

  it('fails naming the variable when the proxy lacks a key, and when the upstream refuses one', async () => {
    const { GEMINI_API_KEY: _, ...noGemini } = env
    const missing = await serve(noGemini)
    const a = await run(missing.url)
    expect(a.code).toBe(1)
    expect(a.out).toContain('FAIL gemini: GEMINI_API_KEY is not set on the proxy')
    // Its path is routed, and only that: not an "ok" beside the member's FAIL.
    expect(a.out).toMatch(/note \/ai\/gemini\/\S+ is routed, but gemini cannot answer \(above\)/)
    expect(a.out).not.toMatch(/ok {3}\/ai\/gemini\//)

    const wrong = await serve({ ...env, OPENAI_API_KEY: 'sk-wrong-doctor-key' })
    const b = await run(wrong.url)
    expect(b.code).toBe(1)
    expect(b.out).toMatch(/FAIL openai: the upstream refused OPENAI_API_KEY \(401\)/)
    expect(b.out).not.toContain('sk-wrong-doctor-key')
  })

  it("says when the site's daily limit is spent (the proxy's health answers 503 then), and still checks every route", async () => {
    const capped = validateConfig({ chat: { chain: 'auto' }, embed: 'auto', proxy: { siteOrigins: ['https://docs.example.com'] }, budget: { dailyLimit: 1 } }, 'test')
    const p = await serve(env, capped)
    const chat = await fetch(`${p.url}/ai/openai/chat/completions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ model: 'gpt-4o-mini', stream: false, messages: [{ role: 'user', content: 'hi' }] }) })
    expect(chat.status).toBe(200)
    const { code, out } = await run(p.url)
    expect(out).toMatch(/note the site's daily limit of 1 AI requests \(budget\.dailyLimit\) is spent; readers get the rate-limited answer until \d{4}-\d\d-\d\dT00:00:00\.000Z/)
    expect(out).toContain('All routes ok.')
    expect(code).toBe(0)
  })

  it('with no provider configured, says readers get search answers rather than "All routes ok." over no routes', async () => {
    const none = validateConfig({ proxy: { siteOrigins: ['https://docs.example.com'] } }, 'test')
    const p = await serveProxy({ settings: proxyPlan(none, {}).settings, env: {}, dbPath: ':memory:' })
    running.push(p)
    let out = ''
    const code = await runDoctorProxy({ config: none, env: {}, url: p.url, stdout: (t) => (out += t) })
    expect(out).toContain('No provider routes to check: readers get search answers')
    expect(out).not.toContain('All routes ok.')
    expect(code).toBe(0)
  })

  it('fails when the running proxy does not serve a route the config needs', async () => {
    const onlyOpenai = validateConfig({ chat: { provider: 'openai' }, proxy: { siteOrigins: ['https://docs.example.com'] } }, 'test')
    const p = await serve(env, onlyOpenai)
    const { code, out } = await run(p.url)
    expect(code).toBe(1)
    expect(out).toContain('FAIL gemini: the running proxy has no route for it')
    expect(out).toMatch(/FAIL \/ai\/gemini\/models\/gemini-2\.0-flash:streamGenerateContent: 404 unknown_member/)
  })

  it("waits out the proxy's own per-client limit instead of failing routes that are fine", async () => {
    // A burst smaller than the check's requests (health and one POST per route), refilled each second.
    const tight = validateConfig({ ...config, proxy: { siteOrigins: ['https://docs.example.com'], rateLimit: { perMinute: 60, burst: 2 } } }, 'test')
    const p = await serve(env, tight)
    let out = ''
    const code = await runDoctorProxy({ config: tight, env, url: p.url, stdout: (t) => (out += t) })
    expect(out).not.toContain('FAIL')
    expect(out).toContain('All routes ok.')
    expect(code).toBe(0)
  })

  it("passes on a docpilot proxy's own refusal of the health check as it is, and asks whether it is a docpilot proxy only when it is not", async () => {
    const refusing = await serveProxy({ settings: proxyPlan(config, env).settings, env, dbPath: ':memory:', siteOrigins: () => [] })
    running.push(refusing)
    const a = await run(refusing.url)
    expect(a.code).toBe(1)
    expect(a.out).toMatch(/FAIL http:\/\/127\.0\.0\.1:\d+\/ai\/health answered 503 proxy_misconfigured: proxy\.siteOrigins is not set: .*\)\.\n/)
    expect(a.out).not.toContain('is this a docpilot proxy')

    const site = await listen(() => new Response('<h1>Not found</h1>', { status: 404, headers: { 'content-type': 'text/html' } }), 0, '127.0.0.1')
    const b = await run(`http://127.0.0.1:${(site.address() as AddressInfo).port}`).finally(() => stopServer(site))
    expect(b.code).toBe(1)
    expect(b.out).toMatch(/answered 404; is this a docpilot proxy \(and is \/ai\/ routed to it\)\?/)
  })

  it('fails when nothing answers at the URL', async () => {
    const { code, out } = await run('http://127.0.0.1:9')
    expect(code).toBe(1)
    expect(out).toMatch(/FAIL http:\/\/127\.0\.0\.1:9\/ai\/health is unreachable/)
  })

  it('runs as `docpilot doctor --proxy` with exit codes 0, 1 and 2', async () => {
    const dir = tmp()
    writeFileSync(join(dir, 'docpilot.config.json'), JSON.stringify({ chat: { chain: 'auto' } }))
    const p = await serve(env)
    const io = () => {
      const o = { out: '', err: '' }
      return { o, ctx: { cwd: dir, env, stdout: (t: string) => (o.out += t), stderr: (t: string) => (o.err += t), stderrIsTTY: false } }
    }
    const ok = io()
    expect(await main(['doctor', '--proxy', '--url', p.url], ok.ctx)).toBe(0)
    expect(ok.o.out).toContain('All routes ok.')
    const failing = io()
    expect(await main(['doctor', '--proxy', '--url', 'http://127.0.0.1:9'], failing.ctx)).toBe(1)
    const usage = io()
    expect(await main(['doctor'], usage.ctx)).toBe(2)
    expect(usage.o.err).toContain('docpilot doctor --proxy')
  })
})
