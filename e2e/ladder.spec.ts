/**
 * The ladder as the reader sees it (spec 002): rotation is silent, the free
 * pool rotates inside its member, own servers answer last, nothing rotates
 * once a delta is on screen, and when nobody answers the passages stay.
 */
import type { Page } from '@playwright/test'
import type { RecordedRequest } from '../fixtures/providers/index.ts'
import { HYBRID_NOTICE } from '../core/turn/copy.ts'
import { ask, dialog, expect, expectAccessible, keepScreenshot, openPanel, settled, test, useSite, type Site } from './harness.ts'
import { COVERED } from './paths.ts'

const chats = async (site: Site): Promise<RecordedRequest[]> => (await site.fakes.requests()).filter((r) => r.endpoint === 'chat')
const who = (rs: RecordedRequest[]) => rs.map((r) => `${r.member}:${r.status}`)

/** Words a rotation notice would need; none may appear in a correctly answered turn. */
const NOTICE_WORDS = /openai|gemini|rate|limit|fallback|switched|unavailable|instead/i

async function fresh(site: Site, page: Page) {
  await site.fakes.reset()
  await site.fakes.control({ echo: true })
  await page.goto(site.url)
  await openPanel(page)
}

test.describe('billed members, first one rate-limited', () => {
  const site = useSite({ members: ['openai', 'gemini'] })

  test('429 from the first member: the second answers, silently; the cooling member is untouched next turn', async ({ page }, info) => {
    await fresh(site, page)
    await site.fakes.control({ member: 'openai', fault: 'rate-limit', times: 1 })
    const turn = await ask(page, COVERED)
    const body = await settled(turn, 'answered')
    expect(who(await chats(site))).toEqual(['openai:429', 'gemini:200'])
    // Silent: the turn is the answer, its sources and the thumbs, and nothing that names the rotation.
    const parts = await body.evaluate((el) => [...el.children].map((c) => c.className))
    expect(parts).toEqual(['dp-answer', 'dp-sources', 'dp-feedback'])
    const answer = (await body.locator('.dp-answer').innerText()).replace(/\([^)]*\)/g, '')
    expect(answer).not.toMatch(NOTICE_WORDS)
    // The sources' own words; the section titles they link to are the docs' words ("Body limit").
    const sourcesOwnText = await turn.locator('.dp-sources').evaluate((el) => {
      const copy = el.cloneNode(true) as HTMLElement
      for (const a of copy.querySelectorAll('a')) a.remove()
      return copy.textContent ?? ''
    })
    expect(sourcesOwnText).not.toMatch(NOTICE_WORDS)
    await keepScreenshot(page, info, 'rotated-silently')
    await expectAccessible(page, info, 'answered-after-rotation')

    // Next turn, and after a reload (cooldowns persist in IndexedDB): openai is cooling and never asked.
    const second = await ask(page, COVERED)
    await settled(second, 'answered')
    await page.reload()
    await openPanel(page)
    await settled(await ask(page, COVERED), 'answered')
    expect(who(await chats(site))).toEqual(['openai:429', 'gemini:200', 'gemini:200', 'gemini:200'])
  })

  test('a stream cut after its first delta: no rotation, the partial answer is marked, Retry', async ({ page }, info) => {
    await fresh(site, page)
    // The socket dies 400 ms after the first delta (paceMs), not 5 ms: a stream that errors drops the chunks still
    // queued in it (WHATWG streams, in the proxy and in the browser), so a delta cut at once may never be seen.
    await site.fakes.control({ member: 'openai', fault: 'stream-break', afterDeltas: 1, echo: true, deltas: 4, paceMs: 400 })
    const turn = await ask(page, COVERED)
    const body = await settled(turn, 'partial')
    await expect(body.locator('.dp-answer')).not.toBeEmpty()
    await expect(body.locator('.dp-cut')).toHaveText('The answer was cut off before it finished.')
    await expect(body.getByRole('button', { name: 'Retry' })).toBeVisible()
    // Nothing rotates once a delta is on screen.
    expect((await chats(site)).map((r) => r.member)).toEqual(['openai'])
    await keepScreenshot(page, info, 'partial')
    await expectAccessible(page, info, 'partial')
  })

  test('Retry after a cut-off answer asks afresh: the cut-off answer is not handed to the model as what it already said', async ({ page }) => {
    await fresh(site, page)
    await site.fakes.control({ member: 'openai', fault: 'stream-break', afterDeltas: 1, text: 'You set a value with c.set() and then', deltas: 4, paceMs: 400, times: 1 })
    const first = await settled(await ask(page, COVERED), 'partial')
    // The cut cooled openai: gemini answers the retry, in its own wire shape (contents, roles user and model).
    await site.fakes.control({ member: 'gemini', text: 'Use c.set() and c.get() [1].' })
    const before = await dialog(page).locator('article.dp-turn').count()
    await first.getByRole('button', { name: 'Retry' }).click()
    await settled(dialog(page).locator('article.dp-turn').nth(before), 'answered')
    const retried = (await chats(site)).at(-1)!
    expect(retried.member).toBe('gemini')
    const body = retried.body as { contents: { role: string }[] }
    expect(body.contents.map((m) => m.role)).toEqual(['user'])
    expect(JSON.stringify(body)).not.toContain('and then')
  })

  test('every member down: the hybrid answer with the exact sentence, rows, Retry and Search the docs', async ({ page }, info) => {
    await fresh(site, page)
    await site.fakes.control([
      { member: 'openai', fault: 'server-error', status: 503 },
      { member: 'gemini', fault: 'server-error', status: 500 },
    ])
    const turn = await ask(page, COVERED)
    const body = await settled(turn, 'hybrid')
    await expect(body.locator('.dp-lead')).toHaveText(HYBRID_NOTICE)
    const rows = body.locator('.dp-row')
    expect(await rows.count()).toBeGreaterThan(0)
    await expect(rows.first().locator('a')).toHaveAttribute('href', /^\/.*#.+/)
    await expect(rows.first().locator('.dp-excerpt')).not.toBeEmpty()
    const actions = body.locator('.dp-actions button')
    await expect(actions).toHaveText(['Retry', 'Search the docs'])
    await keepScreenshot(page, info, 'hybrid')
    await expectAccessible(page, info, 'hybrid')

    // Retry asks the same question again, as a new turn.
    await body.getByRole('button', { name: 'Retry' }).click()
    const retried = dialog(page).locator('article.dp-turn').last()
    await expect(retried.locator('.dp-question')).toHaveText(COVERED)
    await settled(retried, 'hybrid')
    // Search the docs: the first turn becomes the search view for its question (the demo site has no search page).
    await body.getByRole('button', { name: 'Search the docs' }).click()
    const search = await settled(turn, 'search')
    await expect(search.locator('.dp-row').first()).toBeVisible()
    await expect(dialog(page).locator('article.dp-turn')).toHaveCount(2)
    await expectAccessible(page, info, 'search-results')
  })
})

