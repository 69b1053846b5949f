/**
 * The panel on a phone (iPhone 13's screen and touch, in Chromium): it takes
 * the whole screen, upright or on its side, stays clear of the notch and the
 * home indicator, and its question box does not make iOS zoom the page.
 */
import { devices, type Locator, type Page } from '@playwright/test'
import { dialog, expect, test, useSite } from './harness.ts'

const site = useSite({ members: ['openai'] }, { echo: true })
const { defaultBrowserType: _webkit, ...iPhone } = devices['iPhone 13']
test.use(iPhone)

/** A notched phone's insets, as the browser gives them to a page with viewport-fit=cover. */
const INSETS = { top: 47, bottom: 34, left: 0, right: 0 }

/** The open dialog, measured once its entrance animation has run (it slides up 8px). */
async function openedByTap(page: Page): Promise<Locator> {
  await page.locator('[data-docpilot-launcher] button').tap()
  const d = dialog(page)
  await expect(d).toBeVisible()
  await d.evaluate((el) => Promise.all(el.getAnimations().map((a) => a.finished)))
  return d
}

async function withNotch(page: Page, insets: typeof INSETS = INSETS): Promise<void> {
  const cdp = await page.context().newCDPSession(page)
  await cdp.send('Emulation.setSafeAreaInsetsOverride', { insets })
}

test('on a notched phone the launcher, the panel header and the question box stay clear of the notch and the home indicator', async ({ page }) => {
  await withNotch(page)
  await page.goto(site.url)
  const launcher = page.locator('[data-docpilot-launcher] button')
  const screen = await page.evaluate(() => innerHeight)
  const button = (await launcher.boundingBox())!
  expect(button.y + button.height).toBeLessThanOrEqual(screen - INSETS.bottom)
  const d = await openedByTap(page)
  const box = await d.boundingBox()
  expect(box).toMatchObject({ x: 0, y: 0, height: screen })
  const header = (await d.locator('.dp-header').boundingBox())!
  const form = (await d.locator('.dp-form').boundingBox())!
  expect(header.y).toBeGreaterThanOrEqual(INSETS.top)
  expect(form.y + form.height).toBeLessThanOrEqual(screen - INSETS.bottom)
})

test.describe('on its side', () => {
  const { defaultBrowserType: _webkit, ...landscape } = devices['iPhone 13 landscape']
  test.use(landscape)

  test('the panel takes the whole screen and keeps its sides out of the notch', async ({ page }) => {
    await withNotch(page, { top: 0, bottom: 21, left: 47, right: 47 })
    await page.goto(site.url)
    const d = await openedByTap(page)
    const screen = await page.evaluate(() => ({ width: innerWidth, height: innerHeight }))
    expect(await d.boundingBox()).toEqual({ x: 0, y: 0, ...screen })
    for (const part of ['.dp-header', '.dp-form']) {
      const box = (await d.locator(part).boundingBox())!
      expect(box.x).toBeGreaterThanOrEqual(47)
      expect(box.x + box.width).toBeLessThanOrEqual(screen.width - 47)
    }
  })
})

test('the question box is in 16px type, so iOS does not zoom the page when it takes focus', async ({ page }) => {
  await page.goto(site.url)
  await page.locator('[data-docpilot-launcher] button').tap()
  const box = dialog(page).getByRole('textbox')
  await expect(box).toBeFocused()
  expect(await box.evaluate((el) => parseFloat(getComputedStyle(el).fontSize))).toBeGreaterThanOrEqual(16)
})
