/**
 * Waiting tells the truth: once retrieval is done the passages are there
 * (collapsed) and the wait is visibly the model's; the status line
 * announces what a screen-reader user is waiting for.
 */
import { ask, expect, expectAccessible, keepScreenshot, listenToStatus, openPanel, settled, test, useSite } from './harness.ts'
import { COVERED } from './paths.ts'

const site = useSite({ members: ['openai'] }, [])

test('a provider that hangs is a model wait, not a slow search: the passages are in, "Asking the model…"', async ({ page }, info) => {
  await site.fakes.control({ member: 'openai', fault: 'hang' })
  await page.goto(site.url)
  const d = await openPanel(page)
  const turn = await ask(page, COVERED)
  await expect(turn).toHaveAttribute('data-phase', 'asking')
  await expect(turn.locator('.dp-progress')).toHaveText(/^Asking the model…/)
  await expect(turn.getByText('Searching the docs…')).toHaveCount(0)
  // What was found is there, collapsed: the reader can already look.
  const found = turn.locator('details.dp-searched')
  await expect(found.locator('summary')).toHaveText(/^\d+ passages found$/)
  await expect(found).not.toHaveAttribute('open', /.*/)
  await found.locator('summary').click()
  await expect(found.locator('a').first()).toHaveAttribute('href', /^\/.*#/)
  // Still waiting seconds later, and saying how long.
  await expect(turn.locator('.dp-waited')).toHaveText(/^\s*\d+ s$/, { timeout: 10_000 })
  await expect(turn).toHaveAttribute('data-phase', 'asking')
  await keepScreenshot(page, info, 'asking')
  await expectAccessible(page, info, 'asking')
  await d.getByRole('button', { name: 'Stop' }).click()
  await settled(turn, 'aborted')
})

test('the status line announces the passages found, then "Answer ready"', async ({ page }) => {
  await site.fakes.control({ echo: true, deltas: 6, paceMs: 150 })
  await page.goto(site.url)
  await openPanel(page)
  const said = await listenToStatus(page)
  await settled(await ask(page, COVERED), 'answered')
  await expect.poll(said).toEqual([expect.stringMatching(/^\d+ passages found$/), 'Answer ready'])
})