test.describe('no provider keys at all', () => {
  const site = useSite({ members: [] })

  test('every turn is the search view: no model was asked, so no outage is reported', async ({ page }, info) => {
    await page.goto(site.url)
    await openPanel(page)
    const body = await settled(await ask(page, COVERED), 'search')
    await expect(body.locator('.dp-row').first()).toBeVisible()
    await expect(dialog(page).getByText(HYBRID_NOTICE)).toHaveCount(0)
    expect((await site.fakes.requests()).filter((r) => r.endpoint === 'chat')).toHaveLength(0)
    await keepScreenshot(page, info, 'search-no-keys')
  })
})

test.describe('free pool', () => {
  const site = useSite({ members: ['openrouter'], config: { chat: { provider: 'openrouter', model: 'free' } } })

  test("one free id's 429 moves to the next id inside the member", async ({ page }, info) => {
    await site.fakes.reset()
    await site.fakes.control([{ echo: true }, { member: 'openrouter', model: 'openrouter/free', fault: 'rate-limit' }])
    const ladders: string[] = []
    page.on('console', (m) => m.text().startsWith('turn.ladder') && ladders.push(m.text()))
    await page.goto(`${site.url}/?dpdebug=1`)
    await openPanel(page)
    await settled(await ask(page, COVERED), 'answered')
    const models = (await chats(site)).map((r) => `${r.model}:${r.status}`)
    expect(models[0]).toBe('openrouter/free:429')
    expect(models[1]).toMatch(/:free:200$/)
    expect(models).toHaveLength(2)
    expect(ladders).toHaveLength(1)
    const ladder = JSON.parse(ladders[0]!.replace(/^turn\.ladder = /, ''))
    expect(ladder).toMatchObject({ provider: 'openrouter', index: 0, freePool: { index: 1 } })
    await keepScreenshot(page, info, 'free-pool')
  })
})

test.describe('a server of your own', () => {
  const site = useSite({ members: ['ollama', 'openrouter', 'openai'] })

  test('answers last: billed, then the free pool, then ollama', async ({ page }, info) => {
    await fresh(site, page)
    await site.fakes.control([
      { member: 'openai', fault: 'server-error' },
      { member: 'openrouter', fault: 'server-error' },
    ])
    await settled(await ask(page, COVERED), 'answered')
    expect((await chats(site)).map((r) => `${r.member}:${r.status! >= 500 ? '5xx' : r.status}`)).toEqual(['openai:5xx', 'openrouter:5xx', 'ollama:200'])
    await keepScreenshot(page, info, 'own-server-last')
  })
})
