/**
 * The panel on pages that are not the demo's: a site whose global CSS reaches
 * the panel's host element. Served without the Content-Security-Policy so the
 * specs can add the site's stylesheet to the page.
 */
import { ask, dialog, expect, settled, test, useSite } from './harness.ts'
import { COVERED } from './paths.ts'

const site = useSite({ members: ['openai'], csp: false }, [])

test('a site stylesheet that hides empty divs hides neither the launcher nor the panel', async ({ page }) => {
  await page.goto(site.url)
  // A common reset; the hosts are empty divs to the page (their content is in shadow roots).
  await page.addStyleTag({ content: 'div:empty { display: none !important; } div { opacity: 0.2; }' })
  const launcher = page.locator('[data-docpilot-launcher]').getByRole('button', { name: /Ask the docs/ })
  await expect(launcher).toBeVisible()
  await launcher.click()
  await expect(dialog(page)).toBeVisible()
  const body = await settled(await ask(page, COVERED), 'answered')
  await expect(body.locator('.dp-answer')).toBeVisible()
  expect(await page.locator('[data-docpilot-panel]').evaluate((host) => getComputedStyle(host).opacity)).toBe('1')
})

test('long unbroken words and URLs wrap inside the panel instead of running past its edge', async ({ page }) => {
  const url = `https://example.com/${'segment/'.repeat(30)}end`
  const word = `ctx.${'reallyLongIdentifier'.repeat(12)}`
  await site.fakes.control({ member: 'openai', text: `See ${url} and call \`${word}\` or ${word} [1].` })
  await page.goto(site.url)
  await page.getByRole('button', { name: /Ask the docs/ }).first().click()
  const body = await settled(await ask(page, COVERED), 'answered')
  await expect(body.locator('.dp-answer')).toContainText('reallyLongIdentifier')
  // A reader's question with a long token (a pasted stack trace, a URL) is shown as asked, whatever its answer.
  const pasted = await ask(page, `Why does ${url} fail?`)
  await expect(pasted).toHaveAttribute('data-phase', 'settled', { timeout: 45_000 })
  const widths = await dialog(page).locator('.dp-log').evaluate((log) => ({ scroll: log.scrollWidth, client: log.clientWidth }))
  expect(widths.scroll).toBeLessThanOrEqual(widths.client)
})

test('on a right-to-left page the panel\'s English reads left to right, code too, and right-to-left text takes its own direction', async ({ page }) => {
  await site.fakes.control({ member: 'openai', text: 'Call `c.set(key, value)` [1]:\n\n```ts\napp.use(async (c, next) => {\n  await next()\n})\n```' })
  await page.goto(site.url)
  await page.evaluate(() => document.documentElement.setAttribute('dir', 'rtl'))
  await page.getByRole('button', { name: /Ask the docs/ }).first().click()
  const body = await settled(await ask(page, COVERED), 'answered')
  const pre = body.locator('.dp-answer pre')
  await expect(pre).toContainText('app.use')
  const layout = await pre.evaluate((el) => {
    const root = el.getRootNode() as ShadowRoot
    const code = el.querySelector('code')!
    // Where the block's first character is drawn: at the left edge of the block, as in any editor.
    const range = document.createRange()
    range.setStart(code.firstChild!, 0)
    range.setEnd(code.firstChild!, 1)
    const first = range.getBoundingClientRect()
    const box = el.getBoundingClientRect()
    return {
      dialog: getComputedStyle(root.querySelector('.dp-dialog')!).direction,
      answer: getComputedStyle(root.querySelector('.dp-answer')!).direction,
      block: getComputedStyle(el).direction,
      inline: getComputedStyle(root.querySelector('.dp-answer p code')!).direction,
      firstAtLeft: first.left - box.left < 24,
      firstLine: code.textContent!.split('\n')[0],
    }
  })
  expect(layout).toEqual({ dialog: 'ltr', answer: 'ltr', block: 'ltr', inline: 'ltr', firstAtLeft: true, firstLine: 'app.use(async (c, next) => {' })
  // A reader who asks in Hebrew sees the question, and what they type, right to left.
  const hebrew = 'איך מגדירים עוגייה?'
  await dialog(page).locator('textarea').fill(hebrew)
  expect(await dialog(page).locator('textarea').evaluate((el) => getComputedStyle(el).direction)).toBe('rtl')
  const turn = await ask(page, hebrew)
  expect(await turn.locator('.dp-question').evaluate((el) => getComputedStyle(el).direction)).toBe('rtl')
})
