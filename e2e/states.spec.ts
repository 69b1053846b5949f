/** The turns that settle somewhere other than an answer (spec 002, "What the reader sees"). */
import { MEANWHILE_NOTICE } from '../core/turn/copy.ts'
import { COPY } from '../widget/panel/copy.ts'
import { ask, expect, expectAccessible, keepScreenshot, openPanel, settled, test, useSite } from './harness.ts'
import { COVERED, UNCOVERED } from './paths.ts'

const site = useSite({ members: ['openai'] }, { echo: true })

test('a failure before retrieval is the transport error, with role="alert", and says the index could not be loaded', async ({ page }, info) => {
  // The manifest loads, every other index part fails: retrieval cannot run.
  await page.route(/\/docpilot\/(?!manifest\.json)[^/]+$/, (route) => route.abort('connectionreset'))
  await page.goto(site.url)
  await openPanel(page)
  const body = await settled(await ask(page, COVERED), 'error')
  await expect(body.getByRole('alert')).toHaveText(COPY.error)
  await expect(body.locator('.dp-note')).toHaveText(COPY.indexCause)
  await expect(body.locator('.dp-actions button')).toHaveText(['Retry', 'Search the docs'])
  expect((await site.fakes.requests()).filter((r) => r.endpoint === 'chat')).toHaveLength(0)
  await keepScreenshot(page, info, 'error')
  await expectAccessible(page, info, 'error')
})

test('the daily limit of the last member: rate-limited with its reset time and the passages as links', async ({ page }, info) => {
  const resetAt = Date.UTC(2030, 0, 1, 16, 0, 0)
  await site.fakes.control({ member: 'openai', fault: 'daily-quota', resetAt })
  await page.goto(site.url)
  await openPanel(page)
  const body = await settled(await ask(page, COVERED), 'rate-limited')
  const when = await page.evaluate((t) => new Date(t).toLocaleTimeString(undefined, { hour: 'numeric', minute: '2-digit' }), resetAt)
  await expect(body.locator('.dp-lead')).toContainText(when)
  await expect(body.getByText(MEANWHILE_NOTICE, { exact: true })).toBeVisible()
  const links = body.locator('.dp-links a')
  expect(await links.count()).toBeGreaterThan(0)
  await expect(links.first()).toHaveAttribute('href', /^\/.*#.+/)
  // Links only: no excerpts under this state.
  await expect(body.locator('blockquote')).toHaveCount(0)
  await keepScreenshot(page, info, 'rate-limited')
  await expectAccessible(page, info, 'rate-limited')
})

test('the gate refuses what the docs do not cover, before any model is called, without saying degraded', async ({ page }, info) => {
  await page.goto(site.url)
  await openPanel(page)
  const body = await settled(await ask(page, UNCOVERED), 'refused')
  await expect(body.locator('.dp-lead')).toContainText("don't seem to cover")
  await expect(body.locator('.dp-degraded')).toHaveCount(0)
  expect((await site.fakes.requests()).filter((r) => r.endpoint === 'chat')).toHaveLength(0)
  await keepScreenshot(page, info, 'refused')
  await expectAccessible(page, info, 'refused')
})

test('Stop aborts a streaming answer', async ({ page }, info) => {
  // The stream stalls after its first delta: the turn stays answering (for the ladder's 20 s idle limit) until Stop.
  await site.fakes.control({ member: 'openai', fault: 'hang', afterDeltas: 1, echo: true })
  await page.goto(site.url)
  const d = await openPanel(page)
  const turn = await ask(page, COVERED)
  await expect(turn).toHaveAttribute('data-phase', 'answering')
  await d.getByRole('button', { name: 'Stop' }).click()
  const body = await settled(turn, 'aborted')
  await expect(d.getByRole('button', { name: 'Ask' })).toBeVisible()
  // What came before Stop is kept as a cut-off answer is: its sources, Retry, copy and rating.
  await expect(body.locator('.dp-sources')).toBeVisible()
  await expect(body.getByRole('button', { name: 'Retry' })).toBeVisible()
  await expect(body.getByRole('button', { name: 'Copy answer' })).toBeVisible()
  await keepScreenshot(page, info, 'aborted')
  await expectAccessible(page, info, 'aborted')
})
