/**
 * `docpilot preview` over a built site: the pages as they are, the index and
 * widget from where their script tag says, the proxy on the same origin.
 * The widget folders are stand-ins; the browser side is the e2e suite's job.
 */
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { validateConfig } from '../../core/config/validate.ts'
import type { Manifest } from '../../core/index/format.ts'
import { LOOPBACK_ONLY, originStatuses } from '../../fixtures/page-request.ts'
import { buildIndex } from '../../indexer/build.ts'
import { STRICT_CSP } from '../site-server.ts'
import { findLoaderTag, startPreviewServer, type PreviewServer } from './preview.ts'

const work = mkdtempSync(join(tmpdir(), 'docpilot-preview-'))
afterAll(() => rmSync(work, { recursive: true, force: true }))

const TAG = '<script src="/assets/dp/docpilot.js" data-index="/search-index/" defer></script>'
const page = (title: string, head = '') => `<!doctype html><html><head><title>${title}</title>${head}</head><body><main><h1>${title}</h1><h2 id="signed">Signed cookies</h2><p>Use setSignedCookie with a secret.</p></main></body></html>`
const config = validateConfig({ embed: false, chat: { provider: 'openai' } }, '(test)')
const lines: string[] = []
const log = (line: string) => void lines.push(line)

/** A built site: two pages, with or without the loader tag, the widget stand-in and the index inside it. */
function site(name: string, opts: { tag: boolean; index: boolean }): string {
  const dir = join(work, name)
  mkdirSync(join(dir, 'guide'), { recursive: true })
  writeFileSync(join(dir, 'index.html'), page('Home', opts.tag ? TAG : ''))
  writeFileSync(join(dir, 'guide', 'cookies.html'), page('Cookies', opts.tag ? TAG : ''))
  mkdirSync(join(dir, opts.tag ? 'assets/dp' : 'docpilot-assets'), { recursive: true })
  writeFileSync(join(dir, opts.tag ? 'assets/dp' : 'docpilot-assets', 'docpilot.js'), '/* stand-in loader */')
  if (opts.index) cpSync(indexDir, join(dir, 'search-index'), { recursive: true })
  return dir
}

let indexDir: string
beforeAll(async () => {
  indexDir = join(work, 'built-index')
  const source = join(work, 'source')
  mkdirSync(source)
  writeFileSync(join(source, 'cookies.html'), page('Cookies'))
  await buildIndex({ root: source, mode: 'site', out: indexDir, config, docpilotVersion: 'test', embed: { env: {} } })
})

describe('findLoaderTag', () => {
  it('reads where the pages load the widget and the index from, relative URLs resolved against the page', async () => {
    const dir = join(work, 'relative')
    mkdirSync(join(dir, 'guide'), { recursive: true })
    writeFileSync(join(dir, 'guide', 'a.html'), '<script defer data-index="../idx" src="../js/docpilot.js"></script>')
    expect(await findLoaderTag(dir)).toEqual({ src: '/js/docpilot.js', index: '/idx/', page: 'guide/a.html' })
    expect(await findLoaderTag(join(work, 'source'))).toBeUndefined()
  })
})

describe('a site whose pages carry the script tag and whose folder holds the index', () => {
  let server: PreviewServer
  beforeAll(async () => {
    lines.length = 0
    server = await startPreviewServer({ siteDir: site('tagged', { tag: true, index: true }), config, indexDir: join(work, 'nowhere'), cwd: work, env: {}, fakeProviders: true, dbPath: ':memory:', log })
  })
  afterAll(() => server?.close())

  it('serves the pages as they are, clean URLs included, without a CSP of its own', async () => {
    const res = await fetch(`${server.url}/guide/cookies`)
    expect(res.status).toBe(200)
    expect(res.headers.get('content-security-policy')).toBeNull()
    const html = await res.text()
    expect(html).toBe(page('Cookies', TAG))
    expect(lines.join('\n')).toContain('Pages load /assets/dp/docpilot.js with the index at /search-index/')
    expect(lines.join('\n')).not.toContain('No page in')
  })

  it('serves the index and the widget from the site folder', async () => {
    expect(await (await fetch(`${server.url}/assets/dp/docpilot.js`)).text()).toBe('/* stand-in loader */')
    const manifest = (await (await fetch(`${server.url}/search-index/manifest.json`)).json()) as Manifest
    expect((await fetch(`${server.url}/search-index/${manifest.parts.lexical}`)).status).toBe(200)
  })

  it('with the fake providers, the manifest names their chain and the proxy streams their answers on the same origin', async () => {
    const manifest = (await (await fetch(`${server.url}/search-index/manifest.json`)).json()) as Manifest
    expect(manifest.chat.chain.map((m) => m.provider)).toEqual(['openai'])
    const res = await fetch(`${server.url}/ai/openai/chat/completions`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ model: manifest.chat.chain[0]!.models[0], stream: true, messages: [{ role: 'user', content: 'hi' }] }),
    })
    expect(res.status).toBe(200)
    expect(await res.text()).toContain('data:')
    expect(server.answers).toBe(`Answering with: docpilot's fake providers in place of openai (${manifest.chat.chain[0]!.models.join(', ')}); no real service is called.`)
  })

  it('answers pages of its own port on 127.0.0.1 and localhost, and nothing else (whatever the Host says)', async () => {
    expect(await originStatuses(server.url)).toEqual(LOOPBACK_ONLY)
  })
})

