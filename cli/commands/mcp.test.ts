/**
 * `docpilot mcp` as a real process over stdio, on a small index: a client that
 * writes its requests and closes stdin (`printf ... | docpilot mcp`) gets every
 * answer before the server exits. The tools themselves are tested on the shared
 * corpora in cli/agents.test.ts and core/mcp/docs-server.test.ts.
 */
import { spawn } from 'node:child_process'
import { cpSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { validateConfig } from '../../core/config/validate.ts'
import { MANIFEST_FILE } from '../../core/index/format.ts'
import { countingLoader } from '../../core/index/parts.ts'
import { buildIndex } from '../../indexer/build.ts'
import { fsPartLoader } from '../../indexer/fs-parts.ts'
import { openMcpSite } from './mcp.ts'

const BIN = new URL('../../bin/docpilot.cjs', import.meta.url).pathname
const work = mkdtempSync(join(tmpdir(), 'docpilot-mcp-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))

const indexDir = join(work, 'index')
const siteDir = join(work, 'site')
/** The same docs on a site whose page URLs end in a slash (urls.trailingSlash), as Starlight's do. */
const slashed = { indexDir: join(work, 'index-slashed'), siteDir: join(work, 'site-slashed') }
beforeAll(async () => {
  const docs = join(work, 'docs')
  mkdirSync(docs)
  writeFileSync(join(docs, 'cookies.md'), '# Cookies\n\n## Signed cookies\n\nUse setSignedCookie with a secret to sign a cookie.\n')
  writeFileSync(join(docs, 'routing.md'), '# Routing\n\nRoutes match the path and the method of a request.\n')
  const embed = { env: {}, cacheDir: join(work, 'cache') }
  const config = validateConfig({ embed: false }, '(test)')
  await buildIndex({ root: docs, mode: 'source', out: indexDir, config, docpilotVersion: 'test', embed, llms: { siteOut: siteDir } })
  const slashConfig = validateConfig({ embed: false, urls: { trailingSlash: true } }, '(test)')
  await buildIndex({ root: docs, mode: 'source', out: slashed.indexDir, config: slashConfig, docpilotVersion: 'test', embed, llms: { siteOut: slashed.siteDir } })
})

const initialize = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'test', version: '0' } } }
const initialized = { jsonrpc: '2.0', method: 'notifications/initialized' }

/** Runs `docpilot mcp` with these lines on stdin, then closes it; what it wrote back, parsed, and how it exited. */
function mcpWith(lines: object[], dirs = { indexDir, siteDir }): Promise<{ code: number | null; replies: Array<{ id?: number; result?: Record<string, unknown>; error?: unknown }>; stderr: string }> {
  const child = spawn(process.execPath, [BIN, 'mcp', '--index', dirs.indexDir, '--site-out', dirs.siteDir], {
    cwd: work,
    env: { ...process.env, DOCPILOT_CACHE_DIR: join(work, 'cache') },
    stdio: ['pipe', 'pipe', 'pipe'],
  })
  let stdout = ''
  let stderr = ''
  child.stdout.on('data', (d: Buffer) => void (stdout += d))
  child.stderr.on('data', (d: Buffer) => void (stderr += d))
  child.stdin.end(lines.map((l) => `${JSON.stringify(l)}\n`).join(''))
  return new Promise((done) => {
    child.on('close', (code) => {
      const replies = stdout.split('\n').filter(Boolean).map((l) => JSON.parse(l) as { id?: number })
      done({ code, replies, stderr })
    })
  })
}

