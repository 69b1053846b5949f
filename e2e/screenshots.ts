/**
 * The panel's states as docs/widget.md shows them: `npx tsx e2e/screenshots.ts`
 * builds what the e2e suite serves, drives Debian Chromium through each state
 * against the fake providers, and writes the dialog of each to
 * docs/images/panel-<state>.png. Not a test (the specs check these states);
 * run it again when the panel's look changes. With pngquant installed
 * (Debian: apt-get install pngquant) the images are stored as 256-colour
 * palettes, a third of the size, since the docs ship in the npm package.
 */
import { execFile } from 'node:child_process'
import { mkdir } from 'node:fs/promises'
import { promisify } from 'node:util'
import { chromium, type Locator, type Page } from '@playwright/test'
import { CHROMIUM_ARGS, CHROMIUM_PATH } from '../playwright.config.ts'
import globalSetup from './global-setup.ts'
import { startSite, type Site } from './harness.ts'
import { COVERED, UNCOVERED } from './paths.ts'

const OUT = new URL('../docs/images/', import.meta.url)

async function shoot(page: Page, name: string): Promise<void> {
  // Let the dialog's entry animation and any late layout settle.
  await page.waitForTimeout(300)
  const dialog = page.getByRole('dialog', { name: 'Ask the docs' })
  const path = new URL(`panel-${name}.png`, OUT).pathname
  await dialog.screenshot({ path, animations: 'disabled' })
  await promisify(execFile)('pngquant', ['--force', '--skip-if-larger', '--strip', '--output', path, '256', path]).catch(() => {})
  console.log(`docs/images/panel-${name}.png`)
}

async function open(page: Page, site: Site, data = ''): Promise<Locator> {
  await page.goto(`${site.url}/${data}`)
  await page.evaluate(() => sessionStorage.clear())
  await page.getByRole('button', { name: /Ask the docs/ }).first().click()
  const dialog = page.getByRole('dialog', { name: 'Ask the docs' })
  await dialog.waitFor()
  return dialog
}

async function ask(dialog: Locator, question: string, until: string): Promise<Locator> {
  const before = await dialog.locator('article.dp-turn').count()
  await dialog.getByRole('textbox').fill(question)
  await dialog.getByRole('textbox').press('Enter')
  const turn = dialog.locator('article.dp-turn').nth(before)
  await turn.locator(until).first().waitFor({ timeout: 60_000 })
  return turn
}

async function main(): Promise<void> {
  await mkdir(OUT, { recursive: true })
  const teardown = await globalSetup()
  const browser = await chromium.launch({ executablePath: CHROMIUM_PATH, args: CHROMIUM_ARGS })
  const sites: Site[] = []
  try {
    const chat = await startSite({ members: ['openai'] })
    const searchOnly = await startSite({ members: [] })
    sites.push(chat, searchOnly)
    const context = await browser.newContext({ viewport: { width: 1000, height: 900 }, colorScheme: 'light' })
    const page = await context.newPage()
    const rule = async (r: Parameters<Site['fakes']['control']>[0]) => {
      await chat.fakes.reset()
      await chat.fakes.control(r)
    }

    let d = await open(page, chat)
    await shoot(page, 'empty')

    await rule({ member: 'openai', fault: 'hang' })
    let turn = await ask(d, COVERED, '.dp-waited')
    await turn.locator('details.dp-searched summary').click()
    await shoot(page, 'asking')
    await d.getByRole('button', { name: 'Stop' }).click()

    await rule({ member: 'openai', fault: 'hang', afterDeltas: 1, echo: true, deltas: 3 })
    d = await open(page, chat)
    await ask(d, COVERED, '.dp-answer')
    await shoot(page, 'answering')
    await d.getByRole('button', { name: 'Stop' }).click()
    await d.locator('[data-state="aborted"]').waitFor()
    await shoot(page, 'aborted')

    await rule({ echo: true })
    d = await open(page, chat)
    turn = await ask(d, COVERED, '[data-state="answered"]')
    await turn.locator('details.dp-also summary').click()
    await shoot(page, 'answered')

    await rule({ echo: true, markers: false })
    d = await open(page, chat)
    await ask(d, COVERED, '[data-state="answered"]')
    await shoot(page, 'answered-without-markers')

    await rule({ member: 'openai', fault: 'stream-break', afterDeltas: 1, echo: true, deltas: 4, paceMs: 400 })
    d = await open(page, chat)
    await ask(d, COVERED, '[data-state="partial"]')
    await shoot(page, 'partial')

    await rule({ member: 'openai', fault: 'server-error', status: 503 })
    d = await open(page, chat)
    turn = await ask(d, COVERED, '[data-state="hybrid"]')
    await shoot(page, 'hybrid')
    await turn.getByRole('button', { name: 'Search the docs' }).click()
    await turn.locator('[data-state="search"]').waitFor()
    await shoot(page, 'search-the-docs')

    await rule({ member: 'openai', fault: 'daily-quota', resetAt: Date.UTC(2030, 0, 1, 16) })
    d = await open(page, chat)
    await ask(d, COVERED, '[data-state="rate-limited"]')
    await shoot(page, 'rate-limited')

    await rule({ echo: true })
    d = await open(page, chat)
    await ask(d, UNCOVERED, '[data-state="refused"]')
    await shoot(page, 'refused')

    const fresh = await context.browser()!.newContext({ viewport: { width: 1000, height: 900 } })
    const errorPage = await fresh.newPage()
    await errorPage.route(/\/docpilot\/(?!manifest\.json).+$/, (route) => route.abort('connectionreset'))
    d = await open(errorPage, chat)
    await ask(d, COVERED, '[data-state="error"]')
    await shoot(errorPage, 'error')
    await fresh.close()

    d = await open(page, searchOnly)
    await ask(d, 'lumen build target flags', '[data-state="search"]')
    await shoot(page, 'search')

    const dark = await browser.newContext({ viewport: { width: 1000, height: 900 }, colorScheme: 'dark' })
    const darkPage = await dark.newPage()
    await rule({ echo: true })
    d = await open(darkPage, chat)
    await ask(d, COVERED, '[data-state="answered"]')
    await shoot(darkPage, 'answered-dark')
  } finally {
    await browser.close()
    for (const site of sites) await site.close()
    await teardown()
  }
}

await main()
