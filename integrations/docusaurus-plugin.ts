/**
 * The Docusaurus plugin behind `docpilot/docusaurus` (integrations/docusaurus.ts
 * loads it). The options are checked when Docusaurus creates its plugins, in `start` and
 * `build` alike. After `docusaurus build` (`postBuild`) the
 * built HTML is indexed and the loader's script tag is added to every built
 * page, so `docusaurus start` pages stay untouched. Docusaurus itself is only
 * a type here: the owner's own dependency.
 */
import { join } from 'node:path'
import type { LoadContext, Plugin } from '@docusaurus/types'
import type { DocpilotConfig } from '../core/config/schema.ts'
import { addLoaderTags, ASSET_FOLDER, INDEX_FOLDER, indexBuiltSite, normalizeBase, resolveOptions, type DocpilotOptions, type FrameworkSite } from './site-build.ts'

const log = (line: string) => console.log(`[docpilot] ${line}`)

function frameworkSite(context: Pick<LoadContext, 'siteConfigPath' | 'siteDir'>): FrameworkSite {
  return { framework: 'Docusaurus', configFile: context.siteConfigPath, root: context.siteDir }
}

/**
 * What Docusaurus decides about its URLs: the base, and whether links end in
 * a slash (`trailingSlash: true`; left unset or false, links have none). Only
 * the page's own Markdown is read (a doc's `.theme-doc-markdown`, a blog
 * post's `.markdown`, a Markdown page's article), not the breadcrumbs, the
 * collapsed table of contents or the previous/next links around it.
 */
function docusaurusDefaults(context: Pick<LoadContext, 'siteConfig' | 'baseUrl'>): DocpilotOptions {
  return {
    docs: { contentSelector: '.theme-doc-markdown, .blog-post-page .markdown, .mdx-page main article' },
    anchors: { slugger: 'docusaurus' },
    urls: { base: normalizeBase(context.baseUrl), trailingSlash: context.siteConfig.trailingSlash === true },
  }
}

/**
 * Docusaurus names each page's kind in its <html> class: a doc (`docs-doc-id-<id>`), a blog
 * post, a Markdown page. Every other built page is generated from those (the blog's list, tag,
 * author and archive pages repeat the posts; a category index lists its docs) or is a React page.
 */
const CONTENT_PAGE = /<html\b[^>]*\bclass=["']?(?:[^"'>]*\s)?(?:docs-doc-id-|blog-post-page(?=[\s"'>])|mdx-page(?=[\s"'>]))/

/** The built pages that are no doc, blog post or Markdown page, as exclude patterns. */
async function listingPages(outDir: string): Promise<string[]> {
  const [{ escapePath, glob }, { readFile }] = await Promise.all([import('tinyglobby'), import('node:fs/promises')])
  const files = await glob('**/*.html', { cwd: outDir, ignore: [`${INDEX_FOLDER}/**`, `${ASSET_FOLDER}/**`] })
  const listings: string[] = []
  for (const file of files) if (!CONTENT_PAGE.test(await readFile(join(outDir, file), 'utf8'))) listings.push(escapePath(file))
  return listings
}

/** Left out like the owner's own `docs.exclude`: skipped without the warning a page with no content region gets. */
function withoutListings(config: DocpilotConfig, listings: string[]): DocpilotConfig {
  return { ...config, docs: { ...config.docs, exclude: [...(config.docs.exclude ?? []), ...listings] } }
}

export function docpilotPlugin(context: LoadContext, options?: DocpilotOptions & { id?: string }): Plugin {
  // Docusaurus gives every plugin's options an `id` (for plugins used twice); it is not docpilot's.
  const { id: _, ...own } = options ?? {}
  const resolved = resolveOptions(frameworkSite(context), own, docusaurusDefaults(context))
  return {
    name: 'docpilot',
    async postBuild({ outDir }) {
      // An owner's own content selector decides for itself which pages hold content.
      const config = own.docs?.contentSelector ? resolved.config : withoutListings(resolved.config, await listingPages(outDir))
      await indexBuiltSite({ ...frameworkSite(context), config, outDir, log })
      const tagged = await addLoaderTags(outDir, context.baseUrl, resolved.widget)
      log(`added the panel's script tag to ${tagged} pages`)
    },
  }
}

