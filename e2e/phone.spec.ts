/**
 * The panel on a phone (iPhone 13's screen and touch, in Chromium): its
 * question box does not make iOS zoom the page.
 */
import { devices } from '@playwright/test'
import { dialog, expect, test, useSite } from './harness.ts'

const site = useSite({ members: ['openai'] }, { echo: true })
const { defaultBrowserType: _webkit, ...iPhone } = devices['iPhone 13']
test.use(iPhone)

test('the question box is in 16px type, so iOS does not zoom the page when it takes focus', async ({ page }) => {
  await page.goto(site.url)
  await page.locator('[data-docpilot-launcher] button').tap()
  const box = dialog(page).getByRole('textbox')
  await expect(box).toBeFocused()
  expect(await box.evaluate((el) => parseFloat(getComputedStyle(el).fontSize))).toBeGreaterThanOrEqual(16)
})
