/**
 * The conversation lives for the tab: a citation click or a reload keeps it,
 * "New conversation" clears it, and nothing is kept once the tab is gone
 * unless the owner opts in.
 */
import type { BrowserContext, Locator, Page } from '@playwright/test'
import { ask, dialog, expect, expectAccessible, keepScreenshot, openPanel, settled, test, useSite, type Site } from './harness.ts'
import { COVERED } from './paths.ts'

/** A conversation of one answered turn in this tab, then the panel opened in a new tab of the same browser. */
async function openInAnotherTab(site: Site, context: BrowserContext, page: Page): Promise<{ other: Page; panel: Locator }> {
  await page.goto(site.url)
  await openPanel(page)
  await settled(await ask(page, COVERED), 'answered')
  const other = await context.newPage()
  await other.goto(site.url)
  return { other, panel: await openPanel(other) }
}

test.describe('kept for the tab (the default)', () => {
  const site = useSite({ members: ['openai'], scriptData: { prefetch: 'none' } }, { echo: true })

  test('a citation click keeps the conversation; it comes back when the reader reopens the panel', async ({ page }, info) => {
    await page.goto(site.url)
    await openPanel(page)
    const body = await settled(await ask(page, COVERED), 'answered')
    const answer = await body.locator('.dp-answer').innerText()
    const cite = body.locator('a.dp-cite').first()
    const href = (await cite.getAttribute('href'))!
    await cite.click()
    await expect(page).toHaveURL(new RegExp(`${href.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}$`))

    // The new page loads the loader only: the panel is fetched when the reader reopens it.
    const panelFetched = page.waitForRequest(/docpilot-panel\.js/, { timeout: 2_000 }).then(
      () => true,
      () => false,
    )
    expect(await panelFetched).toBe(false)
    const d = await openPanel(page)
    const turn = d.locator('article.dp-turn')
    await expect(turn).toHaveCount(1)
    await expect(turn.locator('.dp-question')).toHaveText(COVERED)
    await expect.poll(() => turn.locator('.dp-answer').innerText()).toBe(answer)
    await expect(turn.locator('.dp-sources')).toBeVisible()
    await keepScreenshot(page, info, 'conversation-restored')
    await expectAccessible(page, info, 'conversation-restored')

    // A reload keeps it too, and a follow-up joins it.
    await page.reload()
    await openPanel(page)
    await expect(d.locator('article.dp-turn')).toHaveCount(1)
    await settled(await ask(page, 'And how do I type them?'), 'answered')
    await expect(d.locator('article.dp-turn')).toHaveCount(2)
  })

  test('a link that asks a question, clicked again, shows its answer instead of asking twice; another question is asked', async ({ page }) => {
    await page.goto(site.url)
    const open = (q: string) => page.evaluate((question) => (window as unknown as { docpilot: { open(q?: string): void } }).docpilot.open(question), q)
    await open(COVERED)
    const d = dialog(page)
    await settled(d.locator('article.dp-turn').last(), 'answered')
    await page.keyboard.press('Escape')
    await expect(d).toBeHidden()
    await open(COVERED)
    await expect(d).toBeVisible()
    await expect(d.locator('article.dp-turn')).toHaveCount(1)
    await page.keyboard.press('Escape')
    await open('And how do I type them?')
    await expect(d.locator('article.dp-turn')).toHaveCount(2)
  })

  test('"New conversation" clears it, here and on the next page', async ({ page }) => {
    await page.goto(site.url)
    const d = await openPanel(page)
    await expect(d.getByRole('button', { name: 'New conversation' })).toHaveCount(0)
    await settled(await ask(page, COVERED), 'answered')
    await d.getByRole('button', { name: 'New conversation' }).click()
    await expect(d.locator('article.dp-turn')).toHaveCount(0)
    await expect(d.getByRole('textbox')).toBeFocused()
    await page.reload()
    await openPanel(page)
    await expect(dialog(page).locator('.dp-empty')).toBeVisible()
    await expect(dialog(page).locator('article.dp-turn')).toHaveCount(0)
  })

  test('reopened by the keyboard on the next page, the kept answers are drawn rendered from the first frame, never as raw Markdown', async ({ page }) => {
    await page.goto(site.url)
    await openPanel(page)
    const body = await settled(await ask(page, COVERED), 'answered')
    const rendered = await body.locator('.dp-answer').innerHTML()
    expect(rendered).toContain('class="dp-cite"')
    await page.reload()
    // A renderer that takes its time, as on a phone's network: the panel's own code is already in.
    await page.route(/docpilot-rich-[^/]*\.js$/, async (route) => {
      await new Promise((done) => setTimeout(done, 700))
      await route.continue()
    })
    await page.keyboard.press('Control+k')
    const d = dialog(page)
    await expect(d).toBeVisible()
    // Read once, not polled: what the reader sees as the panel appears.
    expect(await d.locator('article.dp-turn .dp-answer').innerHTML()).toBe(rendered)
  })

  test('nothing is kept beyond the tab: another tab starts empty', async ({ context, page }) => {
    const { other, panel } = await openInAnotherTab(site, context, page)
    await expect(panel.locator('.dp-empty')).toBeVisible()
    expect(await other.evaluate(() => Object.keys(localStorage).filter((k) => k.startsWith('docpilot:conversation')))).toEqual([])
  })
})

test.describe('kept for the browser, when the owner opts in', () => {
  const site = useSite({ members: ['openai'], scriptData: { conversation: 'browser' } }, { echo: true })

  test('another tab opens on the same conversation', async ({ context, page }) => {
    const { panel } = await openInAnotherTab(site, context, page)
    await expect(panel.locator('article.dp-turn .dp-question')).toHaveText(COVERED)
  })
})
