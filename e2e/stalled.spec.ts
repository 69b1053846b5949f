/**
 * A response that never comes (a dead stream on a reader's flaky phone
 * network) never leaves the panel searching forever. Each read of an index
 * part gives up after a silence and is tried once more (core/index/
 * fetch-part.ts):
 * - one exact vector row held forever: its read is tried again and the
 *   first turn is still hybrid (spec 002: both channels, always);
 * - text shards held forever: nothing can be shown, and the turn settles as
 *   the transport error a failure before retrieval is, Retry beneath it.
 */
import type { Locator } from '@playwright/test'
import { COPY } from '../widget/panel/copy.ts'
import { ask, expect, openPanel, settled, test, useSite } from './harness.ts'
import { COVERED } from './paths.ts'

/** The exact passage vectors (read a row at a time by range), and the text shards. */
const VECTOR_ROWS = /\/docpilot\/vectors\.[^/]+$/
const TEXT_SHARDS = /\/docpilot\/texts\/[^/]+$/

async function retrievalOf(turn: Locator): Promise<{ mode: string; degraded: boolean }> {
  const drawer = turn.getByTestId('dp-debug')
  await drawer.locator('summary').click()
  const { receipt } = JSON.parse(await drawer.locator('pre').innerText())
  return { mode: receipt.retrieval.mode, degraded: receipt.retrieval.degraded }
}

test.describe('an index read whose response never comes', () => {
  const site = useSite({ members: ['openai'] }, { echo: true })

  test('one vector row held forever: the read is tried again and the turn is still hybrid', async ({ page }) => {
    let rows = 0
    // The first row request is never answered (nor failed): only the reader's own limit can end it.
    await page.route(VECTOR_ROWS, (route) => (rows++ === 0 ? undefined : route.continue()))
    await page.goto(`${site.url}/?dpdebug=1`)
    await openPanel(page)
    const turn = await ask(page, COVERED)
    await settled(turn, 'answered')
    expect(await retrievalOf(turn)).toEqual({ mode: 'hybrid', degraded: false })
    expect(rows).toBeGreaterThan(1)
  })

  test('text shards held forever: the turn settles as the error, not "Searching the docs…" for ever', async ({ page }) => {
    let held = 0
    await page.route(TEXT_SHARDS, () => void held++)
    await page.goto(site.url)
    await openPanel(page)
    const body = await settled(await ask(page, COVERED), 'error')
    await expect(body.getByRole('alert')).toHaveText(COPY.error)
    await expect(body.locator('.dp-actions button')).toHaveText(['Retry', 'Search the docs'])
    expect(held).toBeGreaterThan(0)
    expect((await site.fakes.requests()).filter((r) => r.endpoint === 'chat')).toHaveLength(0)
  })
})
