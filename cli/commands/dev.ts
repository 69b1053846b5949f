/**
 * `docpilot dev [docs-dir]`: index the docs and serve them with the panel and
 * the Node proxy on one port. Markdown sources become simple demo pages; a
 * built HTML site is served as it is, with the loader added to each page. The
 * chain is whatever the environment holds keys for (none: every turn is a
 * search answer); `--fake-providers` starts the fake LLM servers and points
 * every member at them, and the page says it is a demo.
 */
import { existsSync, readdirSync, statSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { join, relative, resolve } from 'node:path'
import type { Command } from 'commander'
import type { DocpilotConfig } from '../../core/config/schema.ts'
import { MANIFEST_FILE, type Manifest } from '../../core/index/format.ts'
import { openIndex } from '../../core/retrieval/search.ts'
import type { FakeProviders } from '../../fixtures/providers/index.ts'
import { buildIndex } from '../../indexer/build.ts'
import { fsPartLoader } from '../../indexer/fs-parts.ts'
import { checkPortFree, type NodeProxy } from '../../proxy/node.ts'
import { CONFIG_OPTION_HELP, loadConfig } from '../config-file.ts'
import { FROM_SOURCES, PACKAGE_ROOT } from '../package-root.ts'
import { readIndexManifest } from '../index-dir.ts'
import { loadConfigFor, portNumber, serveUntilStopped, UsageError, type CliContext } from '../context.ts'
import { fakeProvidersFor, localOrigins, localProxy, localStatePath, proxyEnv, whoAnswers, withoutProviderVars } from '../local-proxy.ts'
import { DEMO_CSS, demoPages, injectLoader, renderHome, renderPage, type DemoPage, type PageShell } from '../demo-pages.ts'
import { isHtml, siteFile, siteHostsOf, startSiteServer, type Mount, type PageAnswer } from '../site-server.ts'
import { counted } from '../format.ts'
import { onnxNoteFor, requireWidget, shippedWidgetMounts, SHIPPED_WIDGET_DIR, widgetBuilder } from '../widget-files.ts'

export { STRICT_CSP } from '../site-server.ts'

export const INDEX_PATH = '/docpilot/'
export const ASSET_PATH = '/docpilot-assets/'
export const DEMO_NOTICE = 'Demo: answers come from docpilot’s fake providers, not a real model.'

export interface DevServerOptions {
  /** Docs folder (Markdown/MDX sources or a built HTML site). Default: ./docs when it has pages (in docpilot's own checkout with an empty docs/, fixtures/site/). */
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
  /** Built widget folder. Default: the package's own (rebuilt from the sources first in a checkout). */
  widgetDir?: string
  /** false: serve the widget folder as it is, without rebuilding it (a checkout's only). */
  buildWidget?: boolean
  /** Proxy state (daily counter, feedback). Default .docpilot/dev-proxy.sqlite, or memory without better-sqlite3. */
  dbPath?: string
  /** Extra data- attributes for the loader script on every page. */
  scriptData?: Record<string, string>
  log?: (line: string) => void
}

export interface DevServer {
  url: string
  port: number
  manifest: Manifest
  /** Who answers questions here, in words: the chain's members this environment can serve, or search answers only. */
  answers: string
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
    readdirSync(d, { withFileTypes: true }).some((e) => (e.isDirectory() ? walk(join(d, e.name)) : isHtml(e.name)))
  return walk(dir)
}

function hasMarkdown(dir: string): boolean {
  const walk = (d: string): boolean =>
    readdirSync(d, { withFileTypes: true }).some((e) => (e.isDirectory() ? walk(join(d, e.name)) : /\.mdx?$/i.test(e.name)))
  return walk(dir)
}

/**
 * The docs dev serves when none are named: ./docs when it has pages; in a
 * checkout of docpilot whose docs/ is empty, the fixture site. Only there: an
 * owner's own fixtures/site/ is not their docs, and the docs promise ./docs.
 */
export function defaultDocsDir(cwd: string, checkout: string = PACKAGE_ROOT): string | undefined {
  if (hasPages(resolve(cwd, 'docs'))) return resolve(cwd, 'docs')
  const fixtures = resolve(cwd, 'fixtures/site')
  return resolve(cwd) === resolve(checkout) && hasPages(fixtures) ? fixtures : undefined
}

/**
 * What dev serves at ASSET_PATH: the folder given, else the package's own widget (with the ONNX
 * runtime files when onnxruntime-web is installed); a checkout rebuilds the folder from the sources first.
 * `onnxNote` says why the runtime files are missing, which only an index with an ONNX embedder minds.
 */
async function devWidget(opts: DevServerOptions, log: (line: string) => void): Promise<{ mounts: Mount[]; onnxNote?: string }> {
  const dir = opts.widgetDir ? resolve(opts.cwd ?? process.cwd(), opts.widgetDir) : SHIPPED_WIDGET_DIR
  const build = opts.buildWidget === false ? null : await widgetBuilder()
  if (build) {
    log('building the widget …')
    await build(dir)
  }
  if (opts.widgetDir || build) return { mounts: [{ url: ASSET_PATH, dir: requireWidget(dir), cache: 'revalidate' }] }
  const { mounts, note } = shippedWidgetMounts(ASSET_PATH)
  return { mounts, ...(note ? { onnxNote: note } : {}) }
}

export async function startDevServer(opts: DevServerOptions = {}): Promise<DevServer> {
  const cwd = resolve(opts.cwd ?? process.cwd())
  const log = opts.log ?? (() => {})
  const config = opts.config ?? (await loadConfig({ cwd })).config
  const named = opts.docsDir ?? defaultDocsDir(cwd)
  if (!named) {
    const guessed = join(cwd, 'docs')
    throw new UsageError(`no docs to serve: ${guessed} ${existsSync(guessed) ? 'has no Markdown or HTML pages' : 'does not exist'}; name the folder, e.g. \`docpilot dev ./content\``)
  }
  const docsDir = resolve(cwd, named)
  if (!existsSync(docsDir)) throw new Error(`docs folder ${docsDir} does not exist; pass the folder of your Markdown or built HTML docs`)
  if (!statSync(docsDir).isDirectory()) throw new Error(`${docsDir} is a file, not a folder; pass the docs folder that holds it`)
  const siteMode = isHtmlSite(docsDir) && !hasMarkdown(docsDir)
  const indexDir = resolve(cwd, opts.indexDir ?? '.docpilot/dev-index')
  const agentDir = resolve(cwd, '.docpilot/dev-site')

  let env = opts.env ?? process.env
  // The indexer picks the embedder from the same environment the chain does; a demo's index never
  // embeds through a real key in the shell, nor through the fakes (the offline default model answers).
  const indexEnv = opts.fakeProviders ? withoutProviderVars(env) : env
  const { fakes, own: ownFakes } = await fakeProvidersFor(opts.fakeProviders)
  env = proxyEnv(env, fakes)

  try {
    // Before the index is rebuilt: a second `docpilot dev` on a taken port would otherwise rebuild the first one's
    // index (the same .docpilot/dev-index) under it, from other docs, and only then fail.
    await checkPortFree(opts.port ?? 0, opts.host ?? '127.0.0.1')
    if (opts.index !== 'reuse' || !existsSync(join(indexDir, MANIFEST_FILE))) {
      log(`indexing ${relative(cwd, docsDir) || '.'} …`)
      const built = await buildIndex({
        root: docsDir,
        mode: siteMode ? 'site' : 'source',
        out: indexDir,
        config,
        docpilotVersion: 'dev',
        embed: { env: indexEnv },
        // dev's index is its own scratch copy of whatever folder it was last given, not a deployed one to protect.
        allowShrink: true,
        llms: { siteOut: agentDir },
        // As `docpilot index` says them: a page left out of dev's index would otherwise just be missing.
        onWarnings: (warnings) => warnings.forEach((w) => log(`warning: ${w.file}: ${w.message}`)),
      })
      log(`indexed ${counted(built.files.length, 'file')} into ${counted(built.chunks, 'chunk')}${built.skipped ? `; skipped ${built.skipped} (see the warnings)` : ''}`)
    }
    const widget = await devWidget(opts, log)

    // The proxy serves exactly what `docpilot proxy` and `doctor --proxy` would for this config and
    // environment, and the manifest the panel reads names the same chain.
    const stored = await readIndexManifest(indexDir)
    const onnxNote = onnxNoteFor(stored.embedder, widget.onnxNote)
    if (onnxNote) log(onnxNote)
    // The page's own origin is known once the server listens (the port may be 0: any free one).
    let listening: { host: string; port: number } | undefined
    const origins = () => (listening ? localOrigins(listening.host, listening.port) : [])
    const { proxy, chat, settings } = localProxy(config, env, stored.embedder, localStatePath(cwd, opts.dbPath ?? '.docpilot/dev-proxy.sqlite', log), origins, { indexDir, siteDir: agentDir })
    const manifest: Manifest = { ...stored, chat }
    // A provider the config names stays in the chain without its key; here it would only ever fail.
    const answers = whoAnswers(chat.chain, settings, env, 'config', log, fakes)

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
    // Page URLs are percent-encoded (indexer/urls.ts) and the request path arrives partly decoded
    // (Hono keeps %25): /référence/ matched neither, so a page named in any non-ASCII script was a 404.
    const norm = (u: string) => {
      let decoded = u
      try {
        decoded = decodeURIComponent(u)
      } catch {}
      return decoded.replace(/\/+$/, '') || '/'
    }
    const page = async (path: string): Promise<PageAnswer> => {
      if (siteMode) {
        const found = siteFile(docsDir, path)
        if (found && isHtml(found)) return { html: injectLoader(await readFile(found, 'utf8'), shell) }
        return found ? { file: found } : undefined
      }
      const wanted = path === '/index.html' ? '/' : norm(path)
      const found = pages.find((p) => norm(p.url) === wanted)
      if (found) return { html: renderPage(found, pages, shell) }
      // The page list stands in for a home page only where the docs have none (docs/index.md is served at /,
      // where its citations link).
      return wanted === '/' ? { html: renderHome(pages, shell) } : { html: renderHome(pages, shell), status: 404 }
    }

    const site = await startSiteServer({
      proxy,
      ...(ownFakes ? { onClose: () => fakes!.close() } : {}),
      mounts: [
        { url: INDEX_PATH, dir: indexDir, cache: 'immutable' },
        ...widget.mounts,
      ],
      fixed: {
        [`${INDEX_PATH}manifest.json`]: { body: JSON.stringify(manifest), type: 'application/json; charset=utf-8' },
        [`${ASSET_PATH}demo.css`]: { body: DEMO_CSS, type: 'text/css; charset=utf-8' },
      },
      page,
      csp: opts.csp !== false,
      port: opts.port ?? 0,
      host: opts.host ?? '127.0.0.1',
      siteHosts: siteHostsOf(config.proxy.siteOrigins),
    })
    listening = { host: opts.host ?? '127.0.0.1', port: site.port }
    return {
      url: site.url,
      port: site.port,
      manifest,
      answers,
      proxy,
      ...(fakes ? { fakes } : {}),
      docsDir,
      close: site.close,
    }
  } catch (err) {
    // Already stopped when the site server itself failed to start.
    if (ownFakes) await fakes?.close().catch(() => {})
    throw err
  }
}

interface DevFlags {
  port: number
  host: string
  fakeProviders?: boolean
  csp: boolean
  /** Only in a checkout, where the option exists. */
  build?: boolean
  config?: string
}

export function defineDevCommand(program: Command, ctx: CliContext): void {
  const command = program
    .command('dev')
    .summary('index your docs and serve them with the panel and the proxy on one port')
    .description(
      'Index the docs into .docpilot/dev-index and serve them with the panel and the Node proxy on one port:\n' +
        'Markdown/MDX sources as simple demo pages, a built HTML site as it is (the loader added to each page).\n' +
        'Answers come from the providers whose keys the environment holds; with none, every question gets a\n' +
        'search answer. --fake-providers answers from built-in fake providers instead (the page says it is a demo).\n' +
        'To try your own built site with the index and widget files you deploy, use `docpilot preview`.',
    )
    .argument('[docs-dir]', 'docs folder (Markdown/MDX or built HTML); default: docs.dir from the config, else ./docs')
    .option('-p, --port <port>', 'port to listen on (0: any free port)', portNumber, 4321)
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--fake-providers', 'start the fake LLM providers and answer from them (a demo, no keys needed)')
    .option('--no-csp', 'serve pages without the strict Content-Security-Policy')
  // Only a checkout rebuilds the widget as dev starts; an install's files are prebuilt, so there is no build to skip.
  if (FROM_SOURCES) command.option('--no-build', 'in a checkout of docpilot: serve dist/widget/ as it is instead of rebuilding it first')
  command
    .option('--config <file>', CONFIG_OPTION_HELP)
    .addHelpText(
      'after',
      `
Examples:
  $ docpilot dev                       index ./docs and serve it at http://127.0.0.1:4321/
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
        ...(flags.build === false ? { buildWidget: false } : {}),
        log: (line) => ctx.stderr(`${line}\n`),
      })
      if (server.fakes) await server.fakes.control({ echo: true, deltas: 12, paceMs: 40 })
      ctx.stderr(`${server.answers}\n`)
      ctx.stdout(`docpilot dev: ${server.url}/  (docs: ${relative(ctx.cwd, server.docsDir) || '.'}; Ctrl+C to stop)\n`)
      await serveUntilStopped(server.close)
    })
}
