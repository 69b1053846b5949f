/**
 * axe-core on the open panel in every state. The other specs check the light
 * theme where they reach each state; this one walks one conversation through
 * every state in the dark theme, where contrast is easiest to get wrong, and
 * checks each as it appears.
 */
import type { FaultRule } from '../fixtures/providers/index.ts'
import { COPY } from '../widget/panel/copy.ts'
import { ask, expect, expectAccessible, keepScreenshot, openPanel, settled, test, useSite } from './harness.ts'
import { COVERED, UNCOVERED } from './paths.ts'

const site = useSite({ members: ['openai'] }, [])
test.use({ colorScheme: 'dark' })

const SETTLED_STATES: { state: string; rules: FaultRule; question?: string }[] = [
  { state: 'answered', rules: { echo: true } },
  // paceMs: the socket dies 400 ms after the first delta, not 5 ms, so the delta has left the proxy first (see ladder.spec).
  { state: 'partial', rules: { member: 'openai', fault: 'stream-break', afterDeltas: 1, echo: true, deltas: 4, paceMs: 400 } },
  { state: 'hybrid', rules: { member: 'openai', fault: 'server-error', status: 503 } },
  { state: 'rate-limited', rules: { member: 'openai', fault: 'daily-quota', resetAt: Date.UTC(2030, 0, 1, 16) } },
  { state: 'refused', rules: { echo: true }, question: UNCOVERED },
]

test('every state of a conversation passes axe (dark)', async ({ page }, info) => {
  // Eight turns and ten axe runs in one conversation: a long walk, not a slow one.
  test.setTimeout(300_000)
  await page.goto(site.url)
  const d = await openPanel(page)
  await expect(page.locator('[data-docpilot-panel]')).toHaveAttribute('data-theme', 'dark')
  await expectAccessible(page, info, 'dark-empty')

  await test.step('asking: the passages are in, the model has not answered yet', async () => {
    await site.fakes.control({ member: 'openai', fault: 'hang' })
    const waiting = await ask(page, COVERED)
    await expect(waiting).toHaveAttribute('data-phase', 'asking')
    await waiting.locator('details.dp-searched summary').click()
    await expectAccessible(page, info, 'dark-asking')
    await d.getByRole('button', { name: 'Stop' }).click()
    await settled(waiting, 'aborted')
    await site.fakes.reset()
  })

  await test.step('answering, then aborted', async () => {
    // The stream stalls after its first delta: the turn stays answering (for the ladder's 20 s idle limit) until Stop.
    await site.fakes.control({ member: 'openai', fault: 'hang', afterDeltas: 1, echo: true })
    const streaming = await ask(page, COVERED)
    await expect(streaming).toHaveAttribute('data-phase', 'answering')
    await expect(streaming.locator('.dp-answer')).not.toBeEmpty()
    await expectAccessible(page, info, 'dark-answering')
    await d.getByRole('button', { name: 'Stop' }).click()
    await settled(streaming, 'aborted')
    await expectAccessible(page, info, 'dark-aborted')
  })

  for (const { state, rules, question } of SETTLED_STATES) {
    await test.step(state, async () => {
      await site.fakes.reset()
      await site.fakes.control(rules)
      await settled(await ask(page, question ?? COVERED), state)
      await expectAccessible(page, info, `dark-${state}`)
    })
  }

  await test.step('the search view, opened from the search answer', async () => {
    await d.locator('[data-state="hybrid"]').getByRole('button', { name: 'Search the docs' }).click()
    await expect(d.locator('[data-state="search"] .dp-row').first()).toBeVisible()
    await expectAccessible(page, info, 'dark-search')
  })

  await test.step('sources, with "Also searched" open', async () => {
    const also = d.locator('[data-state="answered"] details.dp-also').first()
    await also.locator('summary').click()
    await expectAccessible(page, info, 'dark-sources-open')
  })
  await keepScreenshot(page, info, 'dark-every-state')
})

test('the error state passes axe (dark)', async ({ page }, info) => {
  // A fresh context has nothing cached in IndexedDB: with the index parts unreachable, retrieval fails.
  await page.route(/\/docpilot\/(?!manifest\.json)[^/]+$/, (route) => route.abort('connectionreset'))
  await page.goto(site.url)
  await openPanel(page)
  const error = await settled(await ask(page, COVERED), 'error')
  await expect(error.getByRole('alert')).toHaveText(COPY.error)
  await expectAccessible(page, info, 'dark-error')
  await keepScreenshot(page, info, 'dark-error')
})

test('each question is a heading, so a screen reader moves from question to question; its sources are a level below', async ({ page }) => {
  await site.fakes.control({ echo: true })
  await page.goto(site.url)
  const d = await openPanel(page)
  await settled(await ask(page, COVERED), 'answered')
  await settled(await ask(page, `${COVERED} And in a middleware?`), 'answered')
  expect(await d.getByRole('heading', { level: 3 }).allTextContents()).toEqual([COVERED, `${COVERED} And in a middleware?`])
  await expect(d.getByRole('heading', { name: 'Sources', level: 4 })).toHaveCount(2)
  await expectAccessible(page, test.info(), 'question-headings')
})