describe('a site built for a base path (VitePress base, Docusaurus baseUrl, Astro base)', () => {
  let server: PreviewServer
  beforeAll(async () => {
    lines.length = 0
    // As the integrations write it: the tag names /docs/..., the files sit at the folder's root (deployed below /docs/).
    const dir = join(work, 'based')
    const tag = '<script src="/docs/docpilot-assets/docpilot.js" data-index="/docs/docpilot/" defer></script>'
    mkdirSync(join(dir, 'guide'), { recursive: true })
    writeFileSync(join(dir, 'index.html'), page('Home', tag))
    writeFileSync(join(dir, 'guide', 'cookies.html'), page('Cookies', tag))
    mkdirSync(join(dir, 'docpilot-assets'))
    writeFileSync(join(dir, 'docpilot-assets', 'docpilot.js'), '/* stand-in loader */')
    cpSync(indexDir, join(dir, 'docpilot'), { recursive: true })
    server = await startPreviewServer({ siteDir: dir, config, indexDir: join(work, 'nowhere'), cwd: work, env: {}, dbPath: ':memory:', log })
  })
  afterAll(() => server?.close())

  it('serves the folder below that base, its pages, widget and index where the tag says', async () => {
    expect(server.base).toBe('/docs/')
    expect(await (await fetch(`${server.url}/docs/guide/cookies`)).text()).toContain('<h1>Cookies</h1>')
    expect(await (await fetch(`${server.url}/docs/docpilot-assets/docpilot.js`)).text()).toBe('/* stand-in loader */')
    const manifest = (await (await fetch(`${server.url}/docs/docpilot/manifest.json`)).json()) as Manifest
    expect((await fetch(`${server.url}/docs/docpilot/${manifest.parts.lexical}`)).status).toBe(200)
    expect((await fetch(`${server.url}/guide/cookies`)).status).toBe(404)
    expect(lines.join('\n')).toContain('The pages are built for the base path /docs/')
    expect(lines.join('\n')).not.toContain("serving docpilot's own widget files")
    expect(lines.join('\n')).not.toContain('No page in')
  })
})

describe('a site built for a base path, before its widget and index are in it', () => {
  let server: PreviewServer
  beforeAll(async () => {
    lines.length = 0
    // A VitePress build with base '/docs/': its stylesheet and pages sit at the folder's root, linked below /docs/.
    const dir = join(work, 'based-bare')
    const head = '<link rel="stylesheet" href="/docs/assets/style.css"><script src="/docs/docpilot-assets/docpilot.js" data-index="/docs/docpilot/" defer></script>'
    mkdirSync(join(dir, 'guide'), { recursive: true })
    mkdirSync(join(dir, 'assets'))
    writeFileSync(join(dir, 'assets', 'style.css'), 'body {}')
    writeFileSync(join(dir, 'index.html'), page('Home', head))
    writeFileSync(join(dir, 'guide', 'cookies.html'), page('Cookies', head))
    // docpilot's own widget, a stand-in: a fresh checkout has not built dist/widget when the unit tests run.
    const shippedWidgetDir = join(work, 'shipped-widget')
    mkdirSync(shippedWidgetDir)
    writeFileSync(join(shippedWidgetDir, 'docpilot.js'), '/* stand-in shipped loader */')
    server = await startPreviewServer({ siteDir: dir, config, indexDir, cwd: work, env: {}, dbPath: ':memory:', log, shippedWidgetDir })
  })
  afterAll(() => server?.close())

  it('is still served below its base, and names the folders inside it where the widget and index go', async () => {
    expect(server.base).toBe('/docs/')
    expect(await (await fetch(`${server.url}/docs/guide/cookies`)).text()).toContain('<h1>Cookies</h1>')
    expect((await fetch(`${server.url}/docs/docpilot/manifest.json`)).status).toBe(200)
    expect(await (await fetch(`${server.url}/docs/docpilot-assets/docpilot.js`)).text()).toBe('/* stand-in shipped loader */')
    const said = lines.join('\n')
    expect(said).toContain('The pages are built for the base path /docs/')
    expect(said).toContain(`docpilot widget --out ${join(work, 'based-bare', 'docpilot-assets')}`)
  })
})

