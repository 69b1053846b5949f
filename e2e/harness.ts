/**
 * What the specs share: a dev server (real Node proxy) over the fixture index
 * with the chain a scenario needs, pointed at the fake providers; and the
 * reader's moves in the panel.
 */
import AxeBuilder from '@axe-core/playwright'
import { test as base, expect, type BrowserContext, type Locator, type Page, type TestInfo } from '@playwright/test'
import { startDevServer, type DevServer } from '../cli/commands/dev.ts'
import type { DocpilotConfigInput } from '../core/config/schema.ts'
import { validateConfig } from '../core/config/validate.ts'
import { providerSpec, type MemberId } from '../core/providers/table.ts'
import { startFakeProviders, type FakeProviders, type FaultRule } from '../fixtures/providers/index.ts'
import { E2E_DOCS, E2E_INDEX, E2E_LEXICAL_INDEX, E2E_WIDGET } from './paths.ts'

/**
 * Playwright's test, plus the page's console and uncaught errors attached to
 * every failed test: a turn that settles in the wrong state says why there.
 */
export const test = base.extend<{ pageLog: void }>({
  pageLog: [
    async ({ context }, use, info) => {
      const lines: string[] = []
      context.on('console', (m) => lines.push(`[${m.type()}] ${m.text()}`))
      context.on('weberror', (e) => lines.push(`[pageerror] ${e.error().message}`))
      await use()
      if (info.status !== info.expectedStatus && lines.length > 0) {
        await info.attach('page-console', { body: lines.join('\n'), contentType: 'text/plain' })
      }
    },
    { auto: true },
  ],
})
export { expect }

export interface Site {
  url: string
  server: DevServer
  fakes: FakeProviders
  /** The fake keys the proxy holds: none may ever reach the page. */
  keys: string[]
  close(): Promise<void>
}

export interface SiteOptions {
  /** Members whose key (or base URL) the proxy's environment holds. */
  members: MemberId[]
  config?: DocpilotConfigInput
  csp?: boolean
  scriptData?: Record<string, string>
  /** Serve the index built with `embed: false` (a site that declared lexical-only). */
  lexicalOnly?: boolean
  /** The demo `docpilot dev --fake-providers` serves: every member answered by the fakes, the page says so. */
  demo?: boolean
}

/** A dev server whose environment holds only the given members, all pointed at one fake provider server. */
export async function startSite(opts: SiteOptions): Promise<Site> {
  const fakes = await startFakeProviders()
  const all = fakes.env()
  const env: Record<string, string> = {}
  for (const member of opts.members) {
    const spec = providerSpec(member)
    if (spec.keyEnv && all[spec.keyEnv]) env[spec.keyEnv] = all[spec.keyEnv]!
    env[spec.baseUrlEnv] = all[spec.baseUrlEnv]!
  }
  const server = await startDevServer({
    docsDir: E2E_DOCS,
    indexDir: opts.lexicalOnly ? E2E_LEXICAL_INDEX : E2E_INDEX,
    index: 'reuse',
    widgetDir: E2E_WIDGET,
    buildWidget: false,
    config: validateConfig(opts.config ?? { chat: { chain: 'auto' } }, '(e2e)'),
    env,
    dbPath: ':memory:',
    ...(opts.demo ? { fakeProviders: fakes } : {}),
    ...(opts.csp === false ? { csp: false } : {}),
    ...(opts.scriptData ? { scriptData: opts.scriptData } : {}),
  })
  const keys = Object.entries(all)
    .filter(([name]) => !name.endsWith('_URL'))
    .map(([, value]) => value)
  return {
    url: server.url,
    server,
    fakes,
    keys,
    async close() {
      await server.close()
      await fakes.close()
    },
  }
}

/**
 * One site for the enclosing file or describe block: started before its first
 * test, closed after its last. With `eachTest`, the fakes are reset before
 * every test and then given those rules (an empty list: reset only).
 * The returned object is filled in by the time the block's tests run.
 */
export function useSite(opts: SiteOptions, eachTest?: FaultRule | FaultRule[]): Site {
  const site = {} as Site
  test.beforeAll(async () => {
    Object.assign(site, await startSite(opts))
  })
  test.afterAll(async () => site.close?.())
  if (eachTest !== undefined) {
    test.beforeEach(async () => {
      await site.fakes.reset()
      if (!Array.isArray(eachTest) || eachTest.length > 0) await site.fakes.control(eachTest)
    })
  }
  return site
}

export function dialog(page: Page): Locator {
  return page.getByRole('dialog', { name: 'Ask the docs' })
}

export async function openPanel(page: Page): Promise<Locator> {
  await page.getByRole('button', { name: /Ask the docs/ }).first().click()
  const d = dialog(page)
  await expect(d).toBeVisible()
  return d
}

/** Asks in the open panel and returns the new turn's element. */
export async function ask(page: Page, question: string): Promise<Locator> {
  const d = dialog(page)
  const before = await d.locator('article.dp-turn').count()
  await d.getByRole('textbox').fill(question)
  await d.getByRole('textbox').press('Enter')
  const turn = d.locator('article.dp-turn').nth(before)
  await expect(turn).toBeVisible()
  return turn
}

export async function settled(turn: Locator, state: string): Promise<Locator> {
  // Generous: a loaded machine is slow, and this waits on state, not on time.
  await expect(turn).toHaveAttribute('data-phase', 'settled', { timeout: 45_000 })
  const body = turn.locator(`[data-state="${state}"]`)
  await expect(body).toBeVisible()
  return body
}

