/** No request from the page carries a provider key, and no response to the page contains one. */
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { ask, expect, openPanel, settled, test, useSite, watchForSecrets } from './harness.ts'
import { COVERED } from './paths.ts'

const site = useSite({ members: ['openai', 'gemini', 'anthropic', 'openrouter'] })

test('provider keys stay in the proxy', async ({ page, context }) => {
  await site.fakes.reset()
  await site.fakes.control([
    { echo: true },
    // Failures whose upstream bodies are where a key most often leaks back (an "invalid key" message).
    { member: 'openai', fault: 'unauthorized', times: 1 },
    { member: 'gemini', fault: 'rate-limit', times: 1 },
  ])
  const watch = await watchForSecrets(context, site.keys)
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
  // The page's /ai/ exchanges were read in full (the streamed answers included), and none carried a key.
  expect(watch.bodies.filter((b) => /\/ai\/(openai|gemini|anthropic|openrouter)\//.test(b.url)).map((b) => b.status)).toEqual(
    expect.arrayContaining([401, 429, 200]),
  )
  expect(watch.bodies.some((b) => b.url.includes('/ai/') && b.status === 200 && b.text.includes('[1]'))).toBe(true)
  // The retrieval worker's own fetches (index parts) went through the watch too.
  expect(watch.bodies.some((b) => /\/docpilot\/lexical\.[^/]+$/.test(b.url))).toBe(true)
  expect(watch.leaks).toEqual([])
})

test('the watch itself catches a key in a request and in a response', async ({ page, context }) => {
  // The check above can fail: a real server that echoes a planted key back, and the watch must report both sides.
  const key = site.keys[0]!
  const echo = createServer((req, res) => {
    res.writeHead(200, { 'content-type': 'text/event-stream', 'access-control-allow-origin': '*', 'access-control-allow-headers': '*' })
    res.end(`data: leaked ${req.headers['x-planted'] ?? ''}\n\n`)
  })
  await new Promise<void>((ok) => echo.listen(0, '127.0.0.1', ok))
  try {
    const watch = await watchForSecrets(context, site.keys)
    // A blank page: no CSP in the way of a cross-origin fetch.
    await page.goto('about:blank')
    const echoUrl = `http://127.0.0.1:${(echo.address() as AddressInfo).port}/planted`
    const got = await page.evaluate(([u, k]) => fetch(u!, { headers: { 'x-planted': k! } }).then((r) => r.text()), [echoUrl, key])
    expect(got).toContain(key)
    await watch.settle()
    expect(watch.leaks).toEqual([
      expect.stringMatching(/^request .*\/planted headers contains/),
      expect.stringMatching(/^response .*\/planted body contains/),
    ])
  } finally {
    echo.close()
  }
})
