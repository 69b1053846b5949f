/**
 * The panel's code is a chunk the loader imports on first open. When that
 * import fails (the reader's network dropped, a deploy replaced the files),
 * the reader is told so by the launcher, with a way to try again; and the
 * next open imports again, so the panel opens once the network is back
 * without a reload.
 */
import type { Page } from '@playwright/test'
import { LOAD_FAILED, TRY_AGAIN } from '../widget/load-failed.ts'
import { dialog, expect, expectAccessible, test, useSite } from './harness.ts'

const PANEL_CHUNK = /\/docpilot-mount-[^/]+\.js$/

const site = useSite({ members: ['openai'] }, { echo: true })

/** The site, with the panel chunk failing on the network; the page's uncaught errors from then on. */
async function withPanelChunkDown(page: Page) {
  const uncaught: string[] = []
  page.on('pageerror', (e) => uncaught.push(e.message))
  await page.route(PANEL_CHUNK, (route) => route.abort('internetdisconnected'))
  await page.goto(site.url)
  return { uncaught, notice: page.locator('[data-docpilot-notice]'), launcher: page.locator('[data-docpilot-launcher] button') }
}

test('Ctrl+K while the panel chunk cannot load says so by the launcher; the next Ctrl+K opens it once the network is back', async ({ page }, info) => {
  const { uncaught, notice, launcher } = await withPanelChunkDown(page)

  await page.keyboard.press('Control+k')
  await expect(notice.getByRole('alert')).toHaveText(LOAD_FAILED)
  await expect(notice.getByRole('button', { name: TRY_AGAIN })).toBeVisible()
  await expect(launcher).toHaveAttribute('aria-expanded', 'false')
  await expect(dialog(page)).toHaveCount(0)
  expect(uncaught).toEqual([])
  await expectAccessible(page, info, 'panel-load-failed', '[data-docpilot-notice]')

  await page.unroute(PANEL_CHUNK)
  await page.keyboard.press('Control+k')
  await expect(dialog(page)).toBeVisible()
  await expect(notice.getByRole('button', { name: TRY_AGAIN })).toBeHidden()
  await expect(launcher).toHaveAttribute('aria-expanded', 'true')
  expect(uncaught).toEqual([])
})

test('the launcher, after a failed load, stays quiet on intent and shows the notice on click; "Try again" opens the panel', async ({ page }) => {
  const { uncaught, notice, launcher } = await withPanelChunkDown(page)

  // Hovering starts the import (prefetch): its failure is not the reader's business yet.
  const tried = page.waitForEvent('requestfailed', (r) => PANEL_CHUNK.test(r.url()))
  await launcher.hover()
  await tried
  await expect(notice.getByRole('alert')).toHaveCount(0)
  await launcher.click()
  await expect(notice.getByRole('alert')).toHaveText(LOAD_FAILED)

  await page.unroute(PANEL_CHUNK)
  await notice.getByRole('button', { name: TRY_AGAIN }).click()
  await expect(dialog(page)).toBeVisible()
  await expect(notice.locator('[role="alert"]')).toHaveText('')
  expect(uncaught).toEqual([])
})
