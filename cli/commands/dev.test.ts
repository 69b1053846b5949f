/**
 * `docpilot dev` over fixtures/site: one port serves the demo pages (with the
 * strict CSP), the index and the proxy; --fake-providers says it is a demo;
 * no keys means an empty chain (every turn a search answer). The widget
 * folder is a stand-in: building it is the e2e suite's job.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { validateConfig } from '../../core/config/validate.ts'
import { LOOPBACK_ONLY, originStatuses } from '../../fixtures/page-request.ts'
import { startFakeProviders, type FakeProviders } from '../../fixtures/providers/index.ts'
import { DEMO_NOTICE, defaultDocsDir, startDevServer, STRICT_CSP, type DevServer } from './dev.ts'

const SITE = fileURLToPath(new URL('../../fixtures/site/', import.meta.url))
const work = mkdtempSync(join(tmpdir(), 'docpilot-dev-'))
const widgetDir = join(work, 'widget')
mkdirSync(widgetDir)
writeFileSync(join(widgetDir, 'docpilot.js'), '/* stand-in loader */')

const start = (fakeProviders: boolean, indexDir: string): Promise<DevServer> =>
  startDevServer({
    docsDir: SITE,
    indexDir,
    widgetDir,
    buildWidget: false,
    // Lexical-only keeps the index build quick; embedding is the indexer's tests' business.
    config: validateConfig({ embed: false }, '(test)'),
    env: { OPENAI_API_KEY: 'sk-from-the-shell-must-not-be-used' },
    dbPath: ':memory:',
    fakeProviders,
  })

afterAll(() => rmSync(work, { recursive: true, force: true }))

describe('defaultDocsDir', () => {
  it("is the project's own docs/ when it has pages; in docpilot's checkout with an empty docs/, the fixture site; else nothing", () => {
    const project = join(work, 'project')
    mkdirSync(join(project, 'docs'), { recursive: true })
    expect(defaultDocsDir(project)).toBeUndefined()
    mkdirSync(join(project, 'fixtures', 'site'), { recursive: true })
    writeFileSync(join(project, 'fixtures', 'site', 'index.md'), '# Fixture\n')
    // An owner's project that happens to hold fixtures/site/: not its docs.
    expect(defaultDocsDir(project)).toBeUndefined()
    expect(defaultDocsDir(project, project)).toBe(join(project, 'fixtures/site'))
    writeFileSync(join(project, 'docs', 'intro.md'), '# Intro\n')
    expect(defaultDocsDir(project)).toBe(join(project, 'docs'))
    expect(defaultDocsDir(project, project)).toBe(join(project, 'docs'))
  })
})

describe('no docs folder named', () => {
  it('says whether ./docs is missing or holds no pages', async () => {
    const project = join(work, 'no-docs-project')
    mkdirSync(project)
    const opts = { cwd: project, widgetDir, buildWidget: false, config: validateConfig({ embed: false }, '(test)'), env: {}, dbPath: ':memory:' }
    await expect(startDevServer(opts)).rejects.toThrow(`no docs to serve: ${join(project, 'docs')} does not exist; name the folder`)
    mkdirSync(join(project, 'docs'))
    await expect(startDevServer(opts)).rejects.toThrow(`no docs to serve: ${join(project, 'docs')} has no Markdown or HTML pages; name the folder`)
  })
})