describe('docpilot mcp over stdio, stdin closed after the requests', () => {
  it('answers every request already received, then exits', async () => {
    const search = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'search_docs', arguments: { query: 'signed cookies' } } }
    const page = { jsonrpc: '2.0', id: 3, method: 'tools/call', params: { name: 'get_page', arguments: { page: '/cookies' } } }
    const r = await mcpWith([initialize, initialized, search, page])
    expect(r.code, r.stderr).toBe(0)
    expect(r.replies.map((m) => m.id).sort()).toEqual([1, 2, 3])
    const found = r.replies.find((m) => m.id === 2)!.result!.structuredContent as { results: Array<{ url: string }> }
    expect(found.results[0]!.url).toBe('/cookies#signed-cookies')
    const text = (r.replies.find((m) => m.id === 3)!.result!.content as Array<{ text: string }>)[0]!.text
    expect(text).toMatch(/^# Cookies\n/)
  }, 120_000)

  it('stops waiting for unanswered requests on SIGTERM once stdin has closed', async () => {
    const child = spawn(process.execPath, [BIN, 'mcp', '--index', indexDir, '--site-out', siteDir], { cwd: work, env: { ...process.env, DOCPILOT_CACHE_DIR: join(work, 'cache') }, stdio: ['pipe', 'pipe', 'pipe'] })
    // A client that does not read its replies: the server's writes stall once the pipe is full, so requests stay unanswered.
    child.stdout.pause()
    let said = ''
    child.stderr.on('data', (d: Buffer) => void (said += d))
    const pages = Array.from({ length: 400 }, (_, i) => ({ jsonrpc: '2.0', id: i + 2, method: 'tools/call', params: { name: 'get_page', arguments: { page: '/cookies' } } }))
    child.stdin.end([initialize, initialized, ...pages].map((l) => `${JSON.stringify(l)}\n`).join(''))
    const closed = new Promise<{ code: number | null; signal: string | null }>((done) => child.on('close', (code, signal) => done({ code, signal })))
    await new Promise((wait) => setTimeout(wait, 3_000))
    const sent = Date.now()
    child.kill('SIGTERM')
    await closed
    expect(Date.now() - sent, said).toBeLessThan(15_000)
  }, 120_000)

  it('still exits on SIGTERM while stdin stays open', async () => {
    const child = spawn(process.execPath, [BIN, 'mcp', '--index', indexDir, '--site-out', siteDir], { cwd: work, env: { ...process.env, DOCPILOT_CACHE_DIR: join(work, 'cache') }, stdio: ['pipe', 'pipe', 'pipe'] })
    let said = ''
    child.stderr.on('data', (d: Buffer) => {
      said += d
      if (said.includes('over stdio')) child.kill('SIGTERM')
    })
    const code = await new Promise<number | null>((done) => child.on('close', (c, sig) => (said += ` signal=${sig}`, done(c))))
    expect(code, said).toBe(0)
  }, 120_000)
})

describe('docpilot mcp with a --site-out that holds no page copies', () => {
  it('says so on stderr, naming the folder and the flag, and still searches', async () => {
    const wrong = join(work, 'not-the-site')
    const search = { jsonrpc: '2.0', id: 2, method: 'tools/call', params: { name: 'search_docs', arguments: { query: 'signed cookies' } } }
    const r = await mcpWith([initialize, initialized, search], { indexDir, siteDir: wrong })
    expect(r.code, r.stderr).toBe(0)
    expect(r.stderr).toContain(`docpilot mcp: no llms.txt in ${wrong}, so get_page and the llms.txt resource find nothing (search_docs works). Pass --site-out`)
    expect(r.replies.find((m) => m.id === 2)!.result!.isError).not.toBe(true)
    // The right folder: not a word of it.
    expect((await mcpWith([initialize, initialized])).stderr).not.toContain('no llms.txt')
  }, 120_000)
})

