/**
 * `docpilot/starlight`: an Astro integration for Starlight sites (any static
 * Astro site works the same way). Listed after Starlight:
 *
 *   import starlight from '@astrojs/starlight'
 *   import docpilot from 'docpilot/starlight'
 *   export default defineConfig({ integrations: [starlight({ title: 'My docs' }), docpilot({ chat: { provider: 'openai' } })] })
 *
 * The options are checked when Astro sets up its config (dev and build).
 * After `astro build` the built HTML is indexed (Starlight marks each page's
 * content with `data-pagefind-body`, the region docpilot reads first, so the
 * index holds what Pagefind indexes), and the loader's script tag is added to
 * every built page. Starlight's Pagefind search keeps working beside the panel,
 * and keeps its Ctrl/Cmd+K: the panel opens on `/` (and its button) unless
 * the owner sets `widget.hotkeys`.
 * Astro itself is only a type here: the owner's own dependency.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import type { AstroConfig, AstroIntegration } from 'astro'
import { addLoaderTags, indexBuiltSite, normalizeBase, resolveOptions, type DocpilotOptions, type FrameworkSite, type ResolvedOptions } from './site-build.ts'

export type { DocpilotOptions }

const CONFIG_FILES = ['mjs', 'js', 'ts', 'mts', 'cjs', 'cts'].map((ext) => `astro.config.${ext}`)

function frameworkSite(config: AstroConfig): FrameworkSite {
  const root = fileURLToPath(config.root)
  const name = CONFIG_FILES.find((file) => existsSync(join(root, file)))
  return { framework: 'Astro', configFile: name ? join(root, name) : undefined, root }
}

/**
 * What Astro decides about its URLs (the base, whether pages are folders with
 * a trailing slash, and with `build.format: 'file'` the `.html` that
 * Starlight's own links then end in, for hosts that serve no extensionless
 * path), and the panel's hotkey: Starlight's search owns Ctrl/Cmd+K, and both
 * would open on it.
 */
function astroDefaults(config: AstroConfig): DocpilotOptions {
  const folders = config.build.format === 'directory'
  return {
    anchors: { slugger: 'starlight' },
    urls: { base: normalizeBase(config.base), trailingSlash: folders && config.trailingSlash !== 'never', stripExtension: config.build.format !== 'file' },
    widget: { hotkeys: '/' },
  }
}

/**
 * The locales Astro serves below a folder of their own (Starlight fills in Astro's `i18n` from
 * its `locales`), each with its own index: every locale but the default one, unless that one
 * has a folder too (`prefixDefaultLocale`).
 */
function localeFolders(config: AstroConfig): string[] {
  const i18n = config.i18n
  if (!i18n) return []
  const paths = i18n.locales.map((locale) => (typeof locale === 'string' ? locale : locale.path))
  const prefixDefault = typeof i18n.routing === 'object' && i18n.routing.prefixDefaultLocale
  // The default locale first: pages outside every locale folder (404.html) use the first one's index.
  return prefixDefault ? [...paths].sort((a, b) => Number(b === i18n.defaultLocale) - Number(a === i18n.defaultLocale)) : paths.filter((path) => path !== i18n.defaultLocale)
}

export default function docpilot(options?: DocpilotOptions): AstroIntegration {
  let astro: AstroConfig
  let resolved: ResolvedOptions
  return {
    name: 'docpilot',
    hooks: {
      'astro:config:setup': ({ config }) => {
        astro = config
        resolved = resolveOptions(frameworkSite(config), options, astroDefaults(config))
      },
      'astro:config:done': ({ config }) => {
        // Integrations listed after this one may still have changed the base or the URL shape.
        astro = config
        resolved = resolveOptions(frameworkSite(config), options, astroDefaults(config))
      },
      'astro:build:done': async ({ dir, logger }) => {
        const outDir = fileURLToPath(dir)
        const locales = localeFolders(astro)
        await indexBuiltSite({ ...frameworkSite(astro), config: resolved.config, outDir, locales, log: (line) => logger.info(line) })
        const tagged = await addLoaderTags(outDir, astro.base, resolved.widget, locales)
        logger.info(`added the panel's script tag to ${tagged} pages`)
      },
    },
  }
}
