/**
 * `docpilot preview [site-dir]`: serve an owner's built static site and the
 * Node proxy on one origin, so the real pages, the real index, the real widget
 * files and their real keys (or the fake providers) can be tried before
 * deploying. Nothing is rebuilt: the pages are served as they are, and the
 * index and widget from where the pages' script tag says they live. What is
 * missing there is filled in from the config's index folder and the package's
 * own widget, and said so.
 */
import { readdirSync, statSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { dirname, join, relative, resolve } from 'node:path'
import type { Command } from 'commander'
import type { DocpilotConfig } from '../../core/config/schema.ts'
import { MANIFEST_FILE, type Manifest } from '../../core/index/format.ts'
import type { FakeProviders } from '../../fixtures/providers/index.ts'
import type { NodeProxy } from '../../proxy/node.ts'
import { CONFIG_OPTION_HELP } from '../config-file.ts'
import { indexDirFor, loadConfigFor, portNumber, serveUntilStopped, UsageError, type CliContext } from '../context.ts'
import { injectLoader } from '../demo-pages.ts'
import { readIndexManifest } from '../index-dir.ts'
import { fakeProvidersFor, localOrigins, localProxy, localStatePath, proxyEnv, whoAnswers } from '../local-proxy.ts'
import { isHtml, siteFile, siteHostsOf, startSiteServer, type Mount } from '../site-server.ts'
import { onnxNoteFor, shippedWidgetMounts } from '../widget-files.ts'
import { ASSET_PATH, DEMO_NOTICE, INDEX_PATH } from './dev.ts'

/** Where the pages load the widget and the index from: the loader's script tag. */
export interface LoaderTag {
  /** URL path of the loader script, e.g. /docpilot-assets/docpilot.js. */
  src: string
  /** URL path of the index folder, e.g. /docpilot/. */
  index: string
  /** The first page that has it, relative to the site folder. */
  page: string
}

const LOADER_TAG = /<script\b[^>]*\bsrc\s*=\s*["']([^"']*docpilot\.js)["'][^>]*>/i
const DATA_INDEX = /\bdata-index\s*=\s*["']([^"']*)["']/i

function htmlFiles(dir: string, base = dir): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((e) => {
    if (e.isDirectory()) return e.name === 'node_modules' || e.name.startsWith('.') ? [] : htmlFiles(join(dir, e.name), base)
    return isHtml(e.name) ? [relative(base, join(dir, e.name)).split('\\').join('/')] : []
  })
}

/** A URL as written in a page, as a path on the site's own origin (undefined for another origin). */
function sitePath(value: string, page: string): string | undefined {
  const url = new URL(value, `http://site.invalid/${page}`)
  return url.origin === 'http://site.invalid' ? decodeURIComponent(url.pathname) : undefined
}

/** The docpilot loader tag of the first page that has one, index.html first. */
export async function findLoaderTag(siteDir: string): Promise<LoaderTag | undefined> {
  const pages = htmlFiles(siteDir).sort((a, b) => Number(b === 'index.html') - Number(a === 'index.html') || a.localeCompare(b))
  for (const page of pages) {
    const tag = LOADER_TAG.exec(await readFile(join(siteDir, page), 'utf8'))
    if (!tag) continue
    const src = sitePath(tag[1]!, page)
    const index = sitePath(DATA_INDEX.exec(tag[0])?.[1] ?? INDEX_PATH, page)
    if (src && index) return { src, index: index.endsWith('/') ? index : `${index}/`, page }
  }
  return undefined
}

/**
 * The URL path the site folder is deployed below: '/' unless its pages were
 * built for a base path (VitePress `base`, Docusaurus `baseUrl`, Astro `base`),
 * whose output holds at its root what the pages load from below that base.
 * `pageHtml`, the page holding the tag, tells it when neither the widget nor
 * the index is in the site yet: what else the page loads or links (its
 * stylesheet, the next page) is found below the base, and not as written.
 */
