import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MIXED_CHAIN_NOTE } from '../../core/chain/rationing.ts'
import type { Manifest } from '../../core/index/format.ts'
import { main } from '../main.ts'

const SITE = resolve(import.meta.dirname, '../../fixtures/site')
let dir: string

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'docpilot-index-chain-'))
})
afterAll(() => rm(dir, { recursive: true, force: true }))

async function index(env: Record<string, string>, config?: object) {
  const out = join(dir, `out-${Math.random().toString(36).slice(2)}`)
  const argv = ['index', SITE, '--out', out]
  if (config) {
    const file = join(dir, `config-${Math.random().toString(36).slice(2)}.json`)
    await writeFile(file, JSON.stringify(config))
    argv.push('--config', file)
  }
  let stdout = ''
  let stderr = ''
  const code = await main(argv, { cwd: dir, env: { DOCPILOT_CACHE_DIR: join(dir, 'cache'), ...env }, stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), stderrIsTTY: false })
  const manifestText = code === 0 ? await readFile(join(out, 'manifest.json'), 'utf8') : ''
  return { code, stdout, stderr, manifestText, manifest: manifestText ? (JSON.parse(manifestText) as Manifest) : null }
}

describe('docpilot index writes the chat chain the panel walks', () => {
  it('an environment with no provider: an empty chain, and the summary says readers get search answers', async () => {
    const r = await index({})
    expect(r.code).toBe(0)
    expect(r.manifest!.chat.chain).toEqual([])
    expect(r.stdout).toMatch(/readers get search answers/)
  })

  it("chain 'auto' over two keys: tiers sorted, routes same-origin, the rationing note printed, no key value anywhere", async () => {
    const env = { GROQ_API_KEY: 'gsk-secret-groq-123', OPENROUTER_API_KEY: 'sk-or-secret-456' }
    const r = await index(env, { chat: { chain: 'auto' } })
    expect(r.code).toBe(0)
    const chain = r.manifest!.chat.chain
    expect(chain.map((m) => [m.provider, m.tier, m.route])).toEqual([
      ['groq', 'billed', '/ai/groq'],
      ['openrouter', 'free', '/ai/openrouter'],
    ])
    expect(r.manifest!.chat.rationing?.note).toBe(MIXED_CHAIN_NOTE)
    expect(r.stdout).toContain(MIXED_CHAIN_NOTE)
    for (const key of Object.values(env)) expect(r.manifestText).not.toContain(key)
  })

  it('a named provider is written even when its key is not in the build environment (the proxy holds it)', async () => {
    const r = await index({}, { chat: { provider: 'anthropic' }, embed: 'default' })
    expect(r.code).toBe(0)
    expect(r.manifest!.chat.chain.map((m) => m.provider)).toEqual(['anthropic'])
    expect(r.manifest!.chat.rationing?.note).toBeUndefined()
  })

  it("carries the owner's answer settings (chat.maxTokens, temperature, timeouts) for the panel's turns", async () => {
    const r = await index({}, { chat: { provider: 'openai', maxTokens: 333, temperature: 0.7, timeouts: { firstByteMs: 9000 } }, embed: 'default' })
    expect(r.code).toBe(0)
    expect(r.manifest!.chat.settings).toEqual({ maxTokens: 333, temperature: 0.7, timeouts: { firstByteMs: 9000, idleMs: 20_000 } })
  })
})

describe("docpilot index with embed 'auto' when the chat head's embeddings cannot be reached", () => {
  /** A base URL nothing listens on. */
  async function closedUrl(): Promise<string> {
    const server = createServer()
    await new Promise<void>((done) => server.listen(0, '127.0.0.1', done))
    const { port } = server.address() as AddressInfo
    await new Promise((done) => server.close(done))
    return `http://127.0.0.1:${port}/v1`
  }

  it('fails, saying which embedder auto picked and why, that no index was written, and how to build offline', async () => {
    const env = { OPENAI_API_KEY: 'sk-test-unreachable', OPENAI_BASE_URL: await closedUrl() }
    const named = await index(env, { chat: { provider: 'openai' } })
    expect(named.code).toBe(1)
    expect(named.stderr).toContain('openai embeddings unreachable: ')
    expect(named.stderr).toContain("embed 'auto' picked openai embeddings (text-embedding-3-small) because the chat head (openai) embeds and OPENAI_API_KEY is set")
    expect(named.stderr).toContain('No index was written.')
    expect(named.stderr).toContain("To build offline instead, set embed: 'default' in docpilot.config.ts (the offline default model), or unset OPENAI_API_KEY for this run.")
    // A chain the config does not name would lose its head with the key: only embed: 'default' is offered.
    const unnamed = await index(env, {})
    expect(unnamed.code).toBe(1)
    expect(unnamed.stderr).toContain("To build offline instead, set embed: 'default' in docpilot.config.ts (the offline default model).")
  })
})

