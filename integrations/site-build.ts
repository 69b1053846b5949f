/**
 * What every framework integration does once the framework has written its
 * site: index the built pages into `<outDir>/docpilot/` and write the widget
 * into `<outDir>/docpilot-assets/`, where the script tag each integration adds
 * to the pages looks for them, and the agent files (llms.txt, llms-full.txt,
 * the page copies) into `<outDir>`. `docpilot preview <outDir>` then serves the
 * result as deployed.
 *
 * The owner's options are docpilot's own config (one schema, validated the
 * same way as docpilot.config.ts), with errors naming the framework's config
 * file. What the framework already knows (its base path, its URL shape) comes
 * in as defaults the owner's options override.
 *
 * Everything heavy (indexer, widget files) is imported on use, so loading the
 * framework config costs only the schema.
 */
import { join, relative } from 'node:path'
import type { DocpilotConfig, DocpilotConfigInput } from '../core/config/schema.ts'
import { closestKey, ConfigError, validateConfig } from '../core/config/validate.ts'

/**
 * The loader's `data-*` attributes (docs/widget.md), for the script tag the
 * integration writes: `{ proxy: 'https://ai.example.com', hotkeys: '/' }`
 * becomes `data-proxy="https://ai.example.com" data-hotkeys="/"`.
 */
export interface WidgetAttributes {
  proxy?: string
  assets?: string
  placement?: 'bottom-right' | 'bottom-left' | 'none'
  theme?: 'auto' | 'light' | 'dark'
  label?: string
  hotkeys?: string
  conversation?: 'tab' | 'browser' | 'none'
  searchUrl?: string
  prefetch?: 'none' | 'false'
}

const WIDGET_ATTRIBUTES = ['proxy', 'assets', 'placement', 'theme', 'label', 'hotkeys', 'conversation', 'searchUrl', 'prefetch'] as const

/**
 * What an owner passes to an integration: docpilot's config, every field
 * optional, plus `widget`, the attributes of the script tag the integration
 * writes (the one thing docpilot.config.ts does not hold).
 */
export type DocpilotOptions = DocpilotConfigInput & { widget?: WidgetAttributes }

/** Folder names inside the built site (URL paths below the site's base). */
export const INDEX_FOLDER = 'docpilot'
export const ASSET_FOLDER = 'docpilot-assets'

export interface FrameworkSite {
  /** The framework's name, for messages ("VitePress"). */
  framework: string
  /** The framework config file the options are written in (errors name it), when known. */
  configFile: string | undefined
  /** The project folder: relative paths in the options (embed model folders, caches) resolve against it. */
  root: string
}

/** The URL path of the site's base, with one leading and one trailing slash ('/', '/docs/'). */
export function normalizeBase(base: string | undefined): string {
  const trimmed = (base ?? '/').replace(/^\/+|\/+$/g, '')
  return trimmed ? `/${trimmed}/` : '/'
}

const kebab = (name: string) => name.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)

/**
 * The locale folder a built page (a path relative to the built site) belongs to, of the site's
 * locales that have their own index (see indexBuiltSite).
 */
export function localeOf(page: string, locales: readonly string[]): string | undefined {
  return locales.find((locale) => page.startsWith(`${locale}/`))
}

/**
 * The script tag's attributes for a site served under `base`: the loader, the index (its
 * locale's, for a page of a locale folder), and the owner's widget attributes.
 */
export function loaderAttributes(base: string, widget: WidgetAttributes = {}, locale?: string): Record<string, string> {
  const root = normalizeBase(base)
  const attributes: Record<string, string> = { src: `${root}${ASSET_FOLDER}/docpilot.js`, 'data-index': `${root}${locale ? `${locale}/` : ''}${INDEX_FOLDER}/` }
  for (const [name, value] of Object.entries(widget)) if (value !== undefined) attributes[`data-${kebab(name)}`] = String(value)
  return { ...attributes, defer: '' }
}

const escapeAttribute = (value: string) => value.replaceAll('&', '&amp;').replaceAll('"', '&quot;').replaceAll('<', '&lt;')

