/**
 * A cold visit, as a first-time reader makes it (fresh context: empty HTTP
 * cache and IndexedDB):
 * - a page view without intent downloads the loader script and nothing else;
 * - pointing at the launcher is intent: the panel and the index's first
 *   parts start loading before the click;
 * - the first turn is hybrid (spec 002: both channels, always), and the
 *   embedding model arrives as its own words' rows, not as a whole table.
 */
import type { Page } from '@playwright/test'
import { ASSET_PATH, INDEX_PATH } from '../cli/commands/dev.ts'
import { staticTokens } from '../core/embed/static.ts'
import { STATIC_TOKEN_PATTERN } from '../core/embed/static-model.ts'
import { ask, expect, openPanel, settled, test, useSite } from './harness.ts'
import { COVERED } from './paths.ts'

/** docpilot's own requests (widget scripts and index parts, not the demo site's stylesheet), by path, in order. */
function docpilotRequests(page: Page): string[] {
  const paths: string[] = []
  page.on('request', (r) => {
    const path = new URL(r.url()).pathname
    if ((path.startsWith(ASSET_PATH) && path.endsWith('.js')) || path.startsWith(INDEX_PATH)) paths.push(path)
  })
  return paths
}

const launcher = (page: Page) => page.getByRole('button', { name: /Ask the docs/ }).first()

test.describe('a cold visit', () => {
  const site = useSite({ members: ['openai'] })

  test('a page view without intent fetches the loader only; pointing at the launcher starts the rest', async ({ page }) => {
    const requests = docpilotRequests(page)
    await page.goto(site.url)
    await expect(launcher(page)).toBeVisible()
    // An idle reader: the page settles and nothing more is fetched (the idle prefetch used to fetch megabytes here).
    await page.waitForLoadState('networkidle')
    await page.waitForTimeout(2_000)
    expect(requests).toEqual([`${ASSET_PATH}docpilot.js`])

    await launcher(page).hover()
    await expect.poll(() => requests.some((p) => p === `${INDEX_PATH}manifest.json`)).toBe(true)
    expect(requests).toContain(`${ASSET_PATH}docpilot-panel.js`)
  })

  test('the first turn is hybrid and fetches only its own words\' model rows', async ({ page }) => {
    const requests = docpilotRequests(page)
    await page.goto(`${site.url}/?dpdebug=1`)
    await openPanel(page)
    const turn = await ask(page, COVERED)
    await settled(turn, 'answered')
    const drawer = turn.getByTestId('dp-debug')
    await drawer.locator('summary').click()
    const { receipt } = JSON.parse(await drawer.locator('pre').innerText())
    expect(receipt.retrieval).toMatchObject({ mode: 'hybrid', degraded: false })

    // One read of the packed rows per word at most (the directory of buckets is read once besides).
    const rows = requests.filter((p) => p.startsWith(`${INDEX_PATH}embed-rows.`) && p.endsWith('.bin'))
    const words = new Set(staticTokens(COVERED, STATIC_TOKEN_PATTERN))
    expect(rows.length).toBeGreaterThan(0)
    expect(rows.length).toBeLessThanOrEqual(words.size)
    // No whole-table model file is ever fetched.
    expect(requests.filter((p) => /vocab|vectors\.bin/.test(p))).toEqual([])
  })
})
