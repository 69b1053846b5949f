/** Focus never gets lost in the dialog, Esc closes it from anywhere in it, and closing gives focus back to the launcher. */
import type { Page } from '@playwright/test'
import { ask, dialog, expect, expectAccessible, keepScreenshot, openPanel, settled, test, useSite } from './harness.ts'
import { COVERED } from './paths.ts'

const site = useSite({ members: ['openai'] }, { echo: true })

test('after a thumbs click focus is in the question box, and Esc still closes the panel', async ({ page }, info) => {
  await page.goto(site.url)
  const d = await openPanel(page)
  const body = await settled(await ask(page, COVERED), 'answered')
  const posted = page.waitForResponse((r) => r.url().endsWith('/ai/feedback'))
  await body.getByRole('button', { name: 'Helpful', exact: true }).click()
  await posted
  await expect(body.getByRole('status')).toHaveText('Thanks for the feedback.')
  await expect(d.getByRole('textbox')).toBeFocused()
  await keepScreenshot(page, info, 'after-feedback')
  await expectAccessible(page, info, 'after-feedback')
  await page.keyboard.press('Escape')
  await expect(d).toBeHidden()
})

/** The element that really has focus: through the page's shadow roots (the launcher's button is inside one). */
function focused(page: Page): Promise<string> {
  return page.evaluate(() => {
    let el = document.activeElement
    while (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement
    const root = el?.getRootNode()
    const host = root instanceof ShadowRoot ? root.host : null
    return `${host ? `${host.tagName}[${[...host.attributes].map((a) => a.name).join(' ')}] > ` : ''}${el?.tagName ?? 'none'}`
  })
}

test('Esc and the close button give focus back to the launcher that opened the panel', async ({ page }) => {
  await page.goto(site.url)
  const launcher = page.locator('[data-docpilot-launcher] button')
  const onLauncher = 'DIV[data-docpilot-launcher] > BUTTON'
  // From the keyboard: Enter on the launcher, Esc back.
  await launcher.focus()
  expect(await focused(page)).toBe(onLauncher)
  await page.keyboard.press('Enter')
  const d = dialog(page)
  await expect(d).toBeVisible()
  await expect(d.getByRole('textbox')).toBeFocused()
  await page.keyboard.press('Escape')
  await expect(d).toBeHidden()
  expect(await focused(page)).toBe(onLauncher)
  await expect(launcher).toHaveAttribute('aria-expanded', 'false')
  // With the pointer: a click on the launcher, then the close button.
  await launcher.click()
  await expect(d).toBeVisible()
  await d.getByRole('button', { name: 'Close' }).click()
  await expect(d).toBeHidden()
  expect(await focused(page)).toBe(onLauncher)
})

test('Esc closes from anywhere in the dialog, even with nothing in it focused', async ({ page }) => {
  await page.goto(site.url)
  const d = await openPanel(page)
  await settled(await ask(page, COVERED), 'answered')
  // A click on plain text, then focus dropped altogether.
  await d.locator('.dp-question').click()
  await page.evaluate(() => (document.querySelector('[data-docpilot-panel]')!.shadowRoot!.activeElement as HTMLElement | null)?.blur())
  await page.keyboard.press('Escape')
  await expect(dialog(page)).toBeHidden()
})

test('a citation to a section of the page the reader is on closes the panel, so the section can be seen', async ({ page }) => {
  await page.goto(`${site.url}/api/context`)
  const d = await openPanel(page)
  const body = await settled(await ask(page, COVERED), 'answered')
  const cite = body.locator('a.dp-cite[href^="/api/context#"]').first()
  const anchor = (await cite.getAttribute('href'))!.split('#')[1]!
  await cite.click()
  await expect(d).toBeHidden()
  await expect(page).toHaveURL(new RegExp(`/api/context#${anchor}$`))
  await expect(page.locator(`[id="${anchor}"]`)).toBeInViewport()
})
