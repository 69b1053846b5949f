/**
 * The index cannot be loaded (the index folder unreachable, manifest.json
 * refused): nothing can be searched, so there is neither an answer nor a
 * search answer to give. The turn is the transport error of spec 002 (its
 * words, role="alert" on it, Retry and "Search the docs"), says under it
 * that the index could not be loaded, and is said once as it settles. It
 * reads manifest.json a bounded number of times,
 * and Retry works once the index is back. (A search-only site's turn:
 * search-view.spec.ts.)
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
    test(`${name}: the transport error, said once, naming the index, and Retry works once it is back`, async ({ page }, info) => {
      let manifestReads = 0
      page.on('request', (r) => void (MANIFEST.test(r.url()) && manifestReads++))
      await page.route(only, fail)
      await page.goto(site.url)
      await openPanel(page)
      const alerts = await listenToAlerts(page)
      const body = await settled(await ask(page, COVERED), 'error')

      await expect(body.getByRole('alert')).toHaveText(COPY.error)
      await expect(body.locator('.dp-note')).toHaveText(COPY.indexCause)
      await expect(body.locator('.dp-actions button')).toHaveText([COPY.retry, COPY.searchDocs])
      // Opening the panel reads the index once, the question once more, manifest.json alone once (it names the
      // product when other parts fail): not once per step of the turn (4 to 8 reads before).
      expect(manifestReads).toBeLessThanOrEqual(3 * requestsPerOpen)
      expect((await site.fakes.requests()).filter((r) => r.endpoint === 'chat')).toHaveLength(0)
      await expectAccessible(page, info, 'index-error')

      // Said once as it settles: one alert, not one per step of the turn.
      expect(await alerts()).toEqual([COPY.error])

      // "Search the docs" with no search URL of the site's own searches the same index: it says so when that fails too.
      await body.getByRole('button', { name: COPY.searchDocs }).click()
      await expect(body.getByText(COPY.searchError)).toBeVisible()
      await expect(body.getByRole('alert')).toHaveText(COPY.error)
      await expect(dialog(page).getByRole('status')).toHaveText(COPY.searchError)

      await page.unroute(only)
      await body.getByRole('button', { name: COPY.retry }).click()
      await settled(dialog(page).locator('article.dp-turn').nth(1), 'answered')
    })
  }
})
