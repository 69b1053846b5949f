import type { DefaultTheme, HeadConfig, SiteConfig, TransformContext, UserConfig } from 'vitepress'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { glob } from 'tinyglobby'
import { describe, expect, it, vi } from 'vitest'
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

describe('the agent files of a VitePress build', () => {
  /** Runs withDocpilot's buildEnd on a built page in `outDir` (below the source folder): which agent files it wrote, and what it logged. */
  async function buildEnd(outDir: string, srcExclude?: string[]) {
    const root = await mkdtemp(join(tmpdir(), 'docpilot-vitepress-'))
    const out = join(root, outDir)
    await mkdir(out, { recursive: true })
    await writeFile(join(out, 'index.html'), '<html><body><main><h1>Home</h1><p>Routes map paths to handlers.</p></main></body></html>')
    const siteConfig = { root, srcDir: root, outDir: out, configPath: join(root, '.vitepress/config.mts'), cleanUrls: true, userConfig: { srcExclude }, site: { base: '/', themeConfig: {}, locales: {} } }
    const log = vi.spyOn(console, 'log').mockImplementation(() => {})
    try {
      await withDocpilot<UserConfig>({}, { embed: false }).buildEnd!(siteConfig as unknown as SiteConfig)
      return { written: (await glob('*.{md,txt}', { cwd: out })).sort(), log: log.mock.calls.map(([line]) => String(line)) }
    } finally {
      log.mockRestore()
      await rm(root, { recursive: true, force: true })
    }
  }

  it('writes them into the default output folder, which VitePress never reads as pages', async () => {
    expect((await buildEnd('.vitepress/dist')).written).toEqual(['index.md', 'llms-full.txt', 'llms.txt'])
    expect((await buildEnd('build/dist')).written).toEqual(['index.md', 'llms-full.txt', 'llms.txt'])
  })

  it('writes none into an output folder inside the source folder that VitePress would read as pages, and says how to fix it', async () => {
    const inside = await buildEnd('out')
    expect(inside.written).toEqual([])
    expect(inside.log.join('\n')).toMatch(/docpilot: wrote no llms\.txt or page copies: VitePress would read the page copies in its outDir .*out as pages .* add 'out\/\*\*' to srcExclude/)
    expect((await buildEnd('out', ['out/**'])).written).toEqual(['index.md', 'llms-full.txt', 'llms.txt'])
  })
})