/** The loader's script tag as HTML. */
export function loaderTag(base: string, widget: WidgetAttributes = {}, locale?: string): string {
  const attributes = Object.entries(loaderAttributes(base, widget, locale)).map(([name, value]) => (value ? `${name}="${escapeAttribute(value)}"` : name))
  return `<script ${attributes.join(' ')}></script>`
}

/**
 * Adds the loader's script tag to every built page that lacks it, before
 * `</head>`: for frameworks whose config has no head hook an integration can
 * reach. A page in one of `locales` (indexBuiltSite's) loads its locale's
 * index. Returns how many pages were changed.
 */
export async function addLoaderTags(outDir: string, base: string, widget: WidgetAttributes = {}, locales: readonly string[] = []): Promise<number> {
  const [{ glob }, { readFile, writeFile }, { existsSync }] = await Promise.all([import('tinyglobby'), import('node:fs/promises'), import('node:fs')])
  // With every page in a locale folder there is no root index: a page outside them (404.html) gets the first locale's.
  const rootLocale = locales.length && !existsSync(join(outDir, INDEX_FOLDER)) ? locales[0] : undefined
  let changed = 0
  for (const page of await glob('**/*.html', { cwd: outDir, ignore: [`${INDEX_FOLDER}/**`, `${ASSET_FOLDER}/**`, `*/${INDEX_FOLDER}/**`] })) {
    const file = join(outDir, page)
    const html = await readFile(file, 'utf8')
    const head = html.search(/<\/head\s*>/i)
    if (head < 0 || html.includes(`${ASSET_FOLDER}/docpilot.js`)) continue
    await writeFile(file, `${html.slice(0, head)}${loaderTag(base, widget, localeOf(page, locales) ?? rootLocale)}${html.slice(head)}`)
    changed++
  }
  return changed
}

const isPlainObject = (v: unknown): v is Record<string, unknown> =>
  typeof v === 'object' && v !== null && !Array.isArray(v) && Object.getPrototypeOf(v) === Object.prototype

/** `over` on top of `under`, object by object (arrays and other values are replaced whole). */
export function mergeOptions<T>(under: T, over: unknown): T {
  if (!isPlainObject(under) || !isPlainObject(over)) return (over === undefined ? under : over) as T
  const out: Record<string, unknown> = { ...under }
  for (const [key, value] of Object.entries(over)) out[key] = mergeOptions(out[key], value)
  return out as T
}

/** A path as the owner would name it: relative to the working directory when inside it. */
function shownPath(path: string): string {
  const rel = relative(process.cwd(), path)
  return rel && !rel.startsWith('..') ? rel : path
}

function shown(site: FrameworkSite): string {
  return site.configFile ? shownPath(site.configFile) : `the ${site.framework} config`
}

const optionsFile = (site: FrameworkSite) => `${shown(site)} (docpilot options)`

/** The owner's `widget` attributes, checked by name and type (the loader itself never throws on them). */
function widgetAttributes(site: FrameworkSite, widget: unknown): WidgetAttributes {
  if (widget === undefined) return {}
  if (!isPlainObject(widget)) throw new ConfigError(optionsFile(site), ['widget must be an object of script tag attributes such as { hotkeys: "/" }'])
  const known: readonly string[] = WIDGET_ATTRIBUTES
  const problems = Object.entries(widget).flatMap(([name, value]) => {
    if (!known.includes(name)) {
      const guess = closestKey(name, known)
      return [`widget.${name} is not a script tag attribute; ${guess ? `did you mean widget.${guess}?` : `known: ${known.join(', ')}`}`]
    }
    return typeof value === 'string' ? [] : [`widget.${name} must be a string (got ${JSON.stringify(value)})`]
  })
  if (problems.length) throw new ConfigError(optionsFile(site), problems)
  return widget as WidgetAttributes
}

export interface ResolvedOptions {
  config: DocpilotConfig
  widget: WidgetAttributes
}

/**
 * The owner's options validated like docpilot.config.ts, with the framework's
 * defaults underneath. A problem throws a ConfigError naming the framework's config file.
 */
