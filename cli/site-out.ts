/**
 * The site's output folder: where `docpilot index` writes llms.txt,
 * llms-full.txt and the page copies, and where `docpilot mcp` and the Node
 * proxy read them back. One rule for all of them: --site-out when given
 * (relative to the working directory), else `llms.siteOut` from the config
 * (relative to the config's folder), else .docpilot/site there.
 */
import { resolve } from 'node:path'
import type { LoadedConfig } from './config-file.ts'
import type { CliContext } from './context.ts'

export const DEFAULT_SITE_OUT = '.docpilot/site'

export function siteOutFor(ctx: Pick<CliContext, 'cwd'>, loaded: LoadedConfig, flag?: string): string {
  return flag ? resolve(ctx.cwd, flag) : resolve(loaded.dir, loaded.config.llms.siteOut ?? DEFAULT_SITE_OUT)
}