describe('docpilot index keeps a good index and counts honestly', () => {
  const run = async (argv: string[]) => {
    let stdout = ''
    let stderr = ''
    const code = await main(argv, { cwd: dir, env: { DOCPILOT_CACHE_DIR: join(dir, 'cache') }, stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), stderrIsTTY: false })
    return { code, stdout, stderr }
  }
  const docs = async (name: string, files: Record<string, string>) => {
    const root = join(dir, name)
    for (const [path, text] of Object.entries(files)) {
      await mkdir(join(root, path, '..'), { recursive: true })
      await writeFile(join(root, path), text)
    }
    return root
  }

  it('with no docs folder named anywhere, says to set docs.dir in the config file it read', async () => {
    await writeFile(join(dir, 'site.config.json'), '{}')
    const r = await run(['index', '--config', 'site.config.json'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('name the docs folder, e.g. `docpilot index ./docs`, or set docs.dir in site.config.json')
  })

  it('"Indexed N files" counts only the pages indexed, and says how many were skipped', async () => {
    const root = await docs('counted', { 'a.md': '# A\n\nText a.', 'b.md': '# B\n\nText b.', 'empty.md': '# Only a title\n', 'c.mdx': '# C\n\nText c.' })
    await writeFile(join(root, 'latin1.md'), Buffer.from([0x23, 0x20, 0xe9]))
    const r = await run(['index', root, '--out', join(dir, 'counted-idx'), '--site-out', join(dir, 'counted-site'), '--config', await emptyConfig()])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/^Indexed 3 files into 3 chunks in [\d.]+ s; skipped 2 \(see the warnings\) \(2 warnings\)/)
    expect(JSON.parse(await readFile(join(dir, 'counted-idx', 'manifest.json'), 'utf8')).corpus.files).toBe(3)
  })

  it('a built site: says how many pages were left out as not meant for search, apart from the skipped, with no warning for them', async () => {
    const page = (title: string, head = '') => `<!doctype html><html><head><title>${title}</title>${head}</head><body><main><h1 id="t">${title}</h1><p>${title} text.</p></main></body></html>`
    const root = await docs('noindex-site', {
      'index.html': page('Home'),
      'guide.html': page('Guide'),
      'search.html': page('Search', '<meta name="robots" content="noindex" />'),
      'empty.html': '<!doctype html><html><head><title>Empty</title></head><body><main></main></body></html>',
    })
    const r = await run(['index', '--site', root, '--out', join(dir, 'noindex-idx'), '--no-llms', '--config', await emptyConfig()])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/^Indexed 2 files into 2 chunks in [\d.]+ s; skipped 1 \(see the warnings\); left out 1 not meant for search \(noindex, generated indexes\) \(1 warning\)/)
    expect(r.stderr).toContain('warning: empty.html: has no text to index; skipped')
    expect(r.stderr).not.toContain('search.html')
  })

  it("measures a first question on docs whose headings hold no word from their text, and says so rather than NaN when nothing holds a word", async () => {
    const go = await docs('go', { 'go.md': '# Go\n\nBuild a server with the standard library and deploy it.\n' })
    const measured = await run(['index', go, '--out', join(dir, 'go-idx'), '--site-out', join(dir, 'go-site'), '--config', await emptyConfig()])
    expect(measured.code, measured.stderr).toBe(0)
    expect(measured.stdout).toMatch(/first question downloads about [\d.]+ K?B of index \(median of 1 sample questions/)
    const bare = await docs('bare', { 'v2.md': '# v2\n\n12 34\n' })
    const none = await run(['index', bare, '--out', join(dir, 'bare-idx'), '--site-out', join(dir, 'bare-site'), '--config', await emptyConfig()])
    expect(none.code, none.stderr).toBe(0)
    expect(none.stdout).toContain("A reader's first question: not measured")
    expect(none.stdout).not.toContain('NaN')
  })

  it('counts one chunk in the singular: "into 1 chunk", "embedded 1 chunk"', async () => {
    const root = await docs('single', { 'one.md': `# One\n\nThe only page, text ${Math.random()}.` })
    const config = join(dir, 'default-embed.json')
    await writeFile(config, JSON.stringify({ embed: 'default' }))
    const r = await run(['index', root, '--out', join(dir, 'single-idx'), '--no-llms', '--config', config])
    expect(r.code, r.stderr).toBe(0)
    expect(r.stdout).toMatch(/^Indexed 1 file into 1 chunk in /)
    expect(r.stdout).toMatch(/\n {4}embedded 1 chunk, reused 0 from the cache/)
  })

  it('a run where every page is skipped fails and leaves the old index in place; --allow-shrink replaces it', async () => {
    const out = join(dir, 'kept-idx')
    const good = await docs('kept', { 'a.md': '# A\n\nText a.', 'b.md': '# B\n\nText b.', 'c.md': '# C\n\nText c.' })
    expect((await run(['index', good, '--out', out, '--config', await emptyConfig()])).code).toBe(0)
    const manifest = await readFile(join(out, 'manifest.json'), 'utf8')
    const broken = await docs('all-skipped', { 'a.md': '# A\n', 'b.md': '# B\n' })
    const r = await run(['index', broken, '--out', out, '--config', await emptyConfig()])
    expect(r.code).toBe(1)
    expect(r.stderr).toMatch(/warning: a\.md: has no text to index; skipped/)
    expect(r.stderr).toMatch(/No page produced any text to index, so no index was written and the one in .*kept-idx is left as it was\. Fix the warnings above, or pass --allow-shrink/)
    expect(await readFile(join(out, 'manifest.json'), 'utf8')).toBe(manifest)

    const shrunk = await docs('shrunk', { 'a.md': '# A\n\nOnly one page now.' })
    const small = await run(['index', shrunk, '--out', out, '--config', await emptyConfig()])
    expect(small.code).toBe(1)
    expect(small.stderr).toMatch(/This run indexed 1 page, fewer than 50% of the 3 in the index at .*, which is left as it was\. Check that this is the docs folder you meant/)
    expect(small.stderr).not.toContain('warnings above')
    expect(await readFile(join(out, 'manifest.json'), 'utf8')).toBe(manifest)
    const allowed = await run(['index', shrunk, '--out', out, '--config', await emptyConfig(), '--allow-shrink'])
    expect(allowed.code, allowed.stderr).toBe(0)
    expect(JSON.parse(await readFile(join(out, 'manifest.json'), 'utf8')).corpus.files).toBe(1)
  })

  async function emptyConfig(): Promise<string> {
    const file = join(dir, 'lexical.json')
    await writeFile(file, JSON.stringify({ embed: false }))
    return file
  }
})