export function resolveOptions(site: FrameworkSite, options: DocpilotOptions | undefined, defaults: DocpilotOptions = {}): ResolvedOptions {
  // Anything but an object is passed on as it is, for the schema to say what it should be.
  const input = options === undefined ? defaults : isPlainObject(options) ? mergeOptions(defaults, options) : options
  const { widget, ...config } = isPlainObject(input) ? input : { widget: undefined }
  return {
    config: validateConfig(isPlainObject(input) ? config : input, optionsFile(site)),
    widget: widgetAttributes(site, widget),
  }
}

/**
 * The files of a locale folder the owner's `docs.exclude` leaves out, as patterns relative to that folder, which
 * its index walks. The patterns are written relative to the built site, as for `docpilot index --site` (a locale's
 * drafts are `fr/drafts/**`), so they are matched against each file's path from the site, with the glob's own
 * rules, rather than rewritten.
 */
async function excludedIn(outDir: string, locale: string, patterns: string[]): Promise<string[]> {
  if (!patterns.length) return []
  const { escapePath, glob } = await import('tinyglobby')
  const files = `${escapePath(locale)}/**`
  const kept = new Set(await glob(files, { cwd: outDir, ignore: patterns }))
  return (await glob(files, { cwd: outDir })).filter((file) => !kept.has(file)).map((file) => escapePath(file.slice(locale.length + 1)))
}

/**
 * An llms.txt or llms-full.txt in a built folder that docpilot did not write: the owner's own, which the
 * framework copied from the site's public folder. Only each file's start is read.
 */
async function ownersAgentFile(dir: string): Promise<string | undefined> {
  const [{ open }, { LLMS_FULL_TXT, LLMS_TXT }, { writtenByDocpilot }] = await Promise.all([import('node:fs/promises'), import('../core/site-files.ts'), import('../indexer/llms.ts')])
  for (const name of [LLMS_TXT, LLMS_FULL_TXT] as const) {
    const file = join(dir, name)
    const handle = await open(file).catch(() => undefined)
    if (!handle) continue
    try {
      const { buffer, bytesRead } = await handle.read(Buffer.alloc(4096), 0, 4096, 0)
      if (!writtenByDocpilot(name, buffer.subarray(0, bytesRead).toString('utf8'))) return file
    } finally {
      await handle.close()
    }
  }
  return undefined
}

export interface IndexSiteOptions extends FrameworkSite {
  config: DocpilotConfig
  /** The built site folder. */
  outDir: string
  /**
   * The site's locale folders below its base ('fr' for /fr/...), other than the root locale's:
   * each gets its own index, so a reader is answered from the pages in the language they read.
   */
  locales?: readonly string[]
  /**
   * Why the framework would read Markdown written into `outDir` back as pages on its next build
   * (its source folder holds `outDir`): then no agent files are written, and the log says this.
   */
  readsBackMarkdown?: string
  log: (line: string) => void
}

/**
 * Indexes the built pages into `<outDir>/docpilot/` and writes the widget into
 * `<outDir>/docpilot-assets/`. A locale folder's pages are indexed apart, into
 * `<outDir>/<locale>/docpilot/`: one index across languages answered readers
 * from a translation (or from a locale's untranslated copy of a page).
 *
 * Unless `llms.enabled` is false, each index also writes its agent files (llms.txt, llms-full.txt,
 * the page copies) into the folder it indexes, as `docpilot index --site` does with `--site-out`:
 * that folder is served at the index's base, so the links in llms.txt are the pages' own URLs.
 * `llms.siteOut` is not read: the built site is the site output folder.
 */
