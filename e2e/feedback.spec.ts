/** Thumbs post the rating with turn.ladder and the receipt to the proxy, which stores it. */
import { ask, expect, expectAccessible, keepScreenshot, openPanel, settled, test, useSite } from './harness.ts'
import { COVERED } from './paths.ts'

const site = useSite({ members: ['openai', 'gemini'] })

test('a thumbs-down is stored by the proxy with the ladder record and the receipt', async ({ page }, info) => {
  await site.fakes.reset()
  await site.fakes.control([{ echo: true }, { member: 'openai', fault: 'rate-limit', times: 1 }])
  await page.goto(site.url)
  await openPanel(page)
  const body = await settled(await ask(page, COVERED), 'answered')
  const posted = page.waitForResponse((r) => r.url().endsWith('/ai/feedback'))
  await body.getByRole('button', { name: 'Not helpful' }).click()
  expect((await posted).status()).toBe(201)
  await expect(body.getByRole('status')).toHaveText('Thanks for the feedback.')

  const rows = site.server.proxy.state.feedbackRows()
  expect(rows).toHaveLength(1)
  const row = rows[0]!
  expect(row.rating).toBe('down')
  expect(JSON.parse(row.ladder!)).toEqual({ provider: 'gemini', index: 1, freePool: null })
  const receipt = JSON.parse(row.receipt!)
  expect(receipt.outcome).toBe('answered')
  expect(receipt.attempts).toHaveLength(2)
  // Text is kept only when the owner opted in (feedback.storeText is off here).
  expect(row.question).toBeNull()
  expect(row.answer).toBeNull()
  await keepScreenshot(page, info, 'feedback')
  await expectAccessible(page, info, 'feedback-sent')
})
