/** No request from the page carries a provider key, and no response to the page contains one. */
import { expect, test } from '@playwright/test'
import { ask, openPanel, settled, startSite, watchForSecrets, type Site } from './harness.ts'
import { COVERED } from './paths.ts'

let site: Site
test.beforeAll(async () => {
  site = await startSite({ members: ['openai', 'gemini', 'anthropic', 'openrouter'] })
})
test.afterAll(async () => site?.close())

test('provider keys stay in the proxy', async ({ page, context }) => {
  await site.fakes.reset()
  await site.fakes.control([
    { echo: true },
    { member: 'openai', fault: 'unauthorized', times: 1 },
    { member: 'gemini', fault: 'rate-limit', times: 1 },
  ])
  const watch = watchForSecrets(context, site.keys)
  await page.goto(`${site.url}/?dpdebug=1`)
  await openPanel(page)
  const body = await settled(await ask(page, COVERED), 'answered')
  await body.getByRole('button', { name: 'Helpful', exact: true }).click()
  await expect(body.getByRole('status')).toBeVisible()
  await settled(await ask(page, 'and how do I read them back?'), 'answered')
  await watch.settle()

  // The keys were really in play: the proxy attached them upstream.
  const upstream = await site.fakes.requests()
  const sent = JSON.stringify(upstream.map((r) => r.headers))
  expect(site.keys.filter((k) => sent.includes(k)).length).toBeGreaterThanOrEqual(3)
  // The page saw every /ai/ exchange, and none of them carried a key.
  expect(watch.seen.requests).toBeGreaterThan(5)
  expect(watch.leaks).toEqual([])
})
