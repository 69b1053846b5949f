/**
 * The proxy's MCP route under real Node and real `wrangler dev`, driven by
 * the official SDK client: tools and resources listed, search_docs finds a
 * dev question's gold section with the question embedded in the server,
 * get_page returns the page's Markdown copy, and the route is admitted like
 * every other /ai route (origin, method, body cap, rate limit). On Node the
 * index and page copies come from disk; the Worker fetches them from the
 * site's static host.
 */
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { Client } from '@modelcontextprotocol/client'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { matchesGold } from '../core/eval/score.ts'
import type { SearchDocsOutput } from '../core/mcp/docs-server.ts'
import { MCP_PATH } from './mcp.ts'
import { buildCorpusSite, connectHttp, devQuestions, serveSiteFolder, type BuiltSite } from './mcp-testing.ts'
import { serveProxy } from './node.ts'
import { parseProxySettings, type ProxySettingsInput } from './settings.ts'
import { startWorkerProxy, type Runtime } from './testing.ts'
import { startFakeProviders, type FakeProviders } from '../fixtures/providers/index.ts'
import { findKeys } from '../core/key-scan.ts'
import { routesFor } from './settings.ts'

const MAX_BODY = 4096
const BURST = 40
const FOREIGN = 'https://evil.example'

let site: BuiltSite
let host: Awaited<ReturnType<typeof serveSiteFolder>>

beforeAll(async () => {
  site = await buildCorpusSite('hono')
  // The site's own static host: what the Worker fetches from.
  host = await serveSiteFolder(site.siteDir)
}, 180_000)

afterAll(async () => {
  await host?.close()
  await site?.close()
})

/** A dev question whose gold section the panel's search ranks in its top 8 (checked, not assumed, below). */
const QUESTION = devQuestions('hono').find((q) => q.id === 'hono-d-001')!

/** The site's own origin is its static host: the Worker fetches the index (mcp.indexUrl, /docpilot/ by default) and the page copies from it; Node reads the folders it was given. */
function settings(): ProxySettingsInput {
  // Readers' chat bucket holds one request, agents' MCP bucket BURST: a burst of agent requests must leave readers theirs.
  return { routes: [], proxy: { siteOrigins: [host.url], maxBodyBytes: MAX_BODY, rateLimit: { perMinute: 1, burst: 1 } }, mcp: { rateLimit: { perMinute: 1, burst: BURST } } }
}

