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
