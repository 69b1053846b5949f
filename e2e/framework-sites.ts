/**
 * The tests every framework integration gets, on a real site the framework
 * builds with it (e2e/framework-build.ts: the packed package, unpacked into
 * the site's node_modules).
 */
import { join } from 'node:path'
import { startPreviewServer, type PreviewServer } from '../cli/commands/preview.ts'
import { validateConfig } from '../core/config/validate.ts'
import type { ChunkRecord } from '../core/index/format.ts'
import { pageCopyUrl } from '../core/site-files.ts'
import { buildFrameworkSite, indexChunks, missingTargets, type BuiltSite, type FrameworkBuild } from './framework-build.ts'
import { ask, expect, keepScreenshot, openPanel, settled, test } from './harness.ts'
import { COVERED } from './paths.ts'

export interface FrameworkSpec extends FrameworkBuild {
  /** A docs page of the built site to open the panel on. */
  start: string
  /** A selector only the framework's own rendered docs pages match (its content container). */
  rendered: string
}

/**
 * The tests every framework gets: its real build (with the integration) is
 * served by `docpilot preview` with the fake providers; in Chromium a question
 * is answered with a citation that lands on the element with that id in the
 * framework's page; and every chunk's `url#anchor` exists in the built pages.
 */
export function describeFrameworkSite(spec: FrameworkSpec): { url: () => string } {
  const state = {} as { site: BuiltSite; server: PreviewServer; chunks: ChunkRecord[] }
  test.describe.configure({ mode: 'serial' })
  test.beforeAll(async ({}, info) => {
    info.setTimeout(10 * 60_000)
    state.site = await buildFrameworkSite(spec)
    // The build's time, for the CI budget (.ci/run must stay under 20 minutes).
    console.log(`${spec.name}: site built and indexed in ${(state.site.ms / 1000).toFixed(1)} s`)
    state.chunks = await indexChunks(join(state.site.outDir, 'docpilot'))
    state.server = await startPreviewServer({
      siteDir: state.site.outDir,
      config: validateConfig({}, '(e2e)'),
      indexDir: join(state.site.outDir, 'docpilot'),
      cwd: state.site.root,
      env: {},
      fakeProviders: true,
      port: 0,
      dbPath: ':memory:',
    })
  })
  test.afterAll(async () => {
    await state.server?.close()
    await state.site?.remove()
  })

  test(`${spec.name}: the build says nothing of the ONNX runtime, which the default index does not load`, () => {
    expect(state.site.log).toContain('indexed ')
    expect(state.site.log).not.toContain('ONNX runtime files')
  })

  test(`${spec.name}: the panel answers with a citation that lands on the heading in the framework's page`, async ({ page }, info) => {
    await state.server.fakes!.control({ echo: true, deltas: 6, paceMs: 20 })
    await page.goto(`${state.server.url}${spec.start}`)
    await expect(page.locator(spec.rendered)).toBeVisible()
    await openPanel(page)
    const body = await settled(await ask(page, COVERED), 'answered')
    const cite = body.locator('.dp-answer a.dp-cite').first()
    await expect(cite).toHaveText('[1]')
    const href = (await cite.getAttribute('href'))!
    const [path, anchor] = href.split('#')
    expect(anchor, `citation ${href} names a heading`).toBeTruthy()
    await keepScreenshot(page, info, `${spec.name}-answered`)
    await cite.click()
    await expect(page).toHaveURL(new RegExp(`${path!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}#${anchor}$`))
    const target = page.locator(`[id="${decodeURIComponent(anchor!)}"]`)
    await expect(target).toBeVisible()
    await expect(target).toBeInViewport()
    await expect(page.locator(spec.rendered).locator(`[id="${decodeURIComponent(anchor!)}"]`)).toHaveCount(1)
  })

  test(`${spec.name}: every chunk's url#anchor exists in the built pages`, async () => {
    expect(state.chunks.length).toBeGreaterThan(40)
    expect(state.chunks.filter((c) => c.anchor).length).toBeGreaterThan(30)
    expect(await missingTargets(state.site.outDir, state.chunks)).toEqual([])
  })

  test(`${spec.name}: the built site serves llms.txt, llms-full.txt and a Markdown copy of each page at its URL + .md`, async () => {
    const llms = await fetch(`${state.server.url}/llms.txt`)
    expect(llms.status).toBe(200)
    const copy = pageCopyUrl(spec.start)
    expect(await llms.text()).toContain(`](${copy})`)
    const page = await fetch(`${state.server.url}${copy}`)
    expect(page.status).toBe(200)
    expect(await page.text()).toMatch(/^# /)
    expect(await (await fetch(`${state.server.url}/llms-full.txt`)).text()).toContain(`Source: ${spec.start}`)
  })

  // For the framework's own tests in the same file, on the same served site.
  return { url: () => state.server.url }
}
