/**
 * Neither a model nor a docs page can run script in the panel or plant a
 * javascript: link. Served without the Content-Security-Policy, so the
 * sanitizer, not the CSP, is what is being tested.
 */
import { expect, test, type Page } from '@playwright/test'
import { ask, expectAccessible, keepScreenshot, openPanel, settled, startSite, type Site } from './harness.ts'
import { COVERED } from './paths.ts'

const HOSTILE_ANSWER = [
  'According to [1] <img src=x onerror="window.__pwned=1"> and <script>window.__pwned=2</script>.',
  '[click me](javascript:window.__pwned=3) [data](data:text/html,<script>window.__pwned=4</script>)',
  '<a href="javascript:window.__pwned=5">raw link</a> <svg onload="window.__pwned=6"></svg> <iframe src="javascript:window.__pwned=7"></iframe>',
  '![x](javascript:window.__pwned=8) <details open ontoggle="window.__pwned=9">x</details>',
].join('\n\n')

let site: Site
test.beforeAll(async () => {
  site = await startSite({ members: ['openai'], csp: false })
})
test.afterAll(async () => site?.close())

async function panelIsInert(page: Page): Promise<void> {
  const found = await page.evaluate(() => {
    const root = document.querySelector('[data-docpilot-panel]')!.shadowRoot!
    const all = [...root.querySelectorAll('*')]
    return {
      pwned: (window as unknown as { __pwned?: number }).__pwned ?? null,
      scripts: root.querySelectorAll('script, iframe, object, embed, svg script').length,
      handlers: all.filter((el) => [...el.attributes].some((a) => a.name.startsWith('on'))).length,
      badLinks: all.filter((el) => /^\s*(javascript|data|vbscript):/i.test(el.getAttribute('href') ?? el.getAttribute('src') ?? '')).length,
    }
  })
  expect(found).toEqual({ pwned: null, scripts: 0, handlers: 0, badLinks: 0 })
}

test('hostile model output is shown as text, never run', async ({ page }, info) => {
  await site.fakes.reset()
  await site.fakes.control({ member: 'openai', text: HOSTILE_ANSWER })
  const dialogs: string[] = []
  page.on('dialog', (d) => (dialogs.push(d.message()), void d.dismiss()))
  await page.goto(site.url)
  await openPanel(page)
  const body = await settled(await ask(page, COVERED), 'answered')
  await expect(body.locator('.dp-answer')).toContainText('raw link')
  await expect(body.locator('a.dp-cite').first()).toHaveAttribute('href', /^\/.*#.+/)
  await page.waitForTimeout(300)
  await panelIsInert(page)
  expect(dialogs).toEqual([])
  await keepScreenshot(page, info, 'hostile-model-output')
  await expectAccessible(page, info, 'hostile-model-output')
})
