/**
 * The dev demo (`docpilot dev --fake-providers`): the fake answers read like
 * a model's, quoting the docs with citations (never the system prompt), and
 * the demo notice is visible while the panel is open.
 */
import { SYSTEM_PROMPT } from '../core/prompt/build.ts'
import { DEMO_NOTICE } from '../cli/commands/dev.ts'
import { ask, expect, expectAccessible, keepScreenshot, openPanel, settled, test, useSite } from './harness.ts'
import { COVERED } from './paths.ts'

const site = useSite({ members: [], demo: true, config: { chat: { chain: 'auto' } } }, { echo: true })

test('the demo answers from the docs with citations, and says it is a demo above the backdrop', async ({ page }, info) => {
  await page.goto(site.url)
  const d = await openPanel(page)
  const notice = d.getByRole('note')
  await expect(notice).toHaveText(DEMO_NOTICE)
  // Visible over the backdrop: the element at its centre is the notice itself.
  const box = (await notice.boundingBox())!
  const onTop = await page.evaluate(
    ([x, y]) => {
      const root = document.querySelector('[data-docpilot-panel]')!.shadowRoot!
      return root.elementFromPoint(x!, y!)?.classList.contains('dp-demo') ?? false
    },
    [box.x + box.width / 2, box.y + box.height / 2],
  )
  expect(onTop).toBe(true)

  const body = await settled(await ask(page, COVERED), 'answered')
  const answer = await body.locator('.dp-answer').innerText()
  // None of the instructions the model is given, only the docs' words.
  for (const sentence of SYSTEM_PROMPT.split(/(?<=\.) /)) expect(answer).not.toContain(sentence.slice(0, 30))
  expect(answer).toContain('ctx.set(key, value)')
  await expect(body.locator('.dp-answer a.dp-cite').first()).toHaveText('[1]')
  await keepScreenshot(page, info, 'demo')
  await expectAccessible(page, info, 'demo')
})

test('the demo notice takes the dark theme with the rest of the panel', async ({ browser }, info) => {
  const context = await browser.newContext({ colorScheme: 'dark' })
  const page = await context.newPage()
  await page.goto(site.url)
  const d = await openPanel(page)
  await expect(page.locator('[data-docpilot-panel]')).toHaveAttribute('data-theme', 'dark')
  const notice = d.getByRole('note')
  await expect(notice).toHaveText(DEMO_NOTICE)
  // Relative luminance (WCAG) of the notice's colours and of the dialog's background.
  const [bg, fg, dialogBg] = await notice.evaluate((el) => {
    const luminance = (css: string) => {
      const [r, g, b] = css.match(/[\d.]+/g)!.slice(0, 3).map((v) => {
        const c = Number(v) / 255
        return c <= 0.04045 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4
      })
      return 0.2126 * r! + 0.7152 * g! + 0.0722 * b!
    }
    const dialog = el.closest('.dp-dialog')!
    return [getComputedStyle(el).backgroundColor, getComputedStyle(el).color, getComputedStyle(dialog).backgroundColor].map(luminance)
  })
  // A dark band like the dialog around it, not the light theme's pale yellow, with light text that reads on it.
  expect(dialogBg!).toBeLessThan(0.05)
  expect(bg!).toBeLessThan(0.05)
  expect((fg! + 0.05) / (bg! + 0.05)).toBeGreaterThanOrEqual(4.5)
  await keepScreenshot(page, info, 'demo-dark')
  await expectAccessible(page, info, 'demo-dark')
  await context.close()
})
