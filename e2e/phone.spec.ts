/**
 * The panel on a phone (iPhone 13's screen and touch, in Chromium): it takes
 * the whole screen, stays clear of the notch and the home indicator, and its
 * question box does not make iOS zoom the page.
 */
import { devices, type Page } from '@playwright/test'
import { dialog, expect, test, useSite } from './harness.ts'

const site = useSite({ members: ['openai'] }, { echo: true })
const { defaultBrowserType: _webkit, ...iPhone } = devices['iPhone 13']
test.use(iPhone)

/** A notched phone's insets, as the browser gives them to a page with viewport-fit=cover. */
const INSETS = { top: 47, bottom: 34, left: 0, right: 0 }

async function withNotch(page: Page): Promise<void> {
  const cdp = await page.context().newCDPSession(page)
  await cdp.send('Emulation.setSafeAreaInsetsOverride', { insets: INSETS })
}

test('on a notched phone the launcher, the panel header and the question box stay clear of the notch and the home indicator', async ({ page }) => {
  await withNotch(page)
  await page.goto(site.url)
  const launcher = page.locator('[data-docpilot-launcher] button')
  const screen = await page.evaluate(() => innerHeight)
  expect((await launcher.boundingBox())!.y + (await launcher.boundingBox())!.height).toBeLessThanOrEqual(screen - INSETS.bottom)
  await launcher.tap()
  const d = dialog(page)
  await expect(d).toBeVisible()
  const box = await d.boundingBox()
  expect(box).toMatchObject({ x: 0, y: 0, height: screen })
  const header = (await d.locator('.dp-header').boundingBox())!
  const form = (await d.locator('.dp-form').boundingBox())!
  expect(header.y).toBeGreaterThanOrEqual(INSETS.top)
  expect(form.y + form.height).toBeLessThanOrEqual(screen - INSETS.bottom)
})

test('the question box is in 16px type, so iOS does not zoom the page when it takes focus', async ({ page }) => {
  await page.goto(site.url)
  await page.locator('[data-docpilot-launcher] button').tap()
  const box = dialog(page).getByRole('textbox')
  await expect(box).toBeFocused()
  expect(await box.evaluate((el) => parseFloat(getComputedStyle(el).fontSize))).toBeGreaterThanOrEqual(16)
})
