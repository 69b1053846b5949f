/**
 * The panel is a modal dialog: focus never gets lost in it, Esc closes it from
 * anywhere in it, closing gives focus back to the launcher, and the page behind
 * it does not scroll until it closes.
 */
import type { Page } from '@playwright/test'
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../playwright.config.ts'
import { ask, dialog, expect, expectAccessible, keepScreenshot, openPanel, settled, test, useSite } from './harness.ts'
import { COVERED } from './paths.ts'

const site = useSite({ members: ['openai'] }, { echo: true })

test('after a thumbs click focus is in the question box, and Esc still closes the panel', async ({ page }, info) => {
  await page.goto(site.url)
  const d = await openPanel(page)
  const body = await settled(await ask(page, COVERED), 'answered')
  const posted = page.waitForResponse((r) => r.url().endsWith('/ai/feedback'))
  await body.getByRole('button', { name: 'Helpful', exact: true }).click()
  await posted
  await expect(body.getByRole('status')).toHaveText('Thanks for the feedback.')
  await expect(d.getByRole('textbox')).toBeFocused()
  await keepScreenshot(page, info, 'after-feedback')
  await expectAccessible(page, info, 'after-feedback')
  await page.keyboard.press('Escape')
  await expect(d).toBeHidden()
})

test('a reader who moves into the conversation while the answer comes keeps their place when it settles', async ({ page }) => {
  await site.fakes.control({ member: 'openai', echo: true, deltas: 10, paceMs: 200 })
  await page.goto(site.url)
  const d = await openPanel(page)
  const turn = await ask(page, COVERED)
  await expect(turn).toHaveAttribute('data-phase', 'answering')
  // Focus on the conversation, as Shift+Tab or a click puts it there, to scroll it with the arrow keys.
  const log = d.getByRole('region', { name: 'Conversation' })
  await log.focus()
  await settled(turn, 'answered')
  await expect(log).toBeFocused()
  // Asked from the box, the box keeps focus for the next question.
  const next = await ask(page, COVERED)
  await settled(next, 'answered')
  await expect(d.getByRole('textbox')).toBeFocused()
})

/** The element that really has focus: through the page's shadow roots (the launcher's button is inside one). */
function focused(page: Page): Promise<string> {
  return page.evaluate(() => {
    let el = document.activeElement
    while (el?.shadowRoot?.activeElement) el = el.shadowRoot.activeElement
    const root = el?.getRootNode()
    const host = root instanceof ShadowRoot ? root.host : null
    return `${host ? `${host.tagName}[${[...host.attributes].map((a) => a.name).join(' ')}] > ` : ''}${el?.tagName ?? 'none'}`
  })
}

test('Esc and the close button give focus back to the launcher that opened the panel', async ({ page }) => {
  await page.goto(site.url)
  const launcher = page.locator('[data-docpilot-launcher] button')
  const onLauncher = 'DIV[data-docpilot-launcher] > BUTTON'
  // From the keyboard: Enter on the launcher, Esc back.
  await launcher.focus()
  expect(await focused(page)).toBe(onLauncher)
  await page.keyboard.press('Enter')
  const d = dialog(page)
  await expect(d).toBeVisible()
  await expect(d.getByRole('textbox')).toBeFocused()
  await page.keyboard.press('Escape')
  await expect(d).toBeHidden()
  expect(await focused(page)).toBe(onLauncher)
  await expect(launcher).toHaveAttribute('aria-expanded', 'false')
  // With the pointer: a click on the launcher, then the close button.
  await launcher.click()
  await expect(d).toBeVisible()
  await d.getByRole('button', { name: 'Close' }).click()
  await expect(d).toBeHidden()
  expect(await focused(page)).toBe(onLauncher)
})

test('Esc closes from anywhere in the dialog, even with nothing in it focused', async ({ page }) => {
  await page.goto(site.url)
  const d = await openPanel(page)
  await settled(await ask(page, COVERED), 'answered')
  // A click on plain text, then focus dropped altogether.
  await d.locator('.dp-question').click()
  await page.evaluate(() => (document.querySelector('[data-docpilot-panel]')!.shadowRoot!.activeElement as HTMLElement | null)?.blur())
  await page.keyboard.press('Escape')
  await expect(dialog(page)).toBeHidden()
})

/** The root element's style attribute (null: none) and computed overflow, and how far the page is scrolled. */
function pageScroll(page: Page): Promise<{ style: string | null; overflow: string; y: number }> {
  return page.evaluate(() => ({
    style: document.documentElement.getAttribute('style'),
    overflow: getComputedStyle(document.documentElement).overflowY,
    y: Math.round(scrollY),
  }))
}