describe('docpilot mcp on an index folder with a damaged part', () => {
  /** A copy of the index whose lexical head is changed by `damage`. */
  function brokenIndex(name: string, damage: (head: string) => void): string {
    const dir = join(work, name)
    cpSync(indexDir, dir, { recursive: true })
    damage(join(dir, readdirSync(dir).find((f) => f.startsWith('lexical.'))!))
    return dir
  }

  it('stops before serving, naming the missing or damaged file, rather than failing every search', async () => {
    const missing = brokenIndex('index-no-head', (head) => rmSync(head))
    const gone = await mcpWith([initialize], { indexDir: missing, siteDir })
    expect(gone.code).toBe(1)
    expect(gone.replies).toEqual([])
    expect(gone.stderr).toMatch(new RegExp(`the index at ${missing} cannot be searched: index part ${missing}/lexical\\.\\w+\\.json\\.gz could not be read: .*Copy the whole folder, or rebuild it with \`docpilot index\`\\.`, 's'))
    expect(gone.stderr).not.toContain('over stdio')
    const damaged = brokenIndex('index-bad-head', (head) => writeFileSync(head, 'garbage\n'))
    const bad = await mcpWith([initialize], { indexDir: damaged, siteDir })
    expect(bad.code).toBe(1)
    expect(bad.stderr).toMatch(/cannot be searched: index part lexical\.\w+\.json\.gz is damaged \(.*\)\. Rebuild the index with `docpilot index`\./s)
  }, 120_000)
})