export async function indexBuiltSite(opts: IndexSiteOptions): Promise<void> {
  const started = performance.now()
  const [{ buildIndex, createdAtFromEnv }, { SITE_NOT_PAGES }, { defaultCacheDir }, { onnxNoteFor, writeWidget }, { PACKAGE_VERSION }, { escapePath, glob }] = await Promise.all([
    import('../indexer/build.ts'),
    import('../indexer/collect.ts'),
    import('../indexer/cache-dir.ts'),
    import('../cli/widget-files.ts'),
    import('../cli/package-root.ts'),
    import('tinyglobby'),
  ])
  const { existsSync } = await import('node:fs')
  const locales = (opts.locales ?? []).filter((locale) => existsSync(join(opts.outDir, locale)))
  // The widget, the index and the not-found page are not docs pages (the collect step leaves the last out too; it is
  // named here for the check that the root holds pages at all).
  const notPages = [`${INDEX_FOLDER}/**`, `${ASSET_FOLDER}/**`, ...SITE_NOT_PAGES]
  const owned = opts.config.docs.exclude ?? []
  const scopes = [
    { dir: opts.outDir, base: opts.config.urls.base, exclude: [...owned, ...notPages, ...locales.map((locale) => `${escapePath(locale)}/**`)] },
    ...(await Promise.all(
      locales.map(async (locale) => ({
        dir: join(opts.outDir, locale),
        base: `${normalizeBase(opts.config.urls.base)}${locale}/`,
        exclude: [...(await excludedIn(opts.outDir, locale, owned)), ...notPages],
      })),
    )),
  ]
  const agentFiles = opts.config.llms.enabled && !opts.readsBackMarkdown
  if (opts.config.llms.enabled && opts.readsBackMarkdown) opts.log(`wrote no llms.txt or page copies: ${opts.readsBackMarkdown}`)
  const built: { indexDir: string; base: string; result: Awaited<ReturnType<typeof buildIndex>> }[] = []
  for (const scope of scopes) {
    // A site whose every page is in a locale folder (Astro's prefixDefaultLocale) has no root index to build.
    if (scope.dir === opts.outDir && locales.length && !(await glob('**/*.html', { cwd: scope.dir, ignore: scope.exclude })).length) continue
    const indexDir = join(scope.dir, INDEX_FOLDER)
    // The owner's own llms.txt is served as they wrote it: docpilot's would replace it without a word.
    const theirs = agentFiles ? await ownersAgentFile(scope.dir) : undefined
    if (theirs) {
      opts.log(
        `kept ${shownPath(theirs)}, which your site build put there: wrote no llms.txt, llms-full.txt or page copies into ${shownPath(scope.dir)}. ` +
          "Remove that file from your site's public folder for docpilot's, or set llms.enabled: false to keep yours without this line.",
      )
    }
    const result = await buildIndex({
      root: scope.dir,
      mode: 'site',
      out: indexDir,
      config: { ...opts.config, urls: { ...opts.config.urls, base: scope.base } },
      docpilotVersion: PACKAGE_VERSION,
      createdAt: createdAtFromEnv(process.env),
      exclude: scope.exclude,
      // A rebuilt site replaces its index whatever its size: the folder was emptied by the framework anyway.
      allowShrink: true,
      onWarnings: (warnings) => warnings.forEach((w) => opts.log(`warning: ${w.file}: ${w.message}`)),
      embed: { env: process.env, configDir: opts.root, cacheDir: defaultCacheDir(opts.root, process.env) },
      ...(agentFiles && !theirs ? { llms: { siteOut: scope.dir } } : {}),
    })
    built.push({ indexDir, base: scope.base, result })
  }
  const { result } = built.at(-1)!
  const onnxNote = onnxNoteFor(result.manifest.embedder, (await writeWidget(join(opts.outDir, ASSET_FOLDER))).note)
  for (const [i, { indexDir, base, result }] of built.entries()) {
    opts.log(
      `indexed ${result.files.length} pages into ${result.chunks} chunks (${shownPath(indexDir)})` +
        (result.noindex ? `, left out ${result.noindex} not meant for search (noindex, generated indexes)` : '') +
        (i < built.length - 1
          ? ''
          : ` and wrote the widget in ${((performance.now() - started) / 1000).toFixed(1)} s` +
            (result.chat.chain.length ? `; answers: ${result.chat.chain.map((m) => m.provider).join(' → ')}` : '; no provider configured: readers get search answers')),
    )
    if (result.llms) {
      opts.log(`wrote llms.txt, llms-full.txt and ${result.llms.pages} page copies for agents (${shownPath(result.llms.dir)})`)
      if (result.llms.untitled !== undefined) opts.log(`note: llms.txt is titled "${result.llms.untitled}", the folder's name, as no page is served at ${normalizeBase(base)} to take a title from: set llms.title to your site's name`)
    }
  }
  if (onnxNote) opts.log(onnxNote)
}
