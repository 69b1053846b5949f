/**
 * The search view. A site with no chat chain is the search-only product:
 * every question is a good search result (grouped by page, matched terms
 * marked, code and tables legible), with no outage sentence and no Retry.
 * In a site with a chain, "Search the docs" under the search answer opens
 * the same view for the question, in place.
 */
import { HYBRID_NOTICE } from '../core/turn/copy.ts'
import { COPY } from '../widget/panel/copy.ts'
import { ask, dialog, expect, expectAccessible, keepScreenshot, listenToStatus, openPanel, settled, statusLine, test, useSite } from './harness.ts'
import { COVERED, UNCOVERED } from './paths.ts'

/** The CLI reference answers it: a code block and a table sit in the "lumen build" section. */
const BUILD = 'lumen build target flags'

test.describe('a site without a chat chain', () => {
  const site = useSite({ members: [] })

  for (const colorScheme of ['light', 'dark'] as const) {
    test(`reads like a search result, not an outage (${colorScheme})`, async ({ browser }, info) => {
      const context = await browser.newContext({ colorScheme })
      const page = await context.newPage()
      await page.goto(site.url)
      const d = await openPanel(page)
      await expect(d.locator('.dp-empty')).toContainText('grouped by page')
      const body = await settled(await ask(page, BUILD), 'search')
      await expect(d.getByText(HYBRID_NOTICE)).toHaveCount(0)
      await expect(d.getByRole('button', { name: 'Retry' })).toHaveCount(0)
      await expect(d.getByRole('button', { name: 'Search the docs' })).toHaveCount(0)
      await expect(body.locator('.dp-lead')).toHaveText(/^\d+ results on \d+ pages?$/)
      // Grouped by page: each page once, as a heading linking to it, its sections below.
      const pages = await body.locator('.dp-page > h4 a').evaluateAll((as) => as.map((a) => a.getAttribute('href')))
      expect(pages.length).toBeGreaterThan(1)
      expect(new Set(pages).size).toBe(pages.length)
      const cli = body.locator('.dp-page', { has: page.locator('h4 a[href="/reference/cli"]') })
      // Code stays code and a table stays a table.
      const build = cli.locator('.dp-row', { has: page.locator('a[href="/reference/cli#lumen-build"]') })
      await expect(build.locator('pre code')).toContainText('lumen build --target')
      await expect(build.locator('table th')).toHaveText(['Flag', 'Default', 'Meaning'])
      await expect(build.locator('table tbody tr').first().locator('td').first()).toHaveText('--target')
      // The question's words are marked where they matched.
      const marked = (await body.locator('mark').allTextContents()).map((t) => t.toLowerCase())
      expect(marked).toEqual(expect.arrayContaining(['build', 'target']))
      await keepScreenshot(page, info, `search-only-${colorScheme}`)
      await expectAccessible(page, info, `search-only-${colorScheme}`)
      await context.close()
    })
  }
})

test.describe('a site without a chat chain, asked off topic', () => {
  const site = useSite({ members: [] })

  test('says nothing matches closely, and the status line announces the same, not a count of results', async ({ page }) => {
    await page.goto(site.url)
    await openPanel(page)
    const said = await listenToStatus(page)
    const body = await settled(await ask(page, UNCOVERED), 'search')
    await expect(body.locator('.dp-lead')).toHaveText(COPY.nearest)
    expect(await body.locator('.dp-row').count()).toBeGreaterThan(0)
    await expect(statusLine(page)).toHaveText(COPY.nearest)
    expect((await said()).filter((s) => / results? on /.test(s))).toEqual([])
  })
})

test.describe('a site without a chat chain whose index cannot be loaded', () => {
  const site = useSite({ members: [] })

  test('says search is unavailable, not that an AI service failed', async ({ page }, info) => {
    // A fresh context has nothing cached: with the index parts unreachable, the search cannot run.
    await page.route(/\/docpilot\/(?!manifest\.json).+$/, (route) => route.abort('connectionreset'))
    await page.goto(site.url)
    const d = await openPanel(page)
    const body = await settled(await ask(page, BUILD), 'error')
    await expect(body.getByRole('alert')).toHaveText(COPY.searchError)
    await expect(d.getByRole('button', { name: COPY.searchDocs })).toHaveCount(0)
    await expect(body.getByRole('button')).toHaveText([COPY.retry])
    await expectAccessible(page, info, 'search-only-error')
  })
})

test.describe('a site with a chain, when no model answers', () => {
  const site = useSite({ members: ['openai'] }, { member: 'openai', fault: 'server-error', status: 503 })

  test('the search answer opens at its top; "Search the docs" turns it into the search view, never a second turn', async ({ page }, info) => {
    await page.setViewportSize({ width: 1200, height: 700 })
    await page.goto(site.url)
    const d = await openPanel(page)
    // A first turn, so the second has to scroll into view.
    await settled(await ask(page, 'How do I deploy to Cloudflare Workers?'), 'hybrid')
    const turn = await ask(page, COVERED)
    const body = await settled(turn, 'hybrid')
    await expect(body.locator('.dp-lead')).toHaveText(HYBRID_NOTICE)
    // The question is at the top of the log, not scrolled past to the last row.
    const log = d.locator('.dp-log')
    const top = async () => {
      const [q, l] = await Promise.all([turn.locator('.dp-question').boundingBox(), log.boundingBox()])
      return Math.round(q!.y - l!.y)
    }
    expect(await top()).toBeGreaterThanOrEqual(0)
    expect(await top()).toBeLessThan(40)
    await keepScreenshot(page, info, 'hybrid-at-top')

    const rows = await body.locator('.dp-row').count()
    await body.getByRole('button', { name: 'Search the docs' }).click()
    const search = await settled(turn, 'search')
    await expect(d.locator('article.dp-turn')).toHaveCount(2)
    await expect(turn.locator('[data-state="hybrid"]')).toHaveCount(0)
    expect(await search.locator('.dp-row').count()).toBeGreaterThan(rows)
    expect(await search.locator('.dp-page').count()).toBeGreaterThan(1)
    // The control that was clicked is gone: focus is in the box, not lost on the page.
    await expect(d.getByRole('textbox')).toBeFocused()
    expect(await top()).toBeLessThan(40)
    await keepScreenshot(page, info, 'search-the-docs')
    await expectAccessible(page, info, 'search-the-docs')
  })
})

test.describe('a site with its own search page', () => {
  const site = useSite({ members: ['openai'], scriptData: { searchUrl: '/?q={q}' } }, { member: 'openai', fault: 'server-error', status: 503 })

  test('"Search the docs" goes to it with the question', async ({ page }) => {
    await page.goto(site.url)
    await openPanel(page)
    const body = await settled(await ask(page, COVERED), 'hybrid')
    await body.getByRole('button', { name: 'Search the docs' }).click()
    await expect(page).toHaveURL(`${site.url}/?q=${encodeURIComponent(COVERED)}`)
    await expect(dialog(page)).toBeHidden()
  })
})