export function siteBase(siteDir: string, tag: LoaderTag | undefined, pageHtml = ''): string {
  if (!tag || siteFile(siteDir, tag.src)) return '/'
  const dirs = tag.src.split('/').slice(1, -1)
  const linked = [...pageHtml.matchAll(/\b(?:href|src)\s*=\s*["'](\/(?!\/)[^"'#?]*)/gi)].map((m) => m[1]!)
  for (let n = 1; n < dirs.length; n++) {
    const base = `/${dirs.slice(0, n).join('/')}/`
    const below = (url: string) => url.slice(base.length - 1)
    if (!tag.index.startsWith(base)) continue
    if (siteFile(siteDir, below(tag.src)) || siteFile(siteDir, `${below(tag.index)}${MANIFEST_FILE}`)) return base
    if (linked.some((url) => url.startsWith(base) && !siteFile(siteDir, url) && siteFile(siteDir, below(url)))) return base
  }
  return '/'
}

export interface PreviewOptions {
  siteDir: string
  config: DocpilotConfig
  /** The index to serve when the site folder has none where the pages look (default: the config's `out`). */
  indexDir: string
  cwd: string
  env: Record<string, string | undefined>
  fakeProviders?: boolean | FakeProviders
  port?: number
  host?: string
  /** Send docpilot's strict Content-Security-Policy with every page (default false: the site's pages are its own). */
  csp?: boolean
  /** Proxy state (daily counter, feedback). Default .docpilot/preview-proxy.sqlite, or memory without better-sqlite3. */
  dbPath?: string
  log?: (line: string) => void
  /** The widget served when the site folder has none (default: the package's own build). */
  shippedWidgetDir?: string
}

export interface PreviewServer {
  url: string
  /** The path the site is served below ('/', or the base its pages were built for, e.g. '/docs/'). */
  base: string
  manifest: Manifest
  /** Who answers questions here, in words: the chain's members this environment can serve, or search answers only. */
  answers: string
  proxy: NodeProxy
  fakes?: FakeProviders
  close(): Promise<void>
}

export async function startPreviewServer(opts: PreviewOptions): Promise<PreviewServer> {
  const log = opts.log ?? (() => {})
  const siteDir = resolve(opts.cwd, opts.siteDir)
  const kind = statSync(siteDir, { throwIfNoEntry: false })
  if (!kind?.isDirectory()) {
    throw new Error(
      `The site folder ${siteDir} ${kind ? 'is a file, not a folder' : 'does not exist'}. Build your site first (e.g. \`npm run build\`), ` +
        'then pass the folder it writes, e.g. `docpilot preview dist` (or set docs.site in docpilot.config.ts).',
    )
  }
  if (!siteFile(siteDir, '/') && htmlFiles(siteDir).length === 0) {
    throw new UsageError(`${opts.siteDir} has no HTML pages; pass the folder your site generator builds (e.g. dist, build or .vitepress/dist)`)
  }

  const tag = await findLoaderTag(siteDir)
  const loaderUrl = tag?.src ?? `${ASSET_PATH}docpilot.js`
  const indexUrl = tag?.index ?? INDEX_PATH
  const assetUrl = loaderUrl.slice(0, loaderUrl.lastIndexOf('/') + 1)
  const base = siteBase(siteDir, tag, tag ? await readFile(join(siteDir, tag.page), 'utf8') : '')
  /** Where a URL path's file sits in the site folder (undefined: outside the base the site is served below). */
  const inSite = (url: string) => (url.startsWith(base) ? url.slice(base.length - 1) : undefined)
  const siteFileAt = (url: string) => {
    const path = inSite(url)
    return path === undefined ? undefined : siteFile(siteDir, path)
  }
  const mounts: Mount[] = []
  if (tag) log(`Pages load ${loaderUrl} with the index at ${indexUrl} (first seen in ${tag.page}).`)
  else log(`No page in ${opts.siteDir} loads docpilot.js: preview adds the script tag to every page it serves. Your deployed pages need it too (\`docpilot widget\` prints it).`)
  if (base !== '/') log(`The pages are built for the base path ${base}: serving ${opts.siteDir} below it.`)

  let onnxNote: string | undefined
  if (!siteFileAt(loaderUrl)) {
    const shipped = shippedWidgetMounts(assetUrl, opts.shippedWidgetDir)
    mounts.push(...shipped.mounts)
    onnxNote = shipped.note
    log(`${opts.siteDir} has no ${loaderUrl}: serving docpilot's own widget files at ${assetUrl} (\`docpilot widget --out ${join(opts.siteDir, inSite(assetUrl) ?? assetUrl)}\` puts them in your site).`)
  }
  const siteManifest = siteFileAt(`${indexUrl}manifest.json`)
  let manifestFile = siteManifest
  if (!manifestFile) {
    const fallback = siteFile(opts.indexDir, `/${MANIFEST_FILE}`)
    if (!fallback) {
      throw new Error(
        `no index to serve: the pages look for it at ${indexUrl}, and neither ${join(opts.siteDir, inSite(indexUrl) ?? indexUrl, MANIFEST_FILE)} nor ` +
          `${join(relative(opts.cwd, opts.indexDir) || '.', MANIFEST_FILE)} exists. Build it into the site: \`docpilot index --out ${join(opts.siteDir, inSite(indexUrl) ?? indexUrl)}\``,
      )
    }
    mounts.push({ url: indexUrl, dir: opts.indexDir, cache: 'immutable' })
    manifestFile = fallback
    log(`${opts.siteDir} has no index at ${indexUrl}: serving ${relative(opts.cwd, opts.indexDir) || '.'} there.`)
  }
  const stored = await readIndexManifest(dirname(manifestFile))
  const onnxMissing = onnxNoteFor(stored.embedder, onnxNote)
  if (onnxMissing) log(onnxMissing)

  const { fakes, own: ownFakes } = await fakeProvidersFor(opts.fakeProviders)
  try {
    const env = proxyEnv(opts.env, fakes)
    // The page's own origin is known once the server listens (the port may be 0: any free one).
    let listening: { host: string; port: number } | undefined
    const origins = () => (listening ? localOrigins(listening.host, listening.port) : [])
    const mcp = { indexDir: dirname(manifestFile), siteDir }
    const { proxy, chat, settings } = localProxy(opts.config, env, stored.embedder, localStatePath(opts.cwd, opts.dbPath ?? '.docpilot/preview-proxy.sqlite', log), origins, mcp)
    // The real manifest, as deployed; with the fakes, the chain they stand in for, as `dev` does.
    const manifest: Manifest = fakes ? { ...stored, chat } : stored
    // Who answers here: the members this environment can serve, not every member the index names.
    const answers = whoAnswers(manifest.chat.chain, settings, env, 'index', log, fakes)

    const shell = { assetBase: assetUrl, indexUrl, ...(fakes ? { demoNotice: DEMO_NOTICE } : {}) }
    const site = await startSiteServer({
      proxy,
      ...(ownFakes ? { onClose: () => fakes!.close() } : {}),
      mounts,
      fixed: fakes ? { [`${indexUrl}manifest.json`]: { body: JSON.stringify(manifest), type: 'application/json; charset=utf-8' } } : {},
      page: async (path) => {
        const found = siteFileAt(path)
        if (found && isHtml(found) && !tag) return { html: injectLoader(await readFile(found, 'utf8'), shell) }
        if (found) return { file: found }
        const notFound = siteFile(siteDir, '/404.html')
        return notFound ? { html: await readFile(notFound, 'utf8'), status: 404 } : undefined
      },
      csp: Boolean(opts.csp),
      port: opts.port ?? 0,
      host: opts.host ?? '127.0.0.1',
      siteHosts: siteHostsOf(opts.config.proxy.siteOrigins),
    })
    listening = { host: opts.host ?? '127.0.0.1', port: site.port }
    return {
      url: site.url,
      base,
      manifest,
      answers,
      proxy,
      ...(fakes ? { fakes } : {}),
      close: site.close,
    }
  } catch (err) {
    // Already stopped when the site server itself failed to start.
    if (ownFakes) await fakes?.close().catch(() => {})
    throw err
  }
}

interface PreviewFlags {
  port: number
  host: string
  fakeProviders?: boolean
  csp?: boolean
  config?: string
  index?: string
}

export function definePreviewCommand(program: Command, ctx: CliContext): void {
  program
    .command('preview')
    .summary('serve your built site with the panel and the proxy on one origin, before you deploy')
    .description(
      'Serve your built static site as it is, with the key-holding proxy on the same origin (/ai/...), so the real\n' +
        'pages, index, widget files and keys can be tried before deploying. The pages\' docpilot script tag says where\n' +
        'the widget and the index live; what the site folder lacks there is served from the config\'s index folder\n' +
        '(`out`) and docpilot\'s own widget files, and said so. Keys come from this process\'s environment, as for\n' +
        '`docpilot proxy`; --fake-providers answers from built-in fake providers instead (no keys needed).',
    )
    .argument('[site-dir]', 'your built site (default: docs.site from the config)')
    .option('-p, --port <port>', 'port to listen on (0: any free port)', portNumber, 4321)
    .option('--host <host>', 'interface to listen on', '127.0.0.1')
    .option('--fake-providers', 'answer from built-in fake providers (a demo: the page says so)')
    .option('--csp', "send docpilot's strict Content-Security-Policy with every page, to check the panel runs under it")
    .option('--index <dir>', 'index to serve when the site folder has none where its pages look (default: `out` from the config)')
    .option('--config <file>', CONFIG_OPTION_HELP)
    .addHelpText(
      'after',
      `
Examples:
  $ docpilot index --out dist/docpilot && docpilot widget --out dist/docpilot-assets
  $ docpilot preview dist                          your built site at http://127.0.0.1:4321/
  $ OPENAI_API_KEY=... docpilot preview dist       answers from a real provider through the local proxy
  $ docpilot preview dist --fake-providers         streamed answers without a key`,
    )
    .action(async (siteDir: string | undefined, flags: PreviewFlags) => {
      const loaded = await loadConfigFor(ctx, flags.config)
      const dir = siteDir ?? (loaded.config.docs.site ? resolve(loaded.dir, loaded.config.docs.site) : undefined)
      if (!dir) throw new UsageError('name your built site folder, e.g. `docpilot preview dist` (or set docs.site in the config)')
      const server = await startPreviewServer({
        siteDir: dir,
        config: loaded.config,
        indexDir: indexDirFor(ctx, loaded, flags.index),
        cwd: ctx.cwd,
        env: ctx.env,
        fakeProviders: Boolean(flags.fakeProviders),
        port: flags.port,
        host: flags.host,
        csp: Boolean(flags.csp),
        log: (line) => ctx.stderr(`${line}\n`),
      })
      if (server.fakes) await server.fakes.control({ echo: true, deltas: 12, paceMs: 40 })
      ctx.stderr(`${server.answers}\n`)
      ctx.stdout(`docpilot preview: ${server.url}${server.base}  (site: ${relative(ctx.cwd, resolve(ctx.cwd, dir)) || '.'}; Ctrl+C to stop)\n`)
      await serveUntilStopped(server.close)
    })
}