describe('two indexes writing their agent files into one site folder (the default .docpilot/site)', () => {
  it("remove none of each other's page copies, and the run says the folder is shared", async () => {
    const cwd = await mkdtemp(join(dir, 'shared-site-'))
    await mkdir(join(cwd, 'a'))
    await mkdir(join(cwd, 'b'))
    await writeFile(join(cwd, 'a/alpha.md'), '# Alpha\n\nThe first index.')
    await writeFile(join(cwd, 'b/beta.md'), '# Beta\n\nThe second index.')
    await writeFile(join(cwd, 'config.json'), JSON.stringify({ embed: false }))
    const run = async (docs: string, out: string) => {
      let stderr = ''
      const io = { cwd, env: { DOCPILOT_CACHE_DIR: join(cwd, 'cache') }, stdout: () => {}, stderr: (t: string) => void (stderr += t), stderrIsTTY: false }
      expect(await main(['index', docs, '--out', out, '--config', 'config.json'], io)).toBe(0)
      return stderr
    }
    await run('a', 'out-a')
    await run('b', 'out-b')
    const stderr = await run('a', 'out-a')
    expect(await readFile(join(cwd, '.docpilot/site/beta.md'), 'utf8')).toMatch(/^# Beta/)
    expect(await readFile(join(cwd, '.docpilot/site/alpha.md'), 'utf8')).toMatch(/^# Alpha/)
    expect(stderr).toContain(`the index in ${join(cwd, 'out-b')} also writes its agent files into this folder: llms.txt and llms-full.txt now list this run's pages only`)
    const llms = await readFile(join(cwd, '.docpilot/site/llms.txt'), 'utf8')
    expect(llms).toContain('alpha.md')
    expect(llms).not.toContain('beta.md')
  })

  it('once the other index is deleted, the folder is not shared: no warning, and the copies only it made are removed', async () => {
    const cwd = await mkdtemp(join(dir, 'deleted-index-'))
    await mkdir(join(cwd, 'docs'))
    await writeFile(join(cwd, 'docs/alpha.md'), '# Alpha\n\nA page.')
    await writeFile(join(cwd, 'docs/beta.md'), '# Beta\n\nA page deleted later.')
    await writeFile(join(cwd, 'config.json'), JSON.stringify({ embed: false }))
    const run = async (out: string) => {
      let stderr = ''
      const io = { cwd, env: { DOCPILOT_CACHE_DIR: join(cwd, 'cache') }, stdout: () => {}, stderr: (t: string) => void (stderr += t), stderrIsTTY: false }
      expect(await main(['index', 'docs', '--out', out, '--config', 'config.json'], io)).toBe(0)
      return stderr
    }
    await run('old-idx')
    await rm(join(cwd, 'old-idx'), { recursive: true })
    await rm(join(cwd, 'docs/beta.md'))
    const stderr = await run('idx')
    expect(stderr).not.toContain('also writes its agent files')
    expect(await readFile(join(cwd, '.docpilot/site/alpha.md'), 'utf8')).toMatch(/^# Alpha/)
    await expect(readFile(join(cwd, '.docpilot/site/beta.md'), 'utf8')).rejects.toThrow(/ENOENT/)
  })
})
