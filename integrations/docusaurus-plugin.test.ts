import type { LoadContext } from '@docusaurus/types'
import { describe, expect, it } from 'vitest'
import { docpilotPlugin } from './docusaurus-plugin.ts'

const context = (siteConfig: Partial<LoadContext['siteConfig']> = {}) =>
  ({ siteDir: `${process.cwd()}/website`, siteConfigPath: `${process.cwd()}/website/docusaurus.config.js`, baseUrl: '/docs/', siteConfig }) as LoadContext

describe('the Docusaurus plugin', () => {
  it("takes the options Docusaurus hands it, with the plugin id it adds, and names the config file on a mistake", () => {
    expect(docpilotPlugin(context(), { id: 'default' }).name).toBe('docpilot')
    expect(() => docpilotPlugin(context(), { id: 'default', chat: { chain: 'yes' } } as never)).toThrow(
      /^Invalid config website\/docusaurus\.config\.js \(docpilot options\): chat\.chain must be/,
    )
  })
})