describe('a site without the script tag or an index of its own', () => {
  let server: PreviewServer
  beforeAll(async () => {
    lines.length = 0
    server = await startPreviewServer({ siteDir: site('bare', { tag: false, index: false }), config, indexDir, cwd: work, env: {}, csp: true, dbPath: ':memory:', log })
  })
  afterAll(() => server?.close())

  it('adds the tag to every page, serves the config index where the tag points, and says both', async () => {
    const res = await fetch(`${server.url}/`)
    expect(res.headers.get('content-security-policy')).toBe(STRICT_CSP)
    expect(await res.text()).toContain('<script src="/docpilot-assets/docpilot.js" data-index="/docpilot/" defer></script>')
    const manifest = (await (await fetch(`${server.url}/docpilot/manifest.json`)).json()) as Manifest
    expect(manifest).toEqual(JSON.parse(readFileSync(join(indexDir, 'manifest.json'), 'utf8')))
    const said = lines.join('\n')
    expect(said).toContain('No page in')
    expect(said).toContain('has no index at /docpilot/')
  })

  it('serves the manifest as built, and says which key the chain it names lacks here', () => {
    // The config names openai, so the index names it; this environment has no key for it.
    expect(server.manifest.chat.chain.map((m) => m.provider)).toEqual(['openai'])
    expect(lines.join('\n')).toContain('The index names openai, but OPENAI_API_KEY is not set here')
    // And so it does not say openai answers.
    expect(server.answers).toBe(
      "No member of the index's chain can answer here (OPENAI_API_KEY not set): every question gets a search answer. Set the variable in this environment, or pass --fake-providers.",
    )
  })
})

describe('with no index anywhere', () => {
  it('fails naming both places it looked and the command that builds one', async () => {
    await expect(
      startPreviewServer({ siteDir: site('no-index', { tag: true, index: false }), config, indexDir: join(work, 'nowhere'), cwd: work, env: {}, dbPath: ':memory:' }),
    ).rejects.toThrow(/no index to serve: the pages look for it at \/search-index\/.*`docpilot index --out \S*no-index\/search-index\/?`/)
  })
})

describe('with no site folder', () => {
  it('fails naming the folder and saying to build the site first or pass its folder', async () => {
    const start = (siteDir: string) => startPreviewServer({ siteDir, config, indexDir, cwd: work, env: {}, dbPath: ':memory:' })
    await expect(start('dist')).rejects.toThrow(`The site folder ${join(work, 'dist')} does not exist. Build your site first (e.g. \`npm run build\`), then pass the folder it writes, e.g. \`docpilot preview dist\``)
    writeFileSync(join(work, 'a-file'), '')
    await expect(start('a-file')).rejects.toThrow(`The site folder ${join(work, 'a-file')} is a file, not a folder.`)
  })
})

describe('an index whose chain this environment serves in part', () => {
  it('says only the members that can answer here answer', async () => {
    const chained = validateConfig({ embed: false, chat: { chain: ['openai', 'groq'] } }, '(test)')
    const dir = join(work, 'chained')
    mkdirSync(dir)
    writeFileSync(join(dir, 'index.html'), page('Home'))
    mkdirSync(join(dir, 'docpilot-assets'))
    writeFileSync(join(dir, 'docpilot-assets', 'docpilot.js'), '/* stand-in loader */')
    await buildIndex({ root: join(work, 'source'), mode: 'site', out: join(dir, 'docpilot'), config: chained, docpilotVersion: 'test', embed: { env: {} } })
    const said: string[] = []
    const server = await startPreviewServer({ siteDir: dir, config: chained, indexDir: join(work, 'nowhere'), cwd: work, env: { GROQ_API_KEY: 'gsk-test' }, dbPath: ':memory:', log: (l) => void said.push(l) })
    try {
      expect(server.manifest.chat.chain.map((m) => m.provider)).toEqual(['openai', 'groq'])
      expect(said.join('\n')).toContain('The index names openai, but OPENAI_API_KEY is not set here')
      expect(server.answers).toMatch(/^Answering with: groq \([^)]+\)$/)
    } finally {
      await server.close()
    }
  })
})