describe.each<Runtime>(['node', 'workers'])('MCP on the %s proxy', (runtime) => {
  let url: string
  let stop: () => Promise<void>
  let client: Client

  beforeAll(async () => {
    if (runtime === 'node') {
      const served = await serveProxy({ settings: parseProxySettings(settings()), env: {}, dbPath: ':memory:', mcp: { indexDir: site.indexDir, siteDir: site.siteDir } })
      url = served.url
      stop = async () => served.close()
    } else {
      const worker = await startWorkerProxy({ settings: settings(), env: {}, statePath: mkdtempSync(join(tmpdir(), 'docpilot-mcp-persist-')) })
      url = worker.url
      stop = worker.stop
    }
    client = await connectHttp(`${url}${MCP_PATH}`)
  }, 300_000)

  afterAll(async () => {
    await client?.close()
    await stop?.()
  })

  it('lists the two tools and the llms.txt resources', async () => {
    const tools = (await client.listTools()).tools
    expect(tools.map((t) => t.name).sort()).toEqual(['get_page', 'search_docs'])
    expect(tools.find((t) => t.name === 'search_docs')!.inputSchema.required).toEqual(['query'])
    const resources = (await client.listResources()).resources
    expect(resources.map((r) => r.name)).toEqual(['llms.txt', 'llms-full.txt'])
    const llms = await client.readResource({ uri: resources[0]!.uri })
    expect((llms.contents[0] as { text: string }).text).toContain('[Context](/docs/api/context.md)')
  })

  it('search_docs embeds the question in the server and ranks the gold section', async () => {
    const res = await client.callTool({ name: 'search_docs', arguments: { query: QUESTION.q } })
    const out = res.structuredContent as unknown as SearchDocsOutput
    expect(res.isError).toBeFalsy()
    expect(out.mode).toBe('hybrid')
    expect(out.degraded).toBe(false)
    expect(out.gate.pass).toBe(true)
    expect(out.results).toHaveLength(8)
    const gold = out.results.find((r) => QUESTION.gold.some((g) => matchesGold(r, g)))
    expect(gold, `gold ${JSON.stringify(QUESTION.gold)} in ${JSON.stringify(out.results.map((r) => r.trail))}`).toBeDefined()
    expect(gold!.text.length).toBeGreaterThan(40)
    const text = (res.content as Array<{ text: string }>)[0]!.text
    expect(text).toContain(gold!.url)
  })

  it("search_docs cites each passage by an absolute link on the site's origin, which get_page takes back", async () => {
    const res = await client.callTool({ name: 'search_docs', arguments: { query: 'how do I set a signed cookie?', limit: 3 } })
    const out = res.structuredContent as unknown as SearchDocsOutput
    for (const r of out.results) expect(r.url).toBe(`${host.url}/${r.path.replace(/\.md$/, '')}${r.anchor ? `#${r.anchor}` : ''}`)
    const text = (res.content as Array<{ text: string }>)[0]!.text
    for (const r of out.results) expect(text).toContain(`\n${r.url}\n`)
    const page = await client.callTool({ name: 'get_page', arguments: { page: out.results[0]!.url } })
    expect(page.isError).toBeFalsy()
    expect((page.content as Array<{ text: string }>)[0]!.text).toMatch(/^# Cookie Helper\n/)
  })

  it('search_docs honours limit', async () => {
    const res = await client.callTool({ name: 'search_docs', arguments: { query: 'cookie', limit: 2 } })
    expect((res.structuredContent as unknown as SearchDocsOutput).results).toHaveLength(2)
  })

  it('get_page returns the Markdown copy of a result, by URL with its anchor and by source path', async () => {
    const byUrl = await client.callTool({ name: 'get_page', arguments: { page: '/docs/api/exception#custom-response' } })
    const byPath = await client.callTool({ name: 'get_page', arguments: { page: 'docs/api/exception.md' } })
    const text = (byUrl.content as Array<{ text: string }>)[0]!.text
    expect(byUrl.isError).toBeFalsy()
    expect(text).toMatch(/^# HTTPException\n/)
    expect(text).toContain('## Throwing HTTPExceptions')
    expect(text).toContain('```ts')
    expect((byPath.content as Array<{ text: string }>)[0]!.text).toBe(text)
  })

  it('get_page names what is missing and reads only this site, whatever host a URL names', async () => {
    for (const page of ['/docs/nope', '/../../etc/passwd', 'docs/../../../etc/passwd']) {
      const res = await client.callTool({ name: 'get_page', arguments: { page } })
      expect(res.isError).toBe(true)
      expect((res.content as Array<{ text: string }>)[0]!.text).toMatch(/There is no page at/)
    }
    const own = await client.callTool({ name: 'get_page', arguments: { page: `${host.url}/docs/api/context` } })
    const ownText = (own.content as Array<{ text: string }>)[0]!.text
    expect(ownText).toMatch(/^# Context\n/)
    // Another host's URL is looked up on this site (Node: by its path), or not at all (a Worker whose site URL is absolute).
    const foreign = await client.callTool({ name: 'get_page', arguments: { page: 'https://elsewhere.example/docs/api/context' } })
    const foreignText = (foreign.content as Array<{ text: string }>)[0]!.text
    if (foreign.isError) expect(foreignText).toMatch(/There is no page at/)
    else expect(foreignText).toBe(ownText)
  })

  it('is admitted like the other /ai routes: browser origin, method, body cap', async () => {
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'x', version: '0' } } }
    const headers = { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }
    const foreign = await fetch(`${url}${MCP_PATH}`, { method: 'POST', headers: { ...headers, origin: FOREIGN }, body: JSON.stringify(init) })
    expect(foreign.status).toBe(403)
    expect(((await foreign.json()) as { error: { code: string } }).error.code).toBe('origin_not_allowed')
    const get = await fetch(`${url}${MCP_PATH}`, { headers: { accept: 'text/event-stream' } })
    expect(get.status).toBe(405)
    await get.body?.cancel()
    const big = await fetch(`${url}${MCP_PATH}`, { method: 'POST', headers, body: JSON.stringify({ ...init, pad: 'x'.repeat(MAX_BODY) }) })
    expect(big.status).toBe(413)
    await big.body?.cancel()
  })

  it("spends the client's MCP bucket (mcp.rateLimit), which runs dry and says when to come back, and never readers' chat bucket", async () => {
    let limited: Response | undefined
    for (let i = 0; i <= BURST && !limited; i++) {
      const res = await fetch(`${url}${MCP_PATH}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' })
      if (res.status === 429) limited = res
      else await res.body?.cancel()
    }
    expect(limited, `no 429 within ${BURST + 1} requests`).toBeDefined()
    expect(Number(limited!.headers.get('retry-after'))).toBeGreaterThan(0)
    expect(limited!.headers.get('x-docpilot-quota')).toBe('client')
    const { error } = (await limited!.json()) as { error: { code: string; message: string } }
    expect(error.code).toBe('rate_limited')
    expect(error.message).toMatch(/^Too many MCP requests \(searches and their embeddings\) from this client; try again in \d+ s\.$/)
    // The same client as a reader: feedback spends the chat bucket (proxy.rateLimit, burst 1), still full; the next one finds it empty.
    const reader = () => fetch(`${url}/ai/feedback`, { method: 'POST', headers: { 'content-type': 'application/json', origin: host.url }, body: '{}' })
    const first = await reader()
    expect(first.status, await first.text()).toBe(400)
    const second = await reader()
    expect(second.status).toBe(429)
    expect(((await second.json()) as { error: { message: string } }).error.message).toMatch(/^Too many requests from this client;/)
  })
})

/**
 * An index whose embedder is a hosted service: the server embeds each
 * question through this proxy's own embeddings route, with the proxy's key,
 * spending the asking client's MCP bucket (not the chat one), and answers lexical-only with the
 * reason when the service refuses. Nothing of the key reaches the client.
 */
describe('MCP on the node proxy with a hosted embedder', () => {
  let fakes: FakeProviders
  let hosted: BuiltSite
  let url: string
  let stop: () => void
  const received: string[] = []
  let client: Client

  beforeAll(async () => {
    fakes = await startFakeProviders({ embedDims: 64 })
    hosted = await buildCorpusSite('hono', { env: fakes.env(), config: { embed: 'openai' } })
    const { readFile } = await import('node:fs/promises')
    const manifest = JSON.parse(await readFile(join(hosted.indexDir, 'manifest.json'), 'utf8'))
    expect(manifest.embedder.kind).toBe('hosted')
    // The MCP bucket holds exactly what the tests below spend: the handshake (2), a search and its embedding (2), a
    // search whose two embedding attempts are refused (3). The next request finds it empty. Readers' chat bucket holds one.
    const proxySettings = parseProxySettings({
      routes: routesFor([{ provider: 'openai', models: ['gpt-4o-mini'] }], manifest.embedder),
      proxy: { siteOrigins: ['https://docs.example.com'], rateLimit: { perMinute: 1, burst: 1 } },
      mcp: { rateLimit: { perMinute: 1, burst: 7 } },
    })
    const served = await serveProxy({ settings: proxySettings, env: fakes.env(), dbPath: ':memory:', mcp: { indexDir: hosted.indexDir, siteDir: hosted.siteDir } })
    url = served.url
    stop = () => served.close()
    client = await connectHttp(`${url}${MCP_PATH}`, { received })
  }, 180_000)

  afterAll(async () => {
    await client?.close()
    stop?.()
    await fakes?.close()
    await hosted?.close()
  })

  it('embeds the question through the proxy\'s embeddings route with the proxy\'s key, and never shows the key', async () => {
    await fakes.reset()
    const res = await client.callTool({ name: 'search_docs', arguments: { query: QUESTION.q } })
    const out = res.structuredContent as unknown as SearchDocsOutput
    expect(out.mode).toBe('hybrid')
    const embeds = (await fakes.requests()).filter((r) => r.endpoint === 'embed')
    expect(embeds).toHaveLength(1)
    expect(JSON.stringify(embeds[0]!.body)).toContain(QUESTION.q)
    const key = fakes.env().OPENAI_API_KEY!
    expect(findKeys(received.map((text, i) => ({ where: `response ${i}`, bytes: text })), [key])).toEqual([])
  })

  it('answers lexical-only, saying why, when the embeddings service refuses', async () => {
    await fakes.control({ member: 'openai', endpoint: 'embed', fault: 'unauthorized' })
    const res = await client.callTool({ name: 'search_docs', arguments: { query: QUESTION.q } })
    const out = res.structuredContent as unknown as SearchDocsOutput
    expect(out.mode).toBe('lexical')
    expect(out.degraded).toBe(true)
    expect(out.degradedReason).toMatch(/401/)
    expect(out.results.length).toBeGreaterThan(0)
    expect((res.content as Array<{ text: string }>)[0]!.text).toMatch(/keyword search only \(degraded: /)
  })

  it("counts each embedding against the asking client's MCP bucket, and none of it against readers' chat bucket", async () => {
    await fakes.reset()
    await expect(client.callTool({ name: 'search_docs', arguments: { query: 'cookies' } })).rejects.toThrow(/rate_limited/)
    // The same client asks the panel's way: its chat bucket (burst 1) is untouched by the searches and their embeddings.
    const chat = await fetch(`${url}/ai/openai/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', origin: 'https://docs.example.com' },
      body: JSON.stringify({ model: 'gpt-4o-mini', messages: [{ role: 'user', content: 'hi' }] }),
    })
    expect(chat.status, await chat.clone().text()).toBe(200)
    await chat.body?.cancel()
  })
})

/**
 * An ONNX index: Node embeds the question with the ONNX runtime; a Worker
 * cannot run it (its bundle carries proxy/onnx-unavailable.ts instead), so the
 * same question is searched lexical-only there and the result says why.
 */
describe('MCP with an ONNX index', () => {
  let dir: string
  let onnxHost: Awaited<ReturnType<typeof serveSiteFolder>>
  const clients: Client[] = []
  const stops: Array<() => Promise<void>> = []
  let node: Client
  let worker: Client
  const question = 'How do I set and get values on the context?'

  beforeAll(async () => {
    const { exportStaticOnnx } = await import('../scripts/onnx/export-static.ts')
    const { DEFAULT_MODEL_DIR } = await import('../cli/package-root.ts')
    const { fileURLToPath } = await import('node:url')
    const { buildIndex } = await import('../indexer/build.ts')
    const { ConfigSchema } = await import('../core/config/schema.ts')
    dir = mkdtempSync(join(tmpdir(), 'docpilot-mcp-onnx-'))
    exportStaticOnnx(fileURLToPath(DEFAULT_MODEL_DIR), join(dir, 'model'))
    const siteDir = join(dir, 'site')
    const indexDir = join(siteDir, 'docpilot')
    await buildIndex({
      root: new URL('../fixtures/site/', import.meta.url).pathname,
      mode: 'source',
      out: indexDir,
      config: ConfigSchema.parse({ embed: { model: join(dir, 'model') } }),
      docpilotVersion: 'test',
      embed: { env: {}, cacheDir: join(dir, 'cache') },
      llms: { siteOut: siteDir },
    })
    onnxHost = await serveSiteFolder(siteDir)
    const served = await serveProxy({ settings: parseProxySettings({ routes: [], proxy: { siteOrigins: [onnxHost.url] } }), env: {}, dbPath: ':memory:', mcp: { indexDir, siteDir } })
    stops.push(async () => served.close())
    const running = await startWorkerProxy({
      settings: { routes: [], proxy: { siteOrigins: [onnxHost.url] } },
      env: {},
      statePath: mkdtempSync(join(tmpdir(), 'docpilot-mcp-onnx-persist-')),
      name: 'docpilot-mcp-onnx-test',
    })
    stops.push(running.stop)
    node = await connectHttp(`${served.url}${MCP_PATH}`)
    worker = await connectHttp(`${running.url}${MCP_PATH}`)
    clients.push(node, worker)
  }, 300_000)

  afterAll(async () => {
    for (const c of clients) await c.close()
    for (const stop of stops) await stop()
    await onnxHost?.close()
    const { rm } = await import('node:fs/promises')
    if (dir) await rm(dir, { recursive: true, force: true })
  })

  it('is embedded in the Node server', async () => {
    const out = (await node.callTool({ name: 'search_docs', arguments: { query: question } })).structuredContent as unknown as SearchDocsOutput
    expect(out.mode).toBe('hybrid')
    expect(out.results[0]!.path).toBe('api/context.md')
  })

  it('is searched lexical-only on Workers, with the reason', async () => {
    const out = (await worker.callTool({ name: 'search_docs', arguments: { query: question } })).structuredContent as unknown as SearchDocsOutput
    expect(out.mode).toBe('lexical')
    expect(out.degraded).toBe(true)
    expect(out.degradedReason).toMatch(/does not run on Cloudflare Workers/)
    expect(out.results.some((r) => r.path === 'api/context.md')).toBe(true)
  })
})
