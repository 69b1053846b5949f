/** Copy buttons: an answer (with its sources as full links) and every code block, in answers and excerpts. */
import { ask, expect, expectAccessible, keepScreenshot, openPanel, settled, statusLine, test, useSite } from './harness.ts'
import { COVERED } from './paths.ts'

const site = useSite({ members: ['openai'] }, { echo: true })
test.use({ permissions: ['clipboard-read', 'clipboard-write'] })

const clipboard = (page: import('@playwright/test').Page) => page.evaluate(() => navigator.clipboard.readText())

test('copy an answer and a code block from it', async ({ page }, info) => {
  await page.goto(site.url)
  await openPanel(page)
  const body = await settled(await ask(page, COVERED), 'answered')

  const copyAnswer = body.locator('.dp-feedback .dp-copy')
  await expect(copyAnswer).toHaveText('Copy answer')
  await copyAnswer.click()
  // The button says so for a moment, and so does the status line.
  await expect(copyAnswer).toHaveText('Copied')
  await expect(statusLine(page)).toHaveText('Copied to the clipboard')
  const copied = await clipboard(page)
  expect(copied.startsWith((await body.locator('.dp-answer > p').first().innerText()).slice(0, 30))).toBe(true)
  expect(copied).toMatch(/\n\nSources:\n\[1\] Context › .+: http:\/\/127\.0\.0\.1:\d+\/api\/context#/)
  await keepScreenshot(page, info, 'copied')

  const code = body.locator('.dp-answer .dp-code').first()
  await code.getByRole('button', { name: 'Copy code' }).click()
  expect(await clipboard(page)).toBe(await code.locator('code').innerText())
  await expect(code.locator('.dp-copy')).toHaveAttribute('data-copied', '')
  await expectAccessible(page, info, 'copied')
  await expect(copyAnswer).toHaveText('Copy answer')
})

test.describe('a site without a chat chain', () => {
  const searchOnly = useSite({ members: [] })

  test('a code block in an excerpt copies the whole block, even when the excerpt shows its start', async ({ page }) => {
    await page.goto(searchOnly.url)
    await openPanel(page)
    const body = await settled(await ask(page, 'How do I set and get values on the context?'), 'search')
    const code = body.locator('.dp-row', { has: page.locator('a[href="/api/context#set--get"]') }).locator('.dp-code')
    await expect(code.locator('code')).toContainText('…')
    await code.getByRole('button', { name: 'Copy code' }).click()
    const copied = await clipboard(page)
    expect(copied).toContain("ctx.set('user', { id: 42, name: 'Ada' })")
    expect(copied).not.toContain('…')
    expect(copied.split('\n').length).toBeGreaterThan((await code.locator('code').innerText()).split('\n').length - 1)
  })
})
