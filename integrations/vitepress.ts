/**
 * `docpilot/vitepress`: one wrapper around the VitePress config.
 *
 *   import { defineConfig } from 'vitepress'
 *   import { withDocpilot } from 'docpilot/vitepress'
 *   export default withDocpilot(defineConfig({ title: 'My docs' }), { chat: { provider: 'openai' } })
 *
 * Built pages get the loader's script tag (`transformHead`, so `vitepress dev`
 * pages stay untouched); after `vitepress build` the built HTML is indexed
 * (`buildEnd`), so every citation carries the heading id VitePress rendered.
 * The options are checked as soon as VitePress resolves its config, in dev and
 * build alike. VitePress itself is only a type here: the owner's own dependency.
 */
import { isAbsolute, relative, sep } from 'node:path'
import type { HeadConfig, SiteConfig, UserConfig } from 'vitepress'
import { indexBuiltSite, loaderAttributes, localeOf, resolveOptions, type DocpilotOptions, type FrameworkSite, type ResolvedOptions } from './site-build.ts'

export type { DocpilotOptions }

type VitePlugin = NonNullable<NonNullable<UserConfig['vite']>['plugins']>[number]

const log = (line: string) => console.log(`docpilot: ${line}`)

function frameworkSite(site: SiteConfig): FrameworkSite {
  return { framework: 'VitePress', configFile: site.configPath, root: site.root }
}

/** The default theme's search (local or Algolia) opens on Ctrl/Cmd+K and on `/`: both of the panel's default keys. */
function themeSearchOn(site: SiteConfig): boolean {
  const theme = site.site.themeConfig as { search?: { provider?: string }; algolia?: unknown } | undefined
  return theme?.search?.provider === 'local' || theme?.search?.provider === 'algolia' || Boolean(theme?.algolia)
}

/**
 * What VitePress decides about its URLs (the base, and whether links end in
 * .html), and the panel's keys: beside VitePress's search, which would open on
 * the same keys, the panel opens from its button until the owner names keys.
 */
function vitepressDefaults(site: SiteConfig): DocpilotOptions {
  return {
    anchors: { slugger: 'vitepress' },
    urls: { base: site.site.base, stripExtension: Boolean(site.cleanUrls) },
    ...(themeSearchOn(site) ? { widget: { hotkeys: 'none' } } : {}),
  }
}

/** The locales VitePress serves below a folder of their own (`locales: { fr: ... }` is /fr/), each with its own index. */
function localeFolders(site: SiteConfig): string[] {
  return Object.keys(site.site.locales ?? {}).filter((key) => key !== 'root')
}

/**
 * Why VitePress would read the page copies written into its output folder back as pages: it takes
 * every Markdown file in its source folder for a page (on the next build, before it empties the
 * output folder, and in dev), skipping only dot folders, node_modules, dist and `srcExclude`. The
 * default output folder (.vitepress/dist) is skipped; an `outDir` such as `docs/out` is not.
 */
export async function readsBackMarkdown(site: Pick<SiteConfig, 'srcDir' | 'outDir' | 'userConfig'>): Promise<string | undefined> {
  const rel = relative(site.srcDir, site.outDir)
  if (rel.startsWith('..') || isAbsolute(rel)) return undefined
  const segments = rel ? rel.split(sep) : []
  if (segments.some((s) => s.startsWith('.') || s === 'dist' || s === 'node_modules')) return undefined
  const srcExclude = site.userConfig.srcExclude ?? []
  if (srcExclude.length && rel) {
    // Whether srcExclude skips the output folder, asked of the files the build just wrote there.
    const { escapePath, glob } = await import('tinyglobby')
    const kept = await glob(`${escapePath(segments.join('/'))}/**`, { cwd: site.srcDir, ignore: srcExclude })
    if (!kept.length) return undefined
  }
  const shown = rel ? `${segments.join('/')}/**` : '**'
  return (
    `VitePress would read the page copies in its outDir ${site.outDir} as pages on the next build, as that folder is inside srcDir ${site.srcDir}. ` +
    `Put outDir outside srcDir (or in a folder named dist), or add '${shown}' to srcExclude; llms.enabled: false silences this.`
  )
}

export function withDocpilot<T extends UserConfig>(config: T, options?: DocpilotOptions): T {
  const resolve = (site: SiteConfig): ResolvedOptions => resolveOptions(frameworkSite(site), options, vitepressDefaults(site))
  // VitePress puts its resolved site config on Vite's: the first place the config file's path is known.
  const checkOptions: VitePlugin = {
    name: 'docpilot:options',
    configResolved(resolved: object) {
      const site = (resolved as { vitepress?: SiteConfig }).vitepress
      if (site) resolve(site)
    },
  }
  return {
    ...config,
    vite: { ...config.vite, plugins: [...(config.vite?.plugins ?? []), checkOptions] },
    async transformHead(context) {
      const own = (await config.transformHead?.(context)) ?? []
      const locale = localeOf(context.page, localeFolders(context.siteConfig))
      const tag: HeadConfig = ['script', loaderAttributes(context.siteConfig.site.base, resolve(context.siteConfig).widget, locale)]
      return [...own, tag]
    },
    async buildEnd(site) {
      await config.buildEnd?.(site)
      const resolved = resolve(site).config
      const readsBack = resolved.llms.enabled ? await readsBackMarkdown(site) : undefined
      await indexBuiltSite({ ...frameworkSite(site), config: resolved, outDir: site.outDir, locales: localeFolders(site), ...(readsBack ? { readsBackMarkdown: readsBack } : {}), log })
    },
  }
}