/** A wheel turn over the backdrop, left of the dialog, and the frames it takes to scroll anything it scrolls. */
async function wheelOverBackdrop(page: Page): Promise<void> {
  await page.mouse.move(40, 300)
  await page.mouse.wheel(0, 500)
  await page.waitForTimeout(300)
  await page.evaluate(() => new Promise((done) => requestAnimationFrame(() => requestAnimationFrame(done))))
}

test('the page behind the open panel does not scroll, and closing gives the page back its own overflow style', async ({ page }) => {
  await page.setViewportSize({ width: 1200, height: 420 })
  await page.goto(`${site.url}/reference/cli`)
  expect(await page.evaluate(() => document.documentElement.scrollHeight - innerHeight)).toBeGreaterThan(500)
  const d = dialog(page)

  // A page without a style attribute on its root: none after closing (Esc).
  expect(await pageScroll(page)).toEqual({ style: null, overflow: 'visible', y: 0 })
  await openPanel(page)
  expect((await pageScroll(page)).overflow).toBe('hidden')
  await wheelOverBackdrop(page)
  expect((await pageScroll(page)).y).toBe(0)
  await page.keyboard.press('Escape')
  await expect(d).toBeHidden()
  expect(await pageScroll(page)).toEqual({ style: null, overflow: 'visible', y: 0 })
  await wheelOverBackdrop(page)
  await expect.poll(async () => (await pageScroll(page)).y).toBeGreaterThan(0)

  // A page with its own inline overflow (important, even): exactly that after closing, by the close button and by the backdrop.
  await page.evaluate(() => {
    scrollTo(0, 0)
    document.documentElement.style.setProperty('overflow-y', 'scroll', 'important')
    document.documentElement.style.setProperty('color', 'rgb(1, 2, 3)')
  })
  const own = await pageScroll(page)
  expect(own).toEqual({ style: 'overflow-y: scroll !important; color: rgb(1, 2, 3);', overflow: 'scroll', y: 0 })
  await openPanel(page)
  expect((await pageScroll(page)).overflow).toBe('hidden')
  await wheelOverBackdrop(page)
  expect((await pageScroll(page)).y).toBe(0)
  await d.getByRole('button', { name: 'Close' }).click()
  await expect(d).toBeHidden()
  expect(await pageScroll(page)).toEqual(own)
  await openPanel(page)
  expect((await pageScroll(page)).overflow).toBe('hidden')
  await page.mouse.click(40, 300)
  await expect(d).toBeHidden()
  expect(await pageScroll(page)).toEqual(own)
  // Opening twice over (the page's script asking while it is open) still gives back the page's own style.
  await page.evaluate(() => (window as unknown as { docpilot: { open(q?: string): void } }).docpilot.open())
  await expect(d).toBeVisible()
  await page.evaluate(() => (window as unknown as { docpilot: { open(q?: string): void } }).docpilot.open())
  await page.evaluate(() => (window as unknown as { docpilot: { close(): void } }).docpilot.close())
  await expect(d).toBeHidden()
  expect(await pageScroll(page)).toEqual(own)
})

test('a page with a scrollbar does not shift sideways while the panel is open', async ({ playwright }) => {
  // Playwright hides scrollbars in headless Chromium; this browser keeps them, as a reader's does.
  const browser = await playwright.chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, ignoreDefaultArgs: ['--hide-scrollbars'] })
  const page = await browser.newPage({ viewport: { width: 1200, height: 420 } })
  await page.goto(`${site.url}/reference/cli`)
  const layout = () => page.evaluate(() => ({ main: document.querySelector('main')!.getBoundingClientRect().x, body: document.body.getBoundingClientRect().width }))
  const before = await layout()
  expect(before.body).toBeLessThan(1200)
  await openPanel(page)
  expect((await pageScroll(page)).overflow).toBe('hidden')
  expect(await layout()).toEqual(before)
  await page.keyboard.press('Escape')
  await expect(dialog(page)).toBeHidden()
  expect(await layout()).toEqual(before)
  expect((await pageScroll(page)).style).toBeNull()
  await browser.close()
})

test('a citation to a section of the page the reader is on closes the panel, so the section can be seen', async ({ page }) => {
  await page.goto(`${site.url}/api/context`)
  const before = await pageScroll(page)
  const d = await openPanel(page)
  expect((await pageScroll(page)).overflow).toBe('hidden')
  const body = await settled(await ask(page, COVERED), 'answered')
  const cite = body.locator('a.dp-cite[href^="/api/context#"]').first()
  const anchor = (await cite.getAttribute('href'))!.split('#')[1]!
  await cite.click()
  await expect(d).toBeHidden()
  await expect(page).toHaveURL(new RegExp(`/api/context#${anchor}$`))
  await expect(page.locator(`[id="${anchor}"]`)).toBeInViewport()
  // The page scrolls again, with its root's style as it was.
  const after = await pageScroll(page)
  expect({ style: after.style, overflow: after.overflow }).toEqual({ style: before.style, overflow: before.overflow })
})

