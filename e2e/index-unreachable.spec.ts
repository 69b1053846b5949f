/**
 * The index cannot be loaded (the index folder unreachable, manifest.json
 * refused): nothing can be searched, so there is neither an answer nor a
 * search answer to give. The turn says so, once, with Retry and without
 * "Search the docs" (the search is what failed) or any word about an AI
 * service; it reads manifest.json a bounded number of times; and Retry works
 * once the index is back. (A search-only site's turn: search-view.spec.ts.)
 */
import type { Route } from '@playwright/test'
import { PART_ATTEMPTS } from '../core/index/fetch-part.ts'
import { COPY } from '../widget/panel/copy.ts'
import { ask, dialog, expect, expectAccessible, listenToAlerts, openPanel, settled, test, useSite } from './harness.ts'
import { COVERED } from './paths.ts'

const INDEX_FILES = /\/docpilot\/.+$/
const MANIFEST = /\/docpilot\/manifest\.json$/

const FAILURES: { name: string; fail: (route: Route) => Promise<void>; only: RegExp; requestsPerOpen: number }[] = [
  { name: 'the index folder is unreachable', fail: (r) => r.abort('internetdisconnected'), only: INDEX_FILES, requestsPerOpen: PART_ATTEMPTS },
  { name: 'manifest.json answers 404', fail: (r) => r.fulfill({ status: 404, body: 'Not found' }), only: MANIFEST, requestsPerOpen: 1 },
  { name: 'manifest.json answers 500', fail: (r) => r.fulfill({ status: 500, body: 'Internal error' }), only: MANIFEST, requestsPerOpen: 1 },
]

test.describe('a site with a chat chain whose index cannot be loaded', () => {
  const site = useSite({ members: ['openai'] }, { echo: true })

  for (const { name, fail, only, requestsPerOpen } of FAILURES) {
    test(`${name}: says the search index could not be loaded, once, with Retry, and Retry works once it is back`, async ({ page }, info) => {
      let manifestReads = 0
      page.on('request', (r) => void (MANIFEST.test(r.url()) && manifestReads++))
      await page.route(only, fail)
      await page.goto(site.url)
      const d = await openPanel(page)
      const alerts = await listenToAlerts(page)
      const body = await settled(await ask(page, COVERED), 'error')

      await expect(body.locator('.dp-error')).toHaveText(COPY.indexError)
      await expect(body).not.toContainText(/\bAI\b|model/)
      await expect(body.getByRole('button')).toHaveText([COPY.retry])
      await expect(d.getByRole('button', { name: COPY.searchDocs })).toHaveCount(0)
      await expect(d.getByRole('alert')).toHaveText(COPY.indexError)
      // Opening the panel reads the index once, the question once more at most: not once per step of the turn.
      expect(manifestReads).toBeLessThanOrEqual(2 * requestsPerOpen)
      expect((await site.fakes.requests()).filter((r) => r.endpoint === 'chat')).toHaveLength(0)
      await expectAccessible(page, info, 'index-error')

      // Closed and opened again, the conversation is drawn again: the error is not said a second time.
      await page.keyboard.press('Escape')
      await expect(d).toBeHidden()
      await openPanel(page)
      await expect(body).toBeVisible()
      await page.waitForTimeout(300)
      expect(await alerts()).toEqual([COPY.indexError])

      await page.unroute(only)
      await body.getByRole('button', { name: COPY.retry }).click()
      await settled(dialog(page).locator('article.dp-turn').nth(1), 'answered')
    })
  }
})
