/**
 * The Docusaurus plugin behind `docpilot/docusaurus` (integrations/docusaurus.ts
 * loads it). The options are checked when Docusaurus creates its plugins, in `start` and
 * `build` alike. After `docusaurus build` (`postBuild`) the
 * built HTML is indexed and the loader's script tag is added to every built
 * page, so `docusaurus start` pages stay untouched. Docusaurus itself is only
 * a type here: the owner's own dependency.
 */
import type { LoadContext, Plugin } from '@docusaurus/types'
import { addLoaderTags, indexBuiltSite, normalizeBase, resolveOptions, type DocpilotOptions, type FrameworkSite } from './site-build.ts'

const log = (line: string) => console.log(`[docpilot] ${line}`)

function frameworkSite(context: Pick<LoadContext, 'siteConfigPath' | 'siteDir'>): FrameworkSite {
  return { framework: 'Docusaurus', configFile: context.siteConfigPath, root: context.siteDir }
}

/**
 * What Docusaurus decides about its URLs: the base, and whether links end in
 * a slash (`trailingSlash: true`; left unset or false, links have none). Only
 * the doc's own Markdown is read (`.theme-doc-markdown`; blog posts and
 * pages are `.markdown`), not the breadcrumbs, the collapsed table of
 * contents or the previous/next links around it.
 */
function docusaurusDefaults(context: Pick<LoadContext, 'siteConfig' | 'baseUrl'>): DocpilotOptions {
  return {
    docs: { contentSelector: '.theme-doc-markdown, .markdown' },
    anchors: { slugger: 'docusaurus' },
    urls: { base: normalizeBase(context.baseUrl), trailingSlash: context.siteConfig.trailingSlash === true },
  }
}

export function docpilotPlugin(context: LoadContext, options?: DocpilotOptions & { id?: string }): Plugin {
  // Docusaurus gives every plugin's options an `id` (for plugins used twice); it is not docpilot's.
  const { id: _, ...own } = options ?? {}
  const resolved = resolveOptions(frameworkSite(context), own, docusaurusDefaults(context))
  return {
    name: 'docpilot',
    async postBuild({ outDir }) {
      await indexBuiltSite({ ...frameworkSite(context), config: resolved.config, outDir, log })
      const tagged = await addLoaderTags(outDir, context.baseUrl, resolved.widget)
      log(`added the panel's script tag to ${tagged} pages`)
    },
  }
}

