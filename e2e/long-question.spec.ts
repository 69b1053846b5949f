/**
 * A pasted question too long for the prompt's body: the box says so before the reader asks, rather than the
 * proxy refusing the body and the turn ending in a search answer that says the models are unreachable.
 */
import { ask, dialog, expect, keepScreenshot, openPanel, settled, statusLine, test, useSite } from './harness.ts'
import { COVERED } from './paths.ts'

const site = useSite({ members: ['openai'] }, { echo: true })

/** The covered question, repeated to `chars` characters: a long question the docs still answer. */
const longQuestion = (chars: number) => `${COVERED} `.repeat(Math.ceil(chars / (COVERED.length + 1))).slice(0, chars).trim()

test('the box counts near the limit, will not ask past it, and a question at the limit is answered', async ({ page }, info) => {
  await page.goto(site.url)
  await openPanel(page)
  const d = dialog(page)
  const box = d.getByRole('textbox')
  const askButton = d.getByRole('button', { name: 'Ask', exact: true })

  await box.fill(COVERED)
  await expect(d.locator('#dp-length')).toHaveCount(0)

  const tooLong = longQuestion(61_600)
  await box.fill(tooLong)
  const counter = d.locator('#dp-length')
  await expect(counter).toHaveText(`${tooLong.length.toLocaleString('en')} / 4,000 characters: shorten the question to ask it.`)
  await expect(box).toHaveAttribute('aria-invalid', 'true')
  await expect(box).toHaveAttribute('aria-describedby', 'dp-length')
  await expect(askButton).toBeDisabled()
  await keepScreenshot(page, info, 'too-long')
  await box.press('Enter')
  await expect(statusLine(page)).toHaveText(await counter.innerText())
  await expect(d.locator('article.dp-turn')).toHaveCount(0)
  expect(await site.fakes.requests()).toEqual([])

  const atLimit = longQuestion(4000)
  expect(atLimit.length).toBeGreaterThan(3950)
  await box.fill(atLimit)
  await expect(counter).toHaveText(`${atLimit.length.toLocaleString('en')} / 4,000 characters`)
  await expect(box).not.toHaveAttribute('aria-invalid')
  await expect(askButton).toBeEnabled()
  const turn = await ask(page, atLimit)
  await settled(turn, 'answered')
  await expect(d.locator('#dp-length')).toHaveCount(0)
})

test('the box grows with a question of a few lines, up to its cap, and is one line again once it is asked', async ({ page }) => {
  await page.setViewportSize({ width: 390, height: 844 })
  await page.goto(site.url)
  const d = await openPanel(page)
  const box = d.getByRole('textbox')
  const size = () => box.evaluate((el) => ({ shown: el.clientHeight, needed: el.scrollHeight, outer: el.getBoundingClientRect().height }))
  const oneLine = await size()
  // Three lines or so at this width: all of it in view, none scrolled out of the box.
  await box.fill(longQuestion(100))
  const few = await size()
  expect(few.outer).toBeGreaterThan(oneLine.outer)
  expect(few.shown).toBeGreaterThanOrEqual(few.needed)
  // Far more than the cap: the box stops growing and scrolls inside.
  await box.fill(longQuestion(2_000))
  expect((await size()).outer).toBeLessThanOrEqual(160)
  await box.fill(longQuestion(100))
  expect((await size()).outer).toBe(few.outer)
  await box.press('Enter')
  await settled(d.locator('article.dp-turn').first(), 'answered')
  expect((await size()).outer).toBe(oneLine.outer)
})