describe('with --fake-providers', () => {
  let server: DevServer
  beforeAll(async () => {
    server = await start(true, join(work, 'index-fake'))
  })
  afterAll(() => server?.close())

  it('serves the demo page with the loader, the demo notice and the strict CSP', async () => {
    const res = await fetch(`${server.url}/`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-security-policy')).toBe(STRICT_CSP)
    const html = await res.text()
    expect(html).toContain(DEMO_NOTICE)
    // The loader carries the notice too: the panel repeats it inside the dialog, above its backdrop.
    expect(html).toMatch(/<script src="\/docpilot-assets\/docpilot\.js" data-index="\/docpilot\/" data-demo="Demo: [^"]+" defer><\/script>/)
  })

  it('walks the fake members, and the key in the shell appears nowhere the page can read', async () => {
    const manifest = (await (await fetch(`${server.url}/docpilot/manifest.json`)).json()) as { chat: { chain: { provider: string }[] } }
    expect(manifest.chat.chain.map((m) => m.provider)).toEqual(['openai'])
    expect(server.fakes).toBeDefined()
    // The terminal says so too: "Answering with: openai" alone reads as a real, billed provider.
    expect(server.answers).toBe("Answering with: docpilot's fake providers in place of openai (gpt-4o-mini); no real service is called.")
    expect(JSON.stringify(manifest)).not.toContain('sk-from-the-shell')
  })

  it('serves a page per source page with heading ids that are the citation anchors', async () => {
    const html = await (await fetch(`${server.url}/api/context`)).text()
    expect(html).toContain('id="set--get"')
  })

  it('answers pages of its own port on 127.0.0.1 and localhost, and nothing else (whatever the Host says)', async () => {
    expect(await originStatuses(server.url)).toEqual(LOOPBACK_ONLY)
  })

  it('keeps requests inside its folders and answers the icon request quietly', async () => {
    expect((await fetch(`${server.url}/docpilot-assets/..%2Fpackage.json`)).status).toBe(404)
    expect((await fetch(`${server.url}/docpilot/..%2F..%2Fpackage.json`)).status).toBe(404)
    expect((await fetch(`${server.url}/favicon.ico`)).status).toBe(204)
  })
})

describe('without keys or fakes', () => {
  let server: DevServer
  beforeAll(async () => {
    server = await startDevServer({
      docsDir: SITE,
      indexDir: join(work, 'index-plain'),
      widgetDir,
      buildWidget: false,
      config: validateConfig({ embed: false }, '(test)'),
      env: {},
      dbPath: ':memory:',
    })
  })
  afterAll(() => server?.close())

  it('has an empty chain, so every turn is a search answer, and says nothing about a demo', async () => {
    expect(server.manifest.chat.chain).toEqual([])
    const html = await (await fetch(`${server.url}/`)).text()
    expect(html).not.toContain(DEMO_NOTICE)
  })
})

describe('a provider named in the config, its key not set here', () => {
  let server: DevServer
  const said: string[] = []
  beforeAll(async () => {
    server = await startDevServer({
      docsDir: SITE,
      indexDir: join(work, 'index-named'),
      widgetDir,
      buildWidget: false,
      config: validateConfig({ embed: false, chat: { provider: 'openai' } }, '(test)'),
      env: {},
      dbPath: ':memory:',
      log: (line) => said.push(line),
    })
  })
  afterAll(() => server?.close())

  it('says readers get search answers and which variable is missing, rather than "Answering with: openai"', () => {
    // The manifest still names openai: that is what the config asks for, and what a deployment with the key serves.
    expect(server.manifest.chat.chain.map((m) => m.provider)).toEqual(['openai'])
    expect(said.join('\n')).toContain('The config names openai, but OPENAI_API_KEY is not set here')
    expect(server.answers).toBe(
      "No member of the config's chain can answer here (OPENAI_API_KEY not set): every question gets a search answer. Set the variable in this environment, or pass --fake-providers.",
    )
  })
})

describe('a custom member configured by baseURL in the config', () => {
  let server: DevServer
  let fakes: FakeProviders
  beforeAll(async () => {
    fakes = await startFakeProviders()
    server = await startDevServer({
      docsDir: SITE,
      indexDir: join(work, 'index-custom'),
      widgetDir,
      buildWidget: false,
      config: validateConfig({ embed: false, chat: { chain: [{ provider: 'custom', model: 'my-model', baseURL: fakes.baseUrl('custom') }] } }, '(test)'),
      // Nothing in the environment: the config alone says where the server is, as it does for `proxy` and `doctor`.
      env: {},
      dbPath: ':memory:',
    })
  })
  afterAll(async () => {
    await server?.close()
    await fakes?.close()
  })

  it('is served by the dev proxy exactly as `docpilot proxy` serves it', async () => {
    const res = await fetch(`${server.url}/ai/custom/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: 'my-model', stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    })
    const body = await res.text()
    expect(res.status, body).toBe(200)
    expect(body).toContain('data:')
    expect((await fakes.requests()).map((r) => r.member)).toEqual(['custom'])
  })
})

describe('pages of Markdown sources', () => {
  let server: DevServer
  beforeAll(async () => {
    const docs = join(work, 'named-docs')
    mkdirSync(join(docs, 'référence'), { recursive: true })
    writeFileSync(join(docs, 'index.md'), '# Welcome\n\nThe home page.\n\n## Quick start\n\nRun it.\n')
    writeFileSync(join(docs, 'référence', 'résumé-api.md'), '# Résumé\n\n## Méthode supprimer\n\nSupprime un tableau.\n')
    server = await startDevServer({ docsDir: docs, indexDir: join(work, 'index-named-docs'), widgetDir, buildWidget: false, config: validateConfig({ embed: false }, '(test)'), env: {}, dbPath: ':memory:' })
  })
  afterAll(() => server?.close())

  it('serves index.md at /, where its citations link, rather than the page list', async () => {
    const res = await fetch(`${server.url}/`)
    expect(res.status).toBe(200)
    const html = await res.text()
    expect(html).toContain('<h1>Welcome</h1>')
    expect(html).toContain('id="quick-start"')
    expect((await fetch(`${server.url}/index.html`)).status).toBe(200)
  })

  it('serves a page whose file name is not ASCII at the URL the nav and the citations give', async () => {
    const home = await (await fetch(`${server.url}/`)).text()
    const href = /<a href="([^"]*r%C3%A9sum%C3%A9[^"]*)"/.exec(home)?.[1]
    expect(href).toBe('/r%C3%A9f%C3%A9rence/r%C3%A9sum%C3%A9-api')
    const res = await fetch(`${server.url}${href}`)
    expect(res.status).toBe(200)
    expect(await res.text()).toContain('id="méthode-supprimer"')
  })

  it('still answers a path that names no page with 404 and the page list', async () => {
    const res = await fetch(`${server.url}/no-such-page`)
    expect(res.status).toBe(404)
    expect(await res.text()).toContain('href="/r%C3%A9f%C3%A9rence/r%C3%A9sum%C3%A9-api"')
  })
})

describe('a docs folder that is a file', () => {
  it('is named as a file, not met with ENOTDIR', async () => {
    const page = join(SITE, 'index.md')
    await expect(startDevServer({ docsDir: page, indexDir: join(work, 'index-file'), widgetDir, buildWidget: false, config: validateConfig({ embed: false }, '(test)'), env: {}, dbPath: ':memory:' })).rejects.toThrow(
      `${page} is a file, not a folder; pass the docs folder that holds it`,
    )
  })
})

describe('the dev index', () => {
  it("is left alone when the port is taken (a second `docpilot dev`): the first server's index is not rebuilt under it", async () => {
    const indexDir = join(work, 'index-port')
    const opts = { indexDir, widgetDir, buildWidget: false, config: validateConfig({ embed: false }, '(test)'), env: {}, dbPath: ':memory:' }
    const first = await startDevServer({ ...opts, docsDir: SITE })
    try {
      const manifest = readFileSync(join(indexDir, 'manifest.json'), 'utf8')
      const other = join(work, 'other-docs')
      mkdirSync(other)
      writeFileSync(join(other, 'other.md'), '# Other docs\n\nNot the first server\'s.\n')
      await expect(startDevServer({ ...opts, docsDir: other, port: first.port })).rejects.toThrow(`port ${first.port} on 127.0.0.1 is already in use`)
      expect(readFileSync(join(indexDir, 'manifest.json'), 'utf8')).toBe(manifest)
    } finally {
      await first.close()
    }
  })

  it('is rebuilt for whatever folder is named, even a much smaller one (it is dev’s own scratch copy)', async () => {
    const indexDir = join(work, 'index-scratch')
    const opts = { indexDir, widgetDir, buildWidget: false, config: validateConfig({ embed: false }, '(test)'), env: {}, dbPath: ':memory:' }
    await (await startDevServer({ ...opts, docsDir: SITE })).close()
    const small = join(work, 'small-docs')
    mkdirSync(small)
    writeFileSync(join(small, 'one.md'), '# One page\n\nAll there is.\n')
    const server = await startDevServer({ ...opts, docsDir: small })
    try {
      expect(server.manifest.corpus.files).toBe(1)
    } finally {
      await server.close()
    }
  })
})

describe('pages the dev index leaves out', () => {
  it('are named with the reason, as `docpilot index` names them, rather than missing without a word', async () => {
    const docs = join(work, 'docs-with-a-binary')
    mkdirSync(docs)
    writeFileSync(join(docs, 'index.md'), '# Welcome\n\nThe one readable page.\n')
    writeFileSync(join(docs, 'latin1.md'), Buffer.from('# Caf\xe9\n\nR\xe9sum\xe9 in Latin-1.\n', 'latin1'))
    const lines: string[] = []
    const server = await startDevServer({ docsDir: docs, indexDir: join(work, 'index-warnings'), widgetDir, buildWidget: false, config: validateConfig({ embed: false }, '(test)'), env: {}, dbPath: ':memory:', log: (l) => lines.push(l) })
    try {
      expect(lines.find((l) => l.startsWith('warning: latin1.md: '))).toMatch(/UTF-8/)
      expect(lines).toContain('indexed 1 file into 1 chunk; skipped 1 (see the warnings)')
    } finally {
      await server.close()
    }
  })
})
