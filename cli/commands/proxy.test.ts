import { spawn } from 'node:child_process'
import { mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { validateConfig } from '../../core/config/validate.ts'
import { MANIFEST_FILE } from '../../core/index/format.ts'
import { countingLoader } from '../../core/index/parts.ts'
import { buildIndex } from '../../indexer/build.ts'
import { fsPartLoader } from '../../indexer/fs-parts.ts'
import { connectHttp } from '../../proxy/mcp-testing.ts'
import { serveProxy } from '../../proxy/node.ts'
import { parseProxySettings } from '../../proxy/settings.ts'
import { main } from '../main.ts'
import { mcpUnsearchable, startupWarnings } from './proxy.ts'
import { proxySettingsFromConfig } from '../../proxy/from-config.ts'

// Serving is covered end to end by proxy/proxy.test.ts, which runs `docpilot proxy --settings`
// as separate processes sharing one SQLite file. These are the refusals before anything listens.
describe('what docpilot proxy warns of as it starts', () => {
  const settingsFor = (config: object, env: Record<string, string>) => proxySettingsFromConfig(validateConfig({ proxy: { siteOrigins: ['https://docs.example.com'] }, ...config }, '(test)'), env).settings

  it('a billed account with no daily ceiling, and a route whose key is not set', () => {
    const open = startupWarnings(settingsFor({ chat: { provider: 'openai' } }, {}), {})
    expect(open).toContain('OPENAI_API_KEY is not set, so /ai/openai/ refuses every request (key_not_set) until it is.')
    expect(open.find((l) => l.startsWith('no daily ceiling (budget.dailyLimit): openai answers up to'))).toContain('a client that sends no Origin')
  })

  it('nothing once the key is set and a ceiling stated; nothing for a free tier alone (it has its own day)', () => {
    expect(startupWarnings(settingsFor({ chat: { provider: 'openai' }, budget: { dailyLimit: 500 } }, {}), { OPENAI_API_KEY: 'sk-x' })).toEqual([])
    expect(startupWarnings(settingsFor({ chat: { chain: 'auto' } }, { OPENROUTER_API_KEY: 'sk-or' }), { OPENROUTER_API_KEY: 'sk-or' })).toEqual([])
  })
})

describe('docpilot proxy --settings', () => {
  const run = async (args: string[]) => {
    const dir = mkdtempSync(join(tmpdir(), 'docpilot-proxy-cli-'))
    const o = { out: '', err: '' }
    const ctx = { cwd: dir, env: {}, stdout: (t: string) => (o.out += t), stderr: (t: string) => (o.err += t), stderrIsTTY: false }
    const write = (name: string, text: string) => writeFileSync(join(dir, name), text)
    return { dir, o, ctx, write, main: () => main(['proxy', ...args], ctx) }
  }

  it('names the file when it cannot be read', async () => {
    const r = await run(['--settings', 'nope.json'])
    expect(await r.main()).toBe(2)
    expect(r.o.err).toMatch(/--settings nope\.json: cannot read .*nope\.json \(ENOENT\)/)
  })

  it('names the field and the fix when the settings are invalid', async () => {
    const r = await run(['--settings', 'settings.json'])
    r.write('settings.json', JSON.stringify({ routes: [{ member: 'nobody' }] }))
    expect(await r.main()).toBe(2)
    expect(r.o.err).toMatch(/settings\.json: Invalid proxy settings at routes\.0\.member/)
    expect(r.o.err).toContain('DOCPILOT_PROXY JSON that `docpilot doctor --proxy` prints')
  })

  it("reads the JSON inside the wrangler.toml line doctor --proxy prints, when the whole line or the quoted value was saved", async () => {
    for (const text of [`DOCPILOT_PROXY = '{"routes":[]}'\n`, `  '{"routes":[]}'`]) {
      const r = await run(['--settings', 'ps.json', '--db', ':memory:'])
      r.write('ps.json', text)
      expect(await r.main()).toBe(2)
      // Parsed: the settings' own problem is named, not a JSON syntax error.
      expect(r.o.err).toMatch(/--settings .*ps\.json: proxy\.siteOrigins is not set/)
    }
  })

  it('says to add the site origin to the settings file itself, which is what this run reads', async () => {
    const r = await run(['--settings', 'ps.json', '--db', ':memory:'])
    r.write('ps.json', JSON.stringify({ routes: [] }))
    expect(await r.main()).toBe(2)
    expect(r.o.err).toMatch(/--settings .*ps\.json: proxy\.siteOrigins is not set/)
    expect(r.o.err).toContain('Add "proxy": { "siteOrigins": ["https://docs.example.com"] } to the file')
  })
})

describe('docpilot proxy on a port something else holds', () => {
  it('says which port is taken and how to pick another, instead of a stack trace', async () => {
    const holder = createServer()
    await new Promise<void>((done) => holder.listen(0, '127.0.0.1', done))
    const { port } = holder.address() as AddressInfo
    try {
      const o = { out: '', err: '' }
      const cwd = mkdtempSync(join(tmpdir(), 'docpilot-proxy-cli-'))
      writeFileSync(join(cwd, 'docpilot.config.json'), JSON.stringify({ proxy: { siteOrigins: ['https://docs.example.com'] } }))
      const ctx = { cwd, env: {}, stdout: (t: string) => (o.out += t), stderr: (t: string) => (o.err += t), stderrIsTTY: false }
      expect(await main(['proxy', '--port', String(port), '--db', ':memory:'], ctx)).toBe(1)
      expect(o.err.trim()).toBe(`port ${port} on 127.0.0.1 is already in use (another docpilot, or another server): pick another with --port <number>, or --port 0 for any free one`)
    } finally {
      holder.close()
    }
  })
})

describe('docpilot proxy without a site origin', () => {
  it('refuses to start, naming proxy.siteOrigins and how to set it', async () => {
    const o = { out: '', err: '' }
    const ctx = { cwd: mkdtempSync(join(tmpdir(), 'docpilot-proxy-cli-')), env: { OPENAI_API_KEY: 'sk-test-key-123456' }, stdout: (t: string) => (o.out += t), stderr: (t: string) => (o.err += t), stderrIsTTY: false }
    expect(await main(['proxy', '--port', '0', '--db', ':memory:'], ctx)).toBe(1)
    expect(o.err).toMatch(/proxy\.siteOrigins is not set.*Set proxy\.siteOrigins in docpilot\.config, e\.g\. \['https:\/\/docs\.example\.com'\]/)
    expect(o.out).toBe('')
  })
})

/** A one-page docs folder indexed lexical-only into a temp folder, with its agent files: the index /ai/mcp serves. */
async function cookieIndex(): Promise<{ dir: string; indexDir: string; siteDir: string }> {
  const dir = mkdtempSync(join(tmpdir(), 'docpilot-proxy-cli-'))
  const docs = join(dir, 'docs')
  mkdirSync(docs)
  writeFileSync(join(docs, 'cookies.md'), '# Cookies\n\nUse setSignedCookie with a secret to sign a cookie.\n')
  const indexDir = join(dir, 'index')
  const siteDir = join(dir, 'site')
  await buildIndex({ root: docs, mode: 'source', out: indexDir, config: validateConfig({ embed: false }, '(test)'), docpilotVersion: 'test', embed: { env: {}, cacheDir: join(dir, 'cache') }, llms: { siteOut: siteDir } })
  return { dir, indexDir, siteDir }
}

describe('docpilot proxy on a damaged index', () => {
  it('says at startup which file keeps /ai/mcp from searching, and still serves', async () => {
    const { dir, indexDir } = await cookieIndex()
    const head = readdirSync(indexDir).find((f) => f.startsWith('lexical.'))!
    rmSync(join(indexDir, head))
    writeFileSync(join(dir, 'docpilot.config.json'), JSON.stringify({ proxy: { siteOrigins: ['https://docs.example.com'] } }))
    const bin = new URL('../../bin/docpilot.cjs', import.meta.url).pathname
    const child = spawn(process.execPath, [bin, 'proxy', '--port', '0', '--db', ':memory:', '--index', indexDir, '--site-out', join(dir, 'site')], { cwd: dir, stdio: ['ignore', 'pipe', 'pipe'] })
    const said = { out: '', err: '' }
    child.stderr.on('data', (d: Buffer) => void (said.err += d))
    const closed = new Promise((done) => child.on('close', done))
    await new Promise<void>((ready) => child.stdout.on('data', (d: Buffer) => (said.out += d).includes('/ai/mcp') && ready()))
    child.kill('SIGTERM')
    await closed
    expect(said.out).toContain('MCP for agents on')
    expect(said.err).toContain(`docpilot proxy: the index at ${indexDir} cannot be searched: index part ${join(indexDir, head)} could not be read`)
    expect(said.err).toContain('Copy the whole folder, or rebuild it with `docpilot index`. Until then /ai/mcp answers every search with that error.')
  }, 120_000)
})

describe('docpilot proxy on a sound index', () => {
  it('opens it once: the start-up check and the searches of /ai/mcp read manifest.json once between them', async () => {
    const { dir, indexDir, siteDir } = await cookieIndex()
    const loader = countingLoader(fsPartLoader(indexDir))
    const mcp = { indexDir, siteDir, loader }
    expect(await mcpUnsearchable(mcp)).toBeUndefined()
    const served = await serveProxy({ settings: parseProxySettings({ routes: [], proxy: { siteOrigins: ['https://docs.example.com'] } }), env: {}, dbPath: ':memory:', mcp })
    const client = await connectHttp(`${served.url}/ai/mcp`)
    try {
      const res = await client.callTool({ name: 'search_docs', arguments: { query: 'signed cookie' } })
      expect((res.structuredContent as { results: unknown[] }).results.length).toBeGreaterThan(0)
      expect(loader.times.get(MANIFEST_FILE)).toBe(1)
    } finally {
      await client.close()
      served.close()
      rmSync(dir, { recursive: true, force: true })
    }
  }, 120_000)
})
