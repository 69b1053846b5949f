/**
 * What every framework integration does once the framework has written its
 * site: index the built pages into `<outDir>/docpilot/` and write the widget
 * into `<outDir>/docpilot-assets/`, where the script tag each integration adds
 * to the pages looks for them. `docpilot preview <outDir>` then serves the
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
import { validateConfig } from '../core/config/validate.ts'

/** What an owner passes to an integration: docpilot's config, every field optional. */
export type DocpilotOptions = DocpilotConfigInput

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

/** The script tag's attributes for a site served under `base`: the loader, and the index beside it. */
export function loaderAttributes(base: string): { src: string; 'data-index': string; defer: '' } {
  const root = normalizeBase(base)
  return { src: `${root}${ASSET_FOLDER}/docpilot.js`, 'data-index': `${root}${INDEX_FOLDER}/`, defer: '' }
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

/** The file as the owner would name it: relative to the working directory when inside it. */
function shown(site: FrameworkSite): string {
  if (!site.configFile) return `the ${site.framework} config`
  const rel = relative(process.cwd(), site.configFile)
  return rel && !rel.startsWith('..') ? rel : site.configFile
}

/**
 * The owner's options validated like docpilot.config.ts, with the framework's
 * defaults underneath. A problem throws a ConfigError naming the framework's config file.
 */
export function resolveOptions(site: FrameworkSite, options: DocpilotOptions | undefined, defaults: DocpilotOptions = {}): DocpilotConfig {
  // Anything but an object is passed on as it is, for the schema to say what it should be.
  const input = options === undefined ? defaults : isPlainObject(options) ? mergeOptions(defaults, options) : options
  return validateConfig(input, `${shown(site)} (docpilot options)`)
}

export interface IndexSiteOptions extends FrameworkSite {
  config: DocpilotConfig
  /** The built site folder. */
  outDir: string
  log: (line: string) => void
}

/** Indexes the built pages into `<outDir>/docpilot/` and writes the widget into `<outDir>/docpilot-assets/`. */
export async function indexBuiltSite(opts: IndexSiteOptions): Promise<void> {
  const started = performance.now()
  const [{ buildIndex, createdAtFromEnv }, { defaultCacheDir }, { writeWidget }, { PACKAGE_VERSION }] = await Promise.all([
    import('../indexer/build.ts'),
    import('../indexer/embed.ts'),
    import('../cli/widget-files.ts'),
    import('../cli/package-root.ts'),
  ])
  const indexDir = join(opts.outDir, INDEX_FOLDER)
  const result = await buildIndex({
    root: opts.outDir,
    mode: 'site',
    out: indexDir,
    config: opts.config,
    docpilotVersion: PACKAGE_VERSION,
    createdAt: createdAtFromEnv(process.env),
    // The widget, the index and the not-found page are not docs pages.
    exclude: [...(opts.config.docs.exclude ?? []), `${INDEX_FOLDER}/**`, `${ASSET_FOLDER}/**`, '404.html'],
    // A rebuilt site replaces its index whatever its size: the folder was emptied by the framework anyway.
    allowShrink: true,
    onWarnings: (warnings) => warnings.forEach((w) => opts.log(`warning: ${w.file}: ${w.message}`)),
    embed: { env: process.env, configDir: opts.root, cacheDir: defaultCacheDir(opts.root, process.env) },
  })
  const onnxNote = await writeWidget(join(opts.outDir, ASSET_FOLDER))
  const where = relative(opts.root, indexDir) || indexDir
  opts.log(
    `indexed ${result.files.length} pages into ${result.chunks} chunks (${where}) and wrote the widget in ${((performance.now() - started) / 1000).toFixed(1)} s` +
      (result.chat.chain.length ? `; answers: ${result.chat.chain.map((m) => m.provider).join(' → ')}` : '; no provider configured: readers get search answers'),
  )
  if (onnxNote) opts.log(onnxNote)
}
