/**
 * Neither a model nor a docs page can run script in the panel or plant a
 * javascript: link. Served without the Content-Security-Policy, so the
 * escaping and the sanitizer, not the CSP, are what is being tested.
 *
 * The fixture page guide/security.md carries real attack strings (script
 * tags, on* handlers, javascript: and data: links) in prose, headings and
 * code; each one that ran would set window.__pwned or open an alert().
 */
import type { Locator, Page } from '@playwright/test'
import { HYBRID_NOTICE } from '../core/turn/copy.ts'
import { ask, expect, expectAccessible, keepScreenshot, openPanel, settled, test, useSite } from './harness.ts'
import { COVERED, HOSTILE } from './paths.ts'
import { XSS_CORPUS } from './xss-corpus.ts'

const HOSTILE_ANSWER = [
  'According to [1] <img src=x onerror="window.__pwned=1"> and <script>window.__pwned=2</script>.',
  '[click me](javascript:window.__pwned=3) [data](data:text/html,<script>window.__pwned=4</script>)',
  '<a href="javascript:window.__pwned=5">raw link</a> <svg onload="window.__pwned=6"></svg> <iframe src="javascript:window.__pwned=7"></iframe>',
  '![x](javascript:window.__pwned=8) <details open ontoggle="window.__pwned=9">x</details>',
].join('\n\n')

const site = useSite({ members: ['openai'], csp: false }, [])

/** Alerts the page opened (the fixture's payloads call alert()). */
function alerts(page: Page): string[] {
  const seen: string[] = []
  page.on('dialog', (d) => (seen.push(d.message()), void d.dismiss()))
  return seen
}

/**
 * What could run in `root`: no script-bearing element, no on* attribute, no
 * javascript:/data:/vbscript: URL. Checked on the DOM itself, so nothing
 * waits for an error event that would have fired a payload.
 */
async function inert(page: Page, where: 'panel' | 'page'): Promise<void> {
  const found = await page.evaluate((w) => {
    const root: ParentNode = w === 'panel' ? document.querySelector('[data-docpilot-panel]')!.shadowRoot! : document.querySelector('main')!
    const all = [...root.querySelectorAll('*')]
    return {
      pwned: (window as unknown as { __pwned?: unknown }).__pwned ?? null,
      scripts: root.querySelectorAll('script, iframe, object, embed, frame, svg script, foreignObject').length,
      handlers: all.filter((el) => [...el.attributes].some((a) => a.name.toLowerCase().startsWith('on'))).length,
      badLinks: all.filter((el) => ['href', 'src', 'action', 'xlink:href'].some((a) => /^\s*(javascript|data|vbscript):/i.test(el.getAttribute(a) ?? ''))).length,
    }
  }, where)
  expect(found, `${where} is inert`).toEqual({ pwned: null, scripts: 0, handlers: 0, badLinks: 0 })
}

/** Markdown links with a refused URL: their labels are in the answer as text, and no anchor is left without an href. */
async function expectRefusedLinksAsText(answer: Locator, labels: string[]): Promise<void> {
  await expect(answer.locator('a:not([href])')).toHaveCount(0)
  for (const label of labels) {
    await expect(answer).toContainText(label)
    await expect(answer.locator('a').filter({ hasText: label })).toHaveCount(0)
  }
}

test('the hostile fixture page shows its attack strings as text, on the page and in the panel', async ({ page }, info) => {
  const opened = alerts(page)
  await page.goto(`${site.url}/guide/security`)
  const main = page.locator('main')
  await expect(main.getByRole('heading', { name: 'Script injection' })).toBeVisible()
  await expect(main).toContainText('<script>alert(1)</script>')
  await expect(main).toContainText('onerror=')
  await inert(page, 'page')

  // Every member down: the hybrid answer quotes the page's passages verbatim in the panel.
  await site.fakes.control({ member: 'openai', fault: 'server-error', status: 503 })
  await openPanel(page)
  const body = await settled(await ask(page, HOSTILE), 'hybrid')
  await expect(body.locator('.dp-lead')).toHaveText(HYBRID_NOTICE)
  const quoted = body.locator('.dp-row', { has: page.locator('a[href^="/guide/security#"]') })
  expect(await quoted.count()).toBeGreaterThan(0)
  await expect(body.locator('.dp-excerpt').filter({ hasText: /<script>|onerror=|javascript:/ }).first()).toBeVisible()
  await inert(page, 'panel')
  await inert(page, 'page')
  expect(opened).toEqual([])
  await keepScreenshot(page, info, 'hostile-fixture-page')
  await expectAccessible(page, info, 'hostile-fixture-page')
})

test('hostile model output is shown as text, never run', async ({ page }, info) => {
  await site.fakes.control({ member: 'openai', text: HOSTILE_ANSWER })
  const opened = alerts(page)
  await page.goto(site.url)
  await openPanel(page)
  const body = await settled(await ask(page, COVERED), 'answered')
  await expect(body.locator('.dp-answer')).toContainText('raw link')
  await expect(body.locator('a.dp-cite').first()).toHaveAttribute('href', /^\/.*#.+/)
  // A link whose URL is refused keeps its words, as plain text: not a link that goes nowhere.
  await expectRefusedLinksAsText(body.locator('.dp-answer'), ['click me', 'data'])
  await inert(page, 'panel')
  expect(opened).toEqual([])
  await keepScreenshot(page, info, 'hostile-model-output')
  await expectAccessible(page, info, 'hostile-model-output')
})

test("a link off the site says its host after its words; the site's own links and citations do not", async ({ page }) => {
  await site.fakes.control({ member: 'openai', text: 'Sign in at [the docs login](https://evil.example/login) [1], as [the guide](/guide/cookies) says.' })
  await page.goto(site.url)
  await openPanel(page)
  const body = await settled(await ask(page, COVERED), 'answered')
  const offsite = body.locator('.dp-answer a', { hasText: 'the docs login' })
  await expect(offsite).toHaveText('the docs login (evil.example)')
  await expect(offsite).toHaveAttribute('rel', 'noopener noreferrer nofollow')
  await expect(body.locator('.dp-answer a', { hasText: 'the guide' })).toHaveText('the guide')
  await expect(body.locator('a.dp-cite').first()).toHaveText('[1]')
})

test('the XSS corpus (55 vectors) as model output and as the question runs nothing in Chromium', async ({ page }) => {
  expect(XSS_CORPUS).toHaveLength(55)
  await site.fakes.control({ member: 'openai', text: `According to [1]:\n\n${XSS_CORPUS.join('\n\n')}` })
  const opened = alerts(page)
  await page.goto(site.url)
  await openPanel(page)
  // The reader's own question carries vectors too: it is echoed in the panel.
  const body = await settled(await ask(page, `${COVERED} ${XSS_CORPUS.slice(0, 5).join(' ')}`), 'answered')
  await expect(body.locator('.dp-answer')).toContainText('link 51')
  await expectRefusedLinksAsText(body.locator('.dp-answer'), ['link 22', 'link 23', 'link 24', 'link 26', 'link 27', 'link 50'])
  // Give every payload its chance: autofocus, load and error events, meta refresh, animations.
  await page.waitForTimeout(1500)
  await inert(page, 'panel')
  expect(opened).toEqual([])
  expect(await page.evaluate(() => location.href)).toBe(`${site.url}/`)
})
