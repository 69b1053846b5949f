/**
 * The empty panel: suggested questions from the index (derived from the
 * docs' headings here), and the single-key shortcut, which the reader can
 * turn off (WCAG 2.1.4).
 */
import { dialog, expect, expectAccessible, keepScreenshot, openPanel, settled, test, useSite } from './harness.ts'

const site = useSite({ members: ['openai'] }, { echo: true })

test('suggested questions from the docs headings; one click asks it', async ({ page }, info) => {
  await page.goto(site.url)
  const d = await openPanel(page)
  const suggestions = d.getByRole('region', { name: 'Try asking' }).getByRole('button')
  await expect(suggestions).toHaveCount(4)
  await expect(suggestions.first()).toHaveText('Is Lumen production ready?')
  await keepScreenshot(page, info, 'empty')
  await expectAccessible(page, info, 'empty')
  await suggestions.nth(1).click()
  const turn = d.locator('article.dp-turn').first()
  const question = await turn.locator('.dp-question').innerText()
  expect(question).toMatch(/^How do I .+\?$/)
  const body = await settled(turn, 'answered')
  await expect(body.locator('a.dp-cite').first()).toBeVisible()
})

test('the "/" shortcut: off while typing in any field, and the reader can turn it off', async ({ page }) => {
  await page.goto(site.url)
  // Typing "/" in a field of the page types it.
  await page.evaluate(() => document.body.insertAdjacentHTML('afterbegin', '<input id="site-search" aria-label="Site search">'))
  await page.locator('#site-search').pressSequentially('a/b')
  await expect(page.locator('#site-search')).toHaveValue('a/b')
  await expect(dialog(page)).toBeHidden()

  await page.locator('main').click()
  await page.keyboard.press('/')
  const d = dialog(page)
  await expect(d).toBeVisible()
  await expect(d.locator('.dp-tip')).toHaveText(/Press \/ anywhere on the page to open this panel\./)
  await d.locator('.dp-tip').getByRole('button', { name: 'Turn off' }).click()
  await expect(d.locator('.dp-tip')).toContainText('Single-key shortcuts are off.')
  await page.keyboard.press('Escape')
  await expect(d).toBeHidden()

  // Off, and it stays off on the next page; the Ctrl+K combination still opens.
  await page.reload()
  await page.locator('main').click()
  await page.keyboard.press('/')
  await page.waitForTimeout(300)
  await expect(dialog(page)).toBeHidden()
  await page.keyboard.press('Control+k')
  await expect(dialog(page)).toBeVisible()
  await dialog(page).locator('.dp-tip').getByRole('button', { name: 'Turn on' }).click()
  await page.keyboard.press('Escape')
  await page.keyboard.press('/')
  await expect(dialog(page)).toBeVisible()
})

test.describe('hotkeys the site chose', () => {
  const remapped = useSite({ members: ['openai'], scriptData: { hotkeys: 'alt+shift+a' } })

  test('data-hotkeys replaces the defaults: its combination opens, "/" and Ctrl+K do not', async ({ page }) => {
    await page.goto(remapped.url)
    await expect(page.locator('[data-docpilot-launcher]').locator('kbd')).toHaveText(/A/)
    await page.locator('main').click()
    await page.keyboard.press('/')
    await page.keyboard.press('Control+k')
    await page.waitForTimeout(300)
    await expect(dialog(page)).toBeHidden()
    await page.keyboard.press('Alt+Shift+A')
    await expect(dialog(page)).toBeVisible()
    // No single key, so no shortcut tip to turn off.
    await expect(dialog(page).locator('.dp-tip')).toHaveCount(0)
  })

  const none = useSite({ members: ['openai'], scriptData: { hotkeys: 'none' } })

  test('data-hotkeys="none": no key opens the panel; the button still does', async ({ page }) => {
    await page.goto(none.url)
    await page.locator('main').click()
    await page.keyboard.press('/')
    await page.keyboard.press('Control+k')
    await page.waitForTimeout(300)
    await expect(dialog(page)).toBeHidden()
    await expect(page.locator('[data-docpilot-launcher]').locator('kbd')).toHaveCount(0)
    await openPanel(page)
  })
})
