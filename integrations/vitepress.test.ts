import type { DefaultTheme, HeadConfig, SiteConfig, TransformContext, UserConfig } from 'vitepress'
import { describe, expect, it } from 'vitest'
import { withDocpilot, type DocpilotOptions } from './vitepress.ts'

/** The script tag withDocpilot adds to a built page of a site with this theme config. */
async function loaderTag(themeConfig: DefaultTheme.Config, options?: DocpilotOptions, page = 'guide/routing.md'): Promise<Record<string, string>> {
  const locales = { root: { label: 'English', lang: 'en' }, fr: { label: 'Français', lang: 'fr' } }
  const siteConfig = { root: `${process.cwd()}/docs`, configPath: `${process.cwd()}/docs/.vitepress/config.mts`, cleanUrls: false, site: { base: '/lumen/', themeConfig, locales } } as unknown as SiteConfig
  const head = (await withDocpilot<UserConfig>({ themeConfig }, options).transformHead!({ siteConfig, page } as TransformContext)) as HeadConfig[]
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

  it("points a locale's pages at that locale's own index", async () => {
    expect((await loaderTag({}, undefined, 'fr/guide/routing.md'))['data-index']).toBe('/lumen/fr/docpilot/')
    expect((await loaderTag({}, undefined, 'guide/routing.md'))['data-index']).toBe('/lumen/docpilot/')
  })
})
