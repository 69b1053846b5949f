/**
 * Retrieval degrades, the answer does not (spec 002, rung 3): when the
 * embedder's model files cannot be fetched, the turn goes on lexical-only and
 * a model still answers; only a refusal says search is degraded. A site that
 * declared lexical-only never says it.
 */
import type { Locator, Page } from '@playwright/test'
import { COPY } from '../widget/panel/copy.ts'
import { ask, expect, expectAccessible, keepScreenshot, openPanel, settled, test, useSite } from './harness.ts'
import { COVERED, UNCOVERED } from './paths.ts'

/** The embedder's files in the index folder (model descriptor, the packed rows of its words and their directory). */
const EMBEDDER_FILES = /\/docpilot\/embed[.-][^/]+$/

async function receiptOf(turn: Locator): Promise<{ mode: string; degraded: boolean }> {
  const drawer = turn.getByTestId('dp-debug')
  await drawer.locator('summary').click()
  const { receipt } = JSON.parse(await drawer.locator('pre').innerText())
  return { mode: receipt.retrieval.mode, degraded: receipt.retrieval.degraded }
}

function warnings(page: Page): string[] {
  const lines: string[] = []
  page.on('console', (m) => m.type() === 'warning' && /docpilot/i.test(m.text()) && lines.push(m.text()))
  return lines
}

test.describe('the embedder is unreachable', () => {
  const site = useSite({ members: ['openai'] }, { echo: true })

  test('a lexical-only answer with no word of it, then a refusal that says search is degraded', async ({ page }, info) => {
    let blocked = 0
    await page.route(EMBEDDER_FILES, (route) => (blocked++, route.abort('connectionrefused')))
    const warned = warnings(page)
    await page.goto(`${site.url}/?dpdebug=1`)
    await openPanel(page)

    const answered = await ask(page, COVERED)
    const body = await settled(answered, 'answered')
    expect(blocked).toBeGreaterThan(0)
    await expect(body.locator('.dp-answer a.dp-cite').first()).toBeVisible()
    // An answer that came out fine is never labelled degraded.
    await expect(answered.locator('.dp-degraded')).toHaveCount(0)
    await expect(body).not.toContainText(/degraded/i)
    expect(await receiptOf(answered)).toEqual({ mode: 'lexical', degraded: true })
    await keepScreenshot(page, info, 'degraded-answered')

    const refused = await ask(page, UNCOVERED)
    const refusal = await settled(refused, 'refused')
    await expect(refusal.locator('.dp-degraded')).toHaveText(COPY.degraded)
    expect(await receiptOf(refused)).toEqual({ mode: 'lexical', degraded: true })
    // The reason is in the console, where the site owner looks.
    expect(warned.some((line) => /degraded/i.test(line))).toBe(true)
    expect((await site.fakes.requests()).filter((r) => r.endpoint === 'chat')).toHaveLength(1)
    await keepScreenshot(page, info, 'degraded-refused')
    await expectAccessible(page, info, 'refused-degraded')

    // Once the model files can be fetched again, the next question is hybrid: the embedder was never replaced.
    await page.unroute(EMBEDDER_FILES)
    const recovered = await ask(page, COVERED)
    await settled(recovered, 'answered')
    expect(await receiptOf(recovered)).toEqual({ mode: 'hybrid', degraded: false })
  })
})

test.describe('a site that declared lexical-only', () => {
  const site = useSite({ members: ['openai'], lexicalOnly: true })

  test('answers and refuses without ever saying degraded, and logs nothing', async ({ page }, info) => {
    await site.fakes.control({ echo: true })
    const warned = warnings(page)
    await page.goto(`${site.url}/?dpdebug=1`)
    await openPanel(page)
    const answered = await ask(page, COVERED)
    await settled(answered, 'answered')
    expect(await receiptOf(answered)).toEqual({ mode: 'lexical', degraded: false })
    const refused = await ask(page, UNCOVERED)
    await settled(refused, 'refused')
    await expect(refused.locator('.dp-degraded')).toHaveCount(0)
    expect(warned).toEqual([])
    await keepScreenshot(page, info, 'lexical-only-refused')
  })
})