/** The focused element of the page (the panel's host is not it), as tag#id, with its tabindex and whether it shows a focus ring. */
function pageFocus(page: Page): Promise<{ on: string; tabindex: string | null; ring: boolean }> {
  return page.evaluate(() => {
    const el = document.activeElement!
    return { on: `${el.localName}#${el.id}`, tabindex: el.getAttribute('tabindex'), ring: el.matches(':focus-visible') }
  })
}

test('a citation to a section of this page puts focus on its heading, by pointer and by keyboard, and the heading is left as it was', async ({ page }) => {
  await page.goto(`${site.url}/api/context`)
  const d = await openPanel(page)
  const body = await settled(await ask(page, COVERED), 'answered')
  const cite = body.locator('a.dp-cite[href^="/api/context#"]').first()
  const anchor = (await cite.getAttribute('href'))!.split('#')[1]!
  const heading = page.locator(`[id="${anchor}"]`)
  const tag = await heading.evaluate((el) => el.localName)
  expect(tag).toMatch(/^h[1-6]$/)
  expect(await heading.getAttribute('tabindex')).toBeNull()

  // By pointer: focus on the heading, made focusable for the moment, with no focus ring (none was asked for).
  await cite.click()
  await expect(d).toBeHidden()
  await expect(heading).toBeInViewport()
  expect(await pageFocus(page)).toEqual({ on: `${tag}#${anchor}`, tabindex: '-1', ring: false })
  // Tab goes on from the section; the heading gives its tabindex back as focus leaves it.
  await page.keyboard.press('Tab')
  expect(await heading.getAttribute('tabindex')).toBeNull()

  // By keyboard: Enter on the citation; the ring shows where the reader now is.
  await page.evaluate(() => scrollTo(0, 0))
  await openPanel(page)
  const again = d.locator('a.dp-cite[href^="/api/context#"]').first()
  await again.focus()
  await page.keyboard.press('Enter')
  await expect(d).toBeHidden()
  expect(await pageFocus(page)).toEqual({ on: `${tag}#${anchor}`, tabindex: '-1', ring: true })
})

/**
 * Two common ways a theme scrolls the page: the body gives the viewport its overflow (the root's is visible), or the
 * body scrolls itself inside a root that does not. Set through a constructed sheet: the demo's CSP has no inline styles.
 */
const BODY_SCROLLING_THEMES = {
  'html, body { height: 100% } body { overflow-x: hidden }': 'the viewport',
  'html { height: 100%; overflow: hidden } body { height: 100%; margin: 0; overflow: auto }': 'the body',
} as const

/** How far the page is scrolled, by the viewport or the body, the page's scrollers' style attributes, and where its main column sits. */
function themedPage(page: Page): Promise<{ y: number; styles: (string | null)[]; main: number }> {
  return page.evaluate(() => ({
    y: Math.round(scrollY + document.body.scrollTop),
    styles: [document.documentElement.getAttribute('style'), document.body.getAttribute('style')],
    main: document.querySelector('main')!.getBoundingClientRect().x,
  }))
}

for (const [css, scroller] of Object.entries(BODY_SCROLLING_THEMES)) {
  test(`on a page scrolled by ${scroller} (${css}), the open panel keeps the reader's place and nothing behind it scrolls or shifts`, async ({ playwright }) => {
    const browser = await playwright.chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS, ignoreDefaultArgs: ['--hide-scrollbars'] })
    const page = await browser.newPage({ viewport: { width: 1200, height: 420 } })
    await page.goto(`${site.url}/reference/cli`)
    await page.evaluate((rules) => {
      const sheet = new CSSStyleSheet()
      sheet.replaceSync(rules)
      document.adoptedStyleSheets = [sheet]
      document.scrollingElement!.scrollTop = 400
      document.body.scrollTop = 400
    }, css)
    const before = await themedPage(page)
    expect(before).toMatchObject({ y: 400, styles: [null, null] })
    // The launcher, fixed in its corner: a click on the page's own opener would scroll it into view first.
    await page.locator('[data-docpilot-launcher] button').click()
    await expect(dialog(page)).toBeVisible()
    expect(await themedPage(page)).toMatchObject({ y: 400, main: before.main })
    await wheelOverBackdrop(page)
    expect((await themedPage(page)).y).toBe(400)
    await page.keyboard.press('Escape')
    await expect(dialog(page)).toBeHidden()
    expect(await themedPage(page)).toEqual(before)
    await browser.close()
  })
}
