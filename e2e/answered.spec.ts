import { ask, expect, expectAccessible, keepScreenshot, listenToStatus, openPanel, settled, test, useSite } from './harness.ts'
import { COVERED } from './paths.ts'

const site = useSite({ members: ['openai'] })

test('a streamed answer with citations that link to the cited heading', async ({ page }, info) => {
  // Slow deltas so the answer is seen growing before it settles.
  await site.fakes.control({ member: 'openai', echo: true, deltas: 12, paceMs: 250 })
  await page.goto(site.url)
  await openPanel(page)
  await expectAccessible(page, info, 'empty')
  const turn = await ask(page, COVERED)
  await expect(turn).toHaveAttribute('data-phase', 'answering')
  await expect(turn.locator('.dp-answer')).not.toBeEmpty()
  await expectAccessible(page, info, 'answering')
  const body = await settled(turn, 'answered')
  await expect(body.locator('.dp-sources')).toBeVisible()
  const cite = body.locator('.dp-answer a.dp-cite').first()
  await expect(cite).toHaveText('[1]')
  const href = await cite.getAttribute('href')
  expect(href).toMatch(/^\/[^#]*#.+/)
  await keepScreenshot(page, info, 'answered')
  await expectAccessible(page, info, 'answered')

  await cite.click()
  const [path, anchor] = href!.split('#')
  await expect(page).toHaveURL(new RegExp(`${path!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}#${anchor}$`))
  await expect(page.locator(`[id="${decodeURIComponent(anchor!)}"]`)).toBeVisible()
})

test('the question box stays put while an answer streams in: the dialog does not grow under the reader', async ({ page }) => {
  await site.fakes.control({ member: 'openai', echo: true, deltas: 12, paceMs: 150 })
  await page.setViewportSize({ width: 1280, height: 900 })
  await page.goto(site.url)
  const d = await openPanel(page)
  await d.evaluate((el) => Promise.all(el.getAnimations().map((a) => a.finished)))
  const box = d.getByRole('textbox')
  const tops: number[] = []
  const turn = await ask(page, COVERED)
  await expect(turn).toHaveAttribute('data-phase', 'answering')
  while ((await turn.getAttribute('data-phase')) !== 'settled') {
    tops.push((await box.boundingBox())!.y)
    await page.waitForTimeout(50)
  }
  tops.push((await box.boundingBox())!.y)
  expect(tops.length).toBeGreaterThan(3)
  expect(new Set(tops).size, `the box moved: ${tops.join(', ')}`).toBe(1)
})

test('a citation cut between two chunks is not shown as raw text while the rest arrives', async ({ page }) => {
  await site.fakes.reset()
  // No space but the one inside the marker (the rest are no-break spaces): the first chunk ends at "[1,".
  const text = 'Set\u00a0values\u00a0with\u00a0c.set()\u00a0[1, 2]\u00a0and\u00a0read\u00a0them\u00a0back.'
  await site.fakes.control({ member: 'openai', text, deltas: 2, paceMs: 2_000 })
  await page.goto(site.url)
  await openPanel(page)
  const turn = await ask(page, COVERED)
  const answer = turn.locator('.dp-answer')
  await expect(answer).toContainText('c.set()')
  await expect(turn).toHaveAttribute('data-phase', 'answering')
  expect(await answer.innerText()).not.toContain('[')
  const body = await settled(turn, 'answered')
  await expect(body.locator('.dp-answer a.dp-cite')).toHaveText(['[1]', '[2]'])
})

test("a reasoning model's thinking sent with only its closing tag leaves the screen when the tag comes", async ({ page }) => {
  await site.fakes.reset()
  // Four deltas: the thought, the thought's end with the tag and the answer's first word, then the answer.
  const text = 'Okay, the reader asks how to set a value.\n</think>\n\nYou set a value with c.set() and read it back later with c.get().'
  await site.fakes.control({ member: 'openai', text, deltas: 4, paceMs: 2_000 })
  await page.goto(site.url)
  await openPanel(page)
  const said = await listenToStatus(page)
  const turn = await ask(page, COVERED)
  const answer = turn.locator('.dp-answer')
  // Nothing tells the thought from an answer before the tag: it is shown as it comes.
  await expect(answer).toContainText('Okay, the reader')
  await expect(answer).toContainText('You set a value')
  await expect(turn).toHaveAttribute('data-phase', 'answering')
  expect(await answer.innerText()).not.toMatch(/Okay|think/)
  const body = await settled(turn, 'answered')
  await expect(body.locator('.dp-answer')).toHaveText('You set a value with c.set() and read it back later with c.get().')
  // Taking the thought back is not news to a screen reader: the passages were announced once, with their count.
  await expect.poll(said).toEqual([expect.stringMatching(/^[1-9]\d* passages? found$/), 'Answer ready'])
})

test.describe("the owner's answer settings", () => {
  const tuned = useSite({ members: ['openai'], config: { chat: { chain: 'auto', maxTokens: 321, temperature: 0.6 } } })

  test('chat.maxTokens and chat.temperature reach the provider through the panel', async ({ page }) => {
    await page.goto(tuned.url)
    await openPanel(page)
    await settled(await ask(page, COVERED), 'answered')
    const chats = (await tuned.fakes.requests()).filter((r) => r.endpoint === 'chat')
    expect(chats).toHaveLength(1)
    expect(chats[0]!.body).toMatchObject({ max_tokens: 321, temperature: 0.6 })
  })
})

test("an answer's quote and inline code are marked as such, not left as a bare indent and a change of font", async ({ page }) => {
  await site.fakes.control({ member: 'openai', text: 'Read it with `getCookie(c, "name")` [1].\n\n> Signed cookies need the secret.' })
  await page.goto(site.url)
  await openPanel(page)
  const body = await settled(await ask(page, COVERED), 'answered')
  const code = body.locator('.dp-answer p code')
  await expect(code).toHaveText('getCookie(c, "name")')
  const background = (el: Element) => getComputedStyle(el).backgroundColor
  expect(await code.evaluate(background)).not.toBe(await body.evaluate(background))
  const quote = body.locator('.dp-answer blockquote')
  expect(await quote.evaluate((el) => parseFloat(getComputedStyle(el).borderLeftWidth))).toBeGreaterThan(0)
  // The quote's text starts near the answer's own left edge, not 40px in.
  const [q, a] = [await quote.locator('p').boundingBox(), await body.locator('.dp-answer').boundingBox()]
  expect(q!.x - a!.x).toBeLessThan(20)
})
