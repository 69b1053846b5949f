import type { DefaultTheme, HeadConfig, SiteConfig, TransformContext, UserConfig } from 'vitepress'
import { describe, expect, it } from 'vitest'
import { withDocpilot, type DocpilotOptions } from './vitepress.ts'

/** The script tag withDocpilot adds to a built page of a site with this theme config. */
async function loaderTag(themeConfig: DefaultTheme.Config, options?: DocpilotOptions): Promise<Record<string, string>> {
  const siteConfig = { root: `${process.cwd()}/docs`, configPath: `${process.cwd()}/docs/.vitepress/config.mts`, cleanUrls: false, site: { base: '/', themeConfig } } as unknown as SiteConfig
  const head = (await withDocpilot<UserConfig>({ themeConfig }, options).transformHead!({ siteConfig, page: 'guide/routing.md' } as TransformContext)) as HeadConfig[]
  const [, attributes] = head.find(([tag]) => tag === 'script')!
  return attributes as Record<string, string>
}

describe('withDocpilot', () => {
  it("leaves Ctrl/Cmd+K and / to VitePress's search, which opens on both, unless the owner names the panel's keys", async () => {
    expect((await loaderTag({ search: { provider: 'local' } }))['data-hotkeys']).toBe('none')
    expect((await loaderTag({ search: { provider: 'algolia', options: { appId: 'A', apiKey: 'k', indexName: 'docs' } } }))['data-hotkeys']).toBe('none')
    expect((await loaderTag({ search: { provider: 'local' } }, { widget: { hotkeys: 'mod+i' } }))['data-hotkeys']).toBe('mod+i')
    expect(await loaderTag({})).not.toHaveProperty('data-hotkeys')
  })
})
