/**
 * `docpilot/docusaurus`: a Docusaurus plugin. In `docusaurus.config.js`:
 *
 *   plugins: [['docpilot/docusaurus', { chat: { provider: 'openai' } }]]
 *
 * Docusaurus loads plugin modules (and its config file) through jiti, which
 * rewrites ES modules to CommonJS and keeps only each module's default
 * export, down the whole import tree; docpilot's dependencies do not survive
 * that (zod's named exports vanish). So this entry imports only Node's
 * `createRequire` (built-in modules pass through jiti untouched), and the
 * plugin itself (integrations/docusaurus-plugin.ts) is loaded by Node's own
 * `require`, which loads ES modules since Node 20.19 (docpilot's minimum).
 * (jiti's `import()` cannot be bypassed: it evaluates modules in a VM script
 * without a dynamic import hook.)
 */
import { createRequire } from 'node:module'
import { fileURLToPath } from 'node:url'
import type { LoadContext, Plugin } from '@docusaurus/types'
import type { DocpilotOptions } from './site-build.ts'

export type { DocpilotOptions }

/** The plugin module beside this file, with this file's own extension (.ts in a checkout, .js in the package). */
function pluginModuleUrl(): string {
  const self = import.meta.url
  return fileURLToPath(new URL(`./docusaurus-plugin${self.slice(self.lastIndexOf('.'))}`, self))
}

export default function docpilot(context: LoadContext, options?: DocpilotOptions): Plugin {
  const { docpilotPlugin } = createRequire(import.meta.url)(pluginModuleUrl()) as typeof import('./docusaurus-plugin.ts')
  return docpilotPlugin(context, options)
}