/** A screenshot of the page as the reader sees it, kept with the test's artifacts. */
export async function keepScreenshot(page: Page, info: TestInfo, name: string): Promise<void> {
  const path = info.outputPath(`${name}.png`)
  await page.screenshot({ path })
  await info.attach(name, { path, contentType: 'image/png' })
}

/**
 * Landmark findings fail whatever their impact (axe rates most of them moderate): landmarks are how a screen-reader
 * user moves around the site's own page, and the panel must add none that competes with the site's (the dialog's
 * header read as a second banner, say).
 */
const isLandmarkRule = (id: string) => id.startsWith('landmark-')

/** axe-core on the open panel (or on `within`): no serious or critical violations, and no landmark ones. */
export async function expectAccessible(page: Page, info: TestInfo, label: string, within = '[data-docpilot-panel]'): Promise<void> {
  const results = await new AxeBuilder({ page }).include(within).analyze()
  const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical' || isLandmarkRule(v.id))
  if (bad.length > 0) {
    await info.attach(`axe-${label}`, { body: JSON.stringify(bad, null, 2), contentType: 'application/json' })
  }
  expect(bad.map((v) => `${v.id}: ${v.help} (${v.nodes.length} nodes)`), `axe in state ${label}`).toEqual([])
}

export interface SecretWatch {
  /** Where a secret was seen, one line each; empty is the pass. */
  leaks: string[]
  /** Every response body that was read in full (streamed ones included), for checking the watch saw the answers. */
  bodies: { url: string; status: number; text: string }[]
  requests: number
  /** Waits until every response seen so far has been scanned. */
  settle(): Promise<void>
}

/**
 * Watches every byte the page sends or receives for one of the secrets.
 * Requests: URL, headers and body. Responses go through a route that fetches
 * them in full before handing them to the page, because the browser does not
 * keep the body of a streamed (text/event-stream) response for inspection,
 * and a streamed answer is exactly where a proxy could leak a key.
 */
export async function watchForSecrets(context: BrowserContext, secrets: string[]): Promise<SecretWatch> {
  const watch: SecretWatch = { leaks: [], bodies: [], requests: 0, settle: async () => void (await Promise.all(pending)) }
  const pending: Promise<void>[] = []
  const scan = (where: string, text: string | null | undefined) => {
    if (!text) return
    for (const s of secrets) if (text.includes(s)) watch.leaks.push(`${where} contains ${s.slice(0, 9)}…`)
  }
  context.on('request', (req) => {
    watch.requests++
    scan(`request ${req.url()} url`, req.url())
    scan(`request ${req.url()} headers`, JSON.stringify(req.headers()))
    scan(`request ${req.url()} body`, req.postData())
  })
  await context.route('**/*', (route) => {
    const done = (async () => {
      const url = route.request().url()
      const response = await route.fetch().catch(() => null)
      if (!response) return void (await route.abort().catch(() => {}))
      const body = await response.body()
      const text = body.toString('latin1')
      watch.bodies.push({ url, status: response.status(), text })
      scan(`response ${url} headers`, JSON.stringify(response.headersArray()))
      scan(`response ${url} body`, text)
      await route.fulfill({ response, body }).catch(() => {})
    })()
    pending.push(done.catch(() => {}))
    return done
  })
  return watch
}

/** The panel's aria-live status line. */
export function statusLine(page: Page): Locator {
  return dialog(page).locator('[role="status"].dp-visually-hidden')
}

/** Every text the status line announces from now on, in order (read with `said()`). */
export async function listenToStatus(page: Page): Promise<() => Promise<string[]>> {
  await statusLine(page).waitFor({ state: 'attached' })
  await page.evaluate(() => {
    const root = document.querySelector('[data-docpilot-panel]')!.shadowRoot!
    const line = root.querySelector('[role="status"].dp-visually-hidden')!
    const said: string[] = ((window as unknown as { __dpSaid: string[] }).__dpSaid = [])
    new MutationObserver(() => {
      const text = line.textContent ?? ''
      if (text && said.at(-1) !== text) said.push(text)
    }).observe(line, { childList: true, characterData: true, subtree: true })
  })
  return () => page.evaluate(() => (window as unknown as { __dpSaid: string[] }).__dpSaid)
}

/**
 * Every time something in the panel is said as an alert from now on, in order: an element with role="alert" drawn
 * with words in it, or words put into one (a panel that draws an alert again says it again).
 */
export async function listenToAlerts(page: Page): Promise<() => Promise<string[]>> {
  await page.evaluate(() => {
    const root = document.querySelector('[data-docpilot-panel]')!.shadowRoot!
    const said: string[] = ((window as unknown as { dpAlerts: string[] }).dpAlerts = [])
    const alertOf = (node: Node): Element | null | undefined =>
      node instanceof Element ? (node.closest('[role="alert"]') ?? node.querySelector('[role="alert"]')) : node.parentElement?.closest('[role="alert"]')
    new MutationObserver((records) => {
      const spoken = new Set<Element>()
      for (const r of records) for (const node of r.type === 'characterData' ? [r.target] : [...r.addedNodes]) {
        const alert = alertOf(node)
        if (alert?.textContent?.trim()) spoken.add(alert)
      }
      for (const alert of spoken) said.push(alert.textContent!.trim())
    }).observe(root, { subtree: true, childList: true, characterData: true })
  })
  return () => page.evaluate(() => (window as unknown as { dpAlerts: string[] }).dpAlerts)
}
