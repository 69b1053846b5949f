/**
 * What an answer was based on is always on screen: the passages the model
 * was given, one row per section, cited ones first and marked, the rest
 * under "Also searched"; an answer without markers still lists them.
 */
import { ask, expect, expectAccessible, keepScreenshot, openPanel, settled, test, useSite } from './harness.ts'
import { COVERED } from './paths.ts'

const site = useSite({ members: ['openai'] }, [])

/** Two chunks of one long section ("Order of execution") rank first and second for this question. */
const SPLIT_SECTION = 'In what order does middleware run?'

test('an answer without [n] markers still shows the passages it was based on', async ({ page }, info) => {
  await site.fakes.control({ echo: true, markers: false })
  await page.goto(site.url)
  await openPanel(page)
  const body = await settled(await ask(page, COVERED), 'answered')
  await expect(body.locator('.dp-answer a.dp-cite')).toHaveCount(0)
  const sources = body.locator('.dp-sources')
  await expect(sources.getByRole('heading', { name: 'Sources' })).toBeVisible()
  // Every passage the model was given, as a visible link to its heading; nothing hidden behind a toggle.
  const links = sources.locator('a')
  expect(await links.count()).toBeGreaterThan(1)
  for (const link of await links.all()) {
    await expect(link).toBeVisible()
    await expect(link).toHaveAttribute('href', /^\/[^#]*#?/)
  }
  await keepScreenshot(page, info, 'answered-without-markers')
  await expectAccessible(page, info, 'answered-without-markers')
})

test('cited sections first with their markers, the rest under "Also searched", collapsed', async ({ page }, info) => {
  await site.fakes.control({ echo: true })
  await page.goto(site.url)
  await openPanel(page)
  const body = await settled(await ask(page, COVERED), 'answered')
  const cited = body.locator('.dp-sources > .dp-links > li')
  const answerCites = await body.locator('.dp-answer a.dp-cite').allTextContents()
  expect(answerCites.length).toBeGreaterThan(0)
  // The marked rows are exactly the sections the answer cites, in the order it first cites them.
  const marks = (await cited.locator('.dp-marks').allTextContents()).map((m) => m.trim())
  expect(marks).toEqual([...new Set(answerCites)])
  const also = body.locator('details.dp-also')
  await expect(also.locator('summary')).toHaveText(/^Also searched \(\d+\)$/)
  await expect(also).not.toHaveAttribute('open', /.*/)
  await expect(also.locator('a').first()).toBeHidden()
  await also.locator('summary').click()
  await expect(also.locator('a').first()).toBeVisible()
  await keepScreenshot(page, info, 'answered-sources')
  await expectAccessible(page, info, 'answered-sources')
})

test('one row per section, even when several passages come from one section', async ({ page }, info) => {
  await site.fakes.control({ echo: true })
  await page.goto(site.url)
  await openPanel(page)
  const body = await settled(await ask(page, SPLIT_SECTION), 'answered')
  const hrefs = await body.locator('.dp-sources a').evaluateAll((links) => links.map((a) => a.getAttribute('href')))
  expect(hrefs.length).toBeGreaterThan(1)
  expect(hrefs.filter((h) => h === '/guide/middleware#order-of-execution')).toHaveLength(1)
  expect(new Set(hrefs).size).toBe(hrefs.length)

  // The search answer's rows too.
  await site.fakes.control({ member: 'openai', fault: 'server-error', status: 503 })
  const hybrid = await settled(await ask(page, SPLIT_SECTION), 'hybrid')
  const rows = await hybrid.locator('.dp-row > a').evaluateAll((links) => links.map((a) => a.getAttribute('href')))
  expect(rows).toContain('/guide/middleware#order-of-execution')
  expect(new Set(rows).size).toBe(rows.length)
  await keepScreenshot(page, info, 'one-row-per-section')
})

test('the citation forms models write besides [n] link the passages they name; brackets in code do not', async ({ page }) => {
  await site.fakes.control({ member: 'openai', text: 'Set it [1-2], read it 【3】, type it[^1]. Never `list[5]`.' })
  await page.goto(site.url)
  await openPanel(page)
  const body = await settled(await ask(page, COVERED), 'answered')
  const cites = body.locator('.dp-answer a.dp-cite')
  await expect(cites).toHaveText(['[1]', '[2]', '[3]', '[1]'])
  await expect(body.locator('.dp-answer code')).toHaveText('list[5]')
  // Each marker links the same section its Sources row names, and the sources are exactly the cited ones.
  const rows = body.locator('.dp-sources > .dp-links > li')
  await expect(rows.locator('.dp-marks')).toHaveText(['[1] ', '[2] ', '[3] '])
  for (const n of [1, 2, 3]) {
    const href = await rows.nth(n - 1).locator('a').getAttribute('href')
    await expect(cites.nth(n - 1)).toHaveAttribute('href', href!)
  }
})
