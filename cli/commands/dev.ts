/**
 * `docpilot dev [docs-dir]`: index the docs, build the widget, and serve a
 * demo site with the panel and the Node proxy on one port. The chain is
 * whatever the environment holds keys for (none: every turn is a search
 * answer); `--fake-providers` starts the fake LLM servers and points every
 * member at them, and the page says it is a demo.
 */
import { existsSync, readdirSync, statSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import type { AddressInfo } from 'node:net'
import { extname, join, relative, resolve, sep } from 'node:path'
import { serve, type ServerType } from '@hono/node-server'
import type { Command } from 'commander'
import { Hono, type Context } from 'hono'
import { compress } from 'hono/compress'
import { publicChat, resolveChain } from '../../core/chain/resolve.ts'
import type { DocpilotConfig } from '../../core/config/schema.ts'
import type { Manifest } from '../../core/index-format.ts'
import { CHAIN } from '../../core/providers/table.ts'
import { openIndex } from '../../core/retrieval/search.ts'
import { startFakeProviders, type FakeProviders } from '../../fixtures/providers/index.ts'
import { buildIndex } from '../../indexer/build.ts'
import { fsPartLoader } from '../../indexer/fs-parts.ts'
import { createNodeProxy, resolveDbPath, type NodeProxy } from '../../proxy/node.ts'
import { routesFor, settingsFor } from '../../proxy/settings.ts'
import { DEMO_CSS, demoPages, injectLoader, renderHome, renderPage, type DemoPage, type PageShell } from '../../widget/demo/pages.ts'
import { buildWidget, DEFAULT_OUT_DIR } from '../../widget/vite.config.ts'
import { loadConfig } from '../config-file.ts'
import { loadConfigFor, UsageError, type CliContext } from '../context.ts'

export const INDEX_PATH = '/docpilot/'
export const ASSET_PATH = '/docpilot-assets/'
export const DEMO_NOTICE = 'Demo: answers come from docpilot’s fake providers, not a real model.'

/**
 * The page's Content-Security-Policy: no inline script, no eval. The one
 * relaxation is 'wasm-unsafe-eval', which WebAssembly compilation needs (for
 * embedders that run a WASM runtime); nothing else is allowed to evaluate code.
 */
export const STRICT_CSP = [
  "default-src 'self'",
  "script-src 'self' 'wasm-unsafe-eval'",
  "style-src 'self'",
  "img-src 'self' data:",
  "connect-src 'self'",
  "worker-src 'self'",
  "object-src 'none'",
  "base-uri 'none'",
  "frame-ancestors 'none'",
  "form-action 'self'",
].join('; ')

export interface DevServerOptions {
  /** Docs folder (Markdown/MDX sources or a built HTML site). Default: docs/ when it has pages, else fixtures/site/. */
  docsDir?: string
  cwd?: string
  /** Defaults to the config file in cwd (or the defaults). */
  config?: DocpilotConfig
  /** Keys and base URLs the proxy and chain resolution read. Default: process.env. */
  env?: Record<string, string | undefined>
  /** true: start the fake providers and point every member at them. A running instance may be passed in. */
  fakeProviders?: boolean | FakeProviders
  port?: number
  host?: string
  /** Send the strict Content-Security-Policy on pages (default true). */
  csp?: boolean
  /** Where the dev index is written (default .docpilot/dev-index). */
  indexDir?: string
  /** 'reuse' serves an index already in indexDir instead of rebuilding it. */
  index?: 'build' | 'reuse'
  /** Built widget folder (default dist/widget/); buildWidget false serves it as it is. */
  widgetDir?: string
  buildWidget?: boolean
  /** Proxy state (daily counter, feedback). Default .docpilot/dev-proxy.sqlite. */
  dbPath?: string
  /** Extra data- attributes for the loader script on every page. */
  scriptData?: Record<string, string>
  log?: (line: string) => void
}

export interface DevServer {
  url: string
  port: number
  manifest: Manifest
  proxy: NodeProxy
  fakes?: FakeProviders
  docsDir: string
  close(): Promise<void>
}

function hasPages(dir: string): boolean {
  if (!existsSync(dir)) return false
  const walk = (d: string): boolean =>
    readdirSync(d, { withFileTypes: true }).some((e) =>
      e.isDirectory() ? !e.name.startsWith('.') && e.name !== 'node_modules' && walk(join(d, e.name)) : /\.(md|mdx|html?)$/i.test(e.name),
    )
  return walk(dir)
}

function isHtmlSite(dir: string): boolean {
  const walk = (d: string): boolean =>
    readdirSync(d, { withFileTypes: true }).some((e) => (e.isDirectory() ? walk(join(d, e.name)) : /\.html?$/i.test(e.name)))
  return walk(dir)
}

export function defaultDocsDir(cwd: string): string {
  const own = resolve(cwd, 'docs')
  return hasPages(own) ? own : resolve(cwd, 'fixtures/site')
}

/** Every provider variable removed: a fake-provider demo must never reach a real service with a real key. */
function withoutProviderVars(env: Record<string, string | undefined>): Record<string, string | undefined> {
  const out = { ...env }
  for (const spec of CHAIN) {
    if (spec.keyEnv) delete out[spec.keyEnv]
    delete out[spec.baseUrlEnv]
  }
  return out
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.htm': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.json': 'application/json; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.jpg': 'image/jpeg',
  '.wasm': 'application/wasm',
  '.txt': 'text/plain; charset=utf-8',
}

/** A file under `root`, or undefined when the path escapes it or names nothing. */
function safeFile(root: string, urlPath: string): string | undefined {
  let decoded: string
  try {
    decoded = decodeURIComponent(urlPath)
  } catch {
    return undefined
  }
  const file = resolve(root, `.${decoded.startsWith('/') ? decoded : `/${decoded}`}`)
  if (file !== root && !file.startsWith(root.endsWith(sep) ? root : root + sep)) return undefined
  try {
    return statSync(file).isFile() ? file : undefined
  } catch {
    return undefined
  }
}

export async function startDevServer(opts: DevServerOptions = {}): Promise<DevServer> {
  const cwd = resolve(opts.cwd ?? process.cwd())
  const log = opts.log ?? (() => {})
  const config = opts.config ?? (await loadConfig({ cwd })).config
  const docsDir = resolve(cwd, opts.docsDir ?? defaultDocsDir(cwd))
  if (!existsSync(docsDir)) throw new Error(`docs folder ${docsDir} does not exist; pass the folder of your Markdown or built HTML docs`)
  const siteMode = isHtmlSite(docsDir) && !hasMarkdown(docsDir)
  const indexDir = resolve(cwd, opts.indexDir ?? '.docpilot/dev-index')

  let fakes: FakeProviders | undefined
  let ownFakes = false
  let env = opts.env ?? process.env
  // The indexer picks the embedder from the same environment the chain does; a demo's index never
  // embeds through a real key in the shell, nor through the fakes (the offline default model answers).
  const indexEnv = opts.fakeProviders ? withoutProviderVars(env) : env
  if (opts.fakeProviders) {
    fakes = opts.fakeProviders === true ? await startFakeProviders() : opts.fakeProviders
    ownFakes = opts.fakeProviders === true
    env = { ...withoutProviderVars(env), ...fakes.env() }
  }

  if (opts.index !== 'reuse' || !existsSync(join(indexDir, 'manifest.json'))) {
    log(`indexing ${relative(cwd, docsDir) || '.'} …`)
    const built = await buildIndex({
      root: docsDir,
      mode: siteMode ? 'site' : 'source',
      out: indexDir,
      config,
      docpilotVersion: 'dev',
      embed: { env: indexEnv },
    })
    log(`indexed ${built.files.length} files into ${built.chunks} chunks`)
  }

  const widgetDir = resolve(cwd, opts.widgetDir ?? DEFAULT_OUT_DIR)
  if (opts.buildWidget !== false) {
    log('building the widget …')
    await buildWidget(widgetDir)
  }
  if (!existsSync(join(widgetDir, 'docpilot.js'))) {
    throw new Error(`the widget is not built in ${widgetDir}; run \`npm run build:widget\` or drop --no-build`)
  }

  // The chain this environment holds, written into the manifest the panel reads.
  const resolved = resolveChain(config.chat, env, { budget: config.budget })
  const stored = JSON.parse(await readFile(join(indexDir, 'manifest.json'), 'utf8')) as Manifest
  const manifest: Manifest = { ...stored, chat: publicChat(resolved, config.chat) }
  const { chain } = manifest.chat
  const manifestJson = JSON.stringify(manifest)

  const proxy = createNodeProxy({
    settings: settingsFor(routesFor(chain, manifest.embedder), config, resolved.rationing),
    env,
    dbPath: resolveDbPath(cwd, opts.dbPath ?? '.docpilot/dev-proxy.sqlite'),
  })

  const shell: PageShell = {
    assetBase: ASSET_PATH,
    indexUrl: INDEX_PATH,
    ...(fakes ? { demoNotice: DEMO_NOTICE } : {}),
    ...(opts.scriptData ? { scriptData: opts.scriptData } : {}),
  }
  let pages: DemoPage[] = []
  if (!siteMode) {
    const index = await openIndex(fsPartLoader(indexDir))
    pages = demoPages(await index.chunks([...Array(index.size).keys()]))
  }

  const csp = opts.csp !== false
  const html = (c: Context, body: string, status = 200) => {
    if (csp) c.header('content-security-policy', STRICT_CSP)
    c.header('cache-control', 'no-store')
    return c.html(body, status as 200)
  }
  const file = async (c: Context, path: string, immutable = false) => {
    const type = TYPES[extname(path).toLowerCase()] ?? 'application/octet-stream'
    return c.body(await readFile(path), 200, {
      'content-type': type,
      'cache-control': immutable ? 'public, max-age=31536000, immutable' : 'no-cache',
    })
  }

  const app = new Hono()
  app.all('/ai/*', (c) => proxy.app.fetch(c.req.raw, c.env))
  app.get(`${INDEX_PATH}manifest.json`, (c) => c.body(manifestJson, 200, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-cache' }))
  app.get(`${INDEX_PATH}*`, async (c) => {
    const path = safeFile(indexDir, c.req.path.slice(INDEX_PATH.length))
    return path ? file(c, path, true) : c.notFound()
  })
  // Widget code and JSON compressed on the wire, as any production server does (the bench counts these bytes).
  // Not /ai/: a streamed answer must reach the reader delta by delta.
  app.use(`${ASSET_PATH}*`, compress())
  app.use(`${INDEX_PATH}*`, compress())
  // The demo has no icon; say so instead of a 404 in every reader's console.
  app.get('/favicon.ico', (c) => c.body(null, 204))
  app.get(`${ASSET_PATH}demo.css`, (c) => c.body(DEMO_CSS, 200, { 'content-type': 'text/css; charset=utf-8' }))
  app.get(`${ASSET_PATH}*`, async (c) => {
    const path = safeFile(widgetDir, c.req.path.slice(ASSET_PATH.length))
    return path ? file(c, path) : c.notFound()
  })
  app.get('*', async (c) => {
    const path = c.req.path
    if (siteMode) {
      const found = safeFile(docsDir, path) ?? safeFile(docsDir, join(path, 'index.html')) ?? safeFile(docsDir, `${path.replace(/\/$/, '')}.html`)
      if (!found) return html(c, '<!doctype html><title>Not found</title><p>Not found.</p>', 404)
      if (/\.html?$/i.test(found)) return html(c, injectLoader(await readFile(found, 'utf8'), shell))
      return file(c, found)
    }
    if (path === '/' || path === '/index.html') return html(c, renderHome(pages, shell))
    const norm = (u: string) => u.replace(/\/+$/, '') || '/'
    const page = pages.find((p) => norm(p.url) === norm(path))
    return page ? html(c, renderPage(page, pages, shell)) : html(c, renderHome(pages, shell), 404)
  })

  const server = await new Promise<ServerType>((ok) => {
    const s = serve({ fetch: app.fetch, port: opts.port ?? 0, hostname: opts.host ?? '127.0.0.1' }, () => ok(s))
  })
  const { port } = server.address() as AddressInfo
  const url = `http://${opts.host && opts.host !== '0.0.0.0' ? opts.host : '127.0.0.1'}:${port}`

  return {
    url,
    port,
    manifest,
    proxy,
    ...(fakes ? { fakes } : {}),
    docsDir,
    async close() {
      await new Promise<void>((done) => {
        server.close(() => done())
        if ('closeAllConnections' in server) server.closeAllConnections()
      })
      proxy.close()
      if (ownFakes) await fakes?.close()
    },
  }
}

function hasMarkdown(dir: string): boolean {
  const walk = (d: string): boolean =>
    readdirSync(d, { withFileTypes: true }).some((e) => (e.isDirectory() ? walk(join(d, e.name)) : /\.mdx?$/i.test(e.name)))
  return walk(dir)
}

function describeChain(server: DevServer): string {
  const chain = server.manifest.chat.chain
  if (chain.length === 0) {
    return 'No provider keys in the environment: every question gets a search answer (set e.g. OPENAI_API_KEY, or pass --fake-providers).'
  }
  return `Answering with: ${chain.map((m) => `${m.provider} (${m.models.join(', ')})`).join(' → ')}`
}

interface DevFlags {
  port: number
  host: string
  fakeProviders?: boolean
  csp: boolean
  build: boolean
  config?: string
}

export function defineDevCommand(program: Command, ctx: CliContext): void {
  program
    .command('dev')
    .summary('serve a demo site with the panel and the proxy on one port')
    .description(
      'Index the docs, build the widget, and serve a demo site with the panel and the Node proxy on one port. ' +
        'Answers come from the providers whose keys the environment holds; with none, every question gets a ' +
        'search answer. --fake-providers answers from built-in fake providers instead (the page says it is a demo).',
    )
    .argument('[docs-dir]', 'docs folder (Markdown/MDX or built HTML); default docs/ when it has pages, else fixtures/site/')
    .option('-p, --port <port>', 'port to listen on', portNumber, 4321)
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--fake-providers', 'start the fake LLM providers and answer from them (a demo, no keys needed)')
    .option('--no-csp', 'serve pages without the strict Content-Security-Policy')
    .option('--no-build', 'serve the widget already built in dist/widget/')
    .option('--config <file>', 'config file (default: docpilot.config.{ts,mts,js,mjs,json} in the working directory)')
    .addHelpText(
      'after',
      `
Examples:
  $ docpilot dev                       index docs/ (or fixtures/site/) and serve http://127.0.0.1:4321/
  $ docpilot dev --fake-providers      the same, answered by built-in fake providers
  $ OPENAI_API_KEY=... docpilot dev    answer with a real provider through the local proxy

Keys stay in this process (the proxy); the page only ever calls same-origin /ai/... routes.`,
    )
    .action(async (docsDir: string | undefined, flags: DevFlags) => {
      const loaded = await loadConfigFor(ctx, flags.config)
      const server = await startDevServer({
        cwd: ctx.cwd,
        config: loaded.config,
        env: ctx.env,
        ...(docsDir ? { docsDir } : loaded.config.docs.dir ? { docsDir: resolve(loaded.dir, loaded.config.docs.dir) } : {}),
        port: flags.port,
        host: flags.host,
        fakeProviders: Boolean(flags.fakeProviders),
        csp: flags.csp,
        buildWidget: flags.build,
        log: (line) => ctx.stderr(`${line}\n`),
      })
      if (server.fakes) await server.fakes.control({ echo: true, deltas: 12, paceMs: 40 })
      ctx.stderr(`${describeChain(server)}\n`)
      ctx.stdout(`docpilot dev: ${server.url}/  (docs: ${relative(ctx.cwd, server.docsDir) || '.'}; Ctrl+C to stop)\n`)
      await new Promise<void>((done) => {
        const stop = () => void server.close().then(done)
        process.once('SIGINT', stop)
        process.once('SIGTERM', stop)
      })
    })
}

function portNumber(raw: string): number {
  const n = Number(raw)
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new UsageError(`--port must be a whole number from 0 to 65535 (got "${raw}")`)
  return n
}