describe('get_page over stdio', () => {
  /** The text of each get_page call's result, in the order asked, with whether it was an error. */
  async function pages(asked: string[], dirs?: { indexDir: string; siteDir: string }): Promise<Array<{ isError: boolean; text: string }>> {
    const calls = asked.map((page, i) => ({ jsonrpc: '2.0', id: i + 2, method: 'tools/call', params: { name: 'get_page', arguments: { page } } }))
    const r = await mcpWith([initialize, initialized, ...calls], dirs)
    expect(r.code, r.stderr).toBe(0)
    return asked.map((_, i) => {
      const result = r.replies.find((m) => m.id === i + 2)!.result as { isError?: boolean; content: Array<{ text: string }> }
      return { isError: result.isError === true, text: result.content[0]!.text }
    })
  }

  it('finds a page named with or without the trailing slash its site does not use', async () => {
    const plain = await pages(['/cookies/', 'https://docs.example/cookies/#signed-cookies', '/cookies/index.md'])
    for (const got of plain) expect(got).toEqual({ isError: false, text: expect.stringMatching(/^# Cookies\n/) })
    const withSlash = await pages(['/cookies', '/cookies#signed-cookies', '/cookies.md', '/cookies/'], slashed)
    for (const got of withSlash) expect(got).toEqual({ isError: false, text: expect.stringMatching(/^# Cookies\n/) })
    // A page that is not there is still named as the agent named it.
    const [missing] = await pages(['/nope/'])
    expect(missing).toEqual({ isError: true, text: expect.stringContaining('There is no page at /nope/ (no Markdown copy at /nope/index.md)') })
  }, 120_000)

  it('reads llms.txt for a client without resources, which every missing page points to', async () => {
    const [bare, byUrl, missing] = await pages(['llms.txt', '/llms.txt', '/nope'])
    for (const got of [bare, byUrl]) expect(got).toEqual({ isError: false, text: expect.stringMatching(/\[Cookies\]\(\/cookies\.md\)/) })
    expect(missing).toEqual({ isError: true, text: expect.stringContaining('list every page with get_page("llms.txt")') })
    const [unpublished] = await pages(['llms.txt'], { indexDir, siteDir: join(work, 'not-the-site') })
    expect(unpublished).toEqual({ isError: true, text: expect.stringMatching(/^llms\.txt is not at \/llms\.txt: the docs owner has not published it/) })
  }, 120_000)

  it('refuses a blank page name rather than returning the home page', async () => {
    const [blank] = await pages(['   '])
    expect(blank).toEqual({ isError: true, text: expect.stringMatching(/^No page named: pass a url from search_docs/) })
  }, 120_000)

  it('refuses an empty or over-long page name saying what to pass, not only the limit', async () => {
    const [empty, long] = await pages(['', `/${'a'.repeat(2001)}`])
    expect(empty).toEqual({ isError: true, text: expect.stringContaining('page: empty; pass a url from search_docs or llms.txt, or a source path; "llms.txt" lists every page.') })
    expect(long).toEqual({ isError: true, text: expect.stringContaining('page: longer than 2000 characters, which no page URL is; pass a url') })
  }, 120_000)

  it('refuses a search with no words (blanks, punctuation, emoji) rather than returning unrelated passages; any script counts as words', async () => {
    const asked = ['   ', '?!?!', '🍪🍪', 'クッキー', 'cookies']
    const calls = asked.map((query, i) => ({ jsonrpc: '2.0', id: i + 2, method: 'tools/call', params: { name: 'search_docs', arguments: { query } } }))
    const r = await mcpWith([initialize, initialized, ...calls])
    expect(r.code, r.stderr).toBe(0)
    const results = asked.map((_, i) => r.replies.find((m) => m.id === i + 2)!.result as { isError?: boolean; content: Array<{ text: string }> })
    for (const refused of results.slice(0, 3)) expect(refused).toMatchObject({ isError: true, content: [{ text: expect.stringContaining('has no words to search for') }] })
    for (const searched of results.slice(3)) expect(searched.isError).not.toBe(true)
  }, 120_000)

  it('refuses an empty or over-long query as a tool error that says what to send instead', async () => {
    const asked = ['', `${'my app crashes with this log: '}${'TypeError at line 1 '.repeat(250)}`]
    const calls = asked.map((query, i) => ({ jsonrpc: '2.0', id: i + 2, method: 'tools/call', params: { name: 'search_docs', arguments: { query } } }))
    const r = await mcpWith([initialize, initialized, ...calls])
    expect(r.code, r.stderr).toBe(0)
    const [empty, long] = asked.map((_, i) => r.replies.find((m) => m.id === i + 2)!.result as { isError?: boolean; content: Array<{ text: string }> })
    expect(empty).toMatchObject({ isError: true, content: [{ text: expect.stringContaining('query: empty; ask in plain words, e.g. "how do I set a cookie?"') }] })
    expect(long).toMatchObject({ isError: true, content: [{ text: expect.stringContaining('query: longer than 2000 characters; ask the question in a sentence or a few keywords') }] })
  }, 120_000)

  it('says a page with a name too long for any file is not there, without showing where the site folder is', async () => {
    const [long] = await pages([`/${'a'.repeat(300)}`])
    expect(long).toEqual({ isError: true, text: expect.stringMatching(/^There is no page at \/a+ /) })
    expect(long!.text).not.toContain(siteDir)
  }, 120_000)
})

describe('docpilot mcp at start', () => {
  const config = validateConfig({ embed: false }, '(test)')

  it('opens the index once: the start-up check and the first search read manifest.json once between them', async () => {
    // A copy: the process keeps one index per folder, opened with the first loader it is given.
    const copy = join(work, 'index-opened-once')
    cpSync(indexDir, copy, { recursive: true })
    const loader = countingLoader(fsPartLoader(copy))
    const site = await openMcpSite({ indexDir: copy, siteDir, loader }, config, {})
    expect((await (await site.index()).search('signed cookies')).results.length).toBeGreaterThan(0)
    expect(loader.times.get(MANIFEST_FILE)).toBe(1)
  })

  it('stops on a missing index or a damaged manifest, naming the folder, the field and the fix', async () => {
    const none = join(work, 'no-index-here')
    await expect(openMcpSite({ indexDir: none, siteDir }, config, {})).rejects.toThrow(`No index at ${none} (manifest.json is missing). Build one with`)
    const damaged = join(work, 'index-bad-manifest')
    cpSync(indexDir, damaged, { recursive: true })
    const manifest = JSON.parse(readFileSync(join(damaged, MANIFEST_FILE), 'utf8')) as { retrieval: { gate?: unknown } }
    delete manifest.retrieval.gate
    writeFileSync(join(damaged, MANIFEST_FILE), JSON.stringify(manifest))
    await expect(openMcpSite({ indexDir: damaged, siteDir }, config, {})).rejects.toThrow(
      `docpilot mcp: the index at ${damaged} cannot be searched: manifest.json: retrieval.gate is missing; it must be an object. Rebuild the index with \`docpilot index\`.`,
    )
  })
})
