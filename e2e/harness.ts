/**
 * What the specs share: a dev server (real Node proxy) over the fixture index
 * with the chain a scenario needs, pointed at the fake providers; and the
 * reader's moves in the panel.
 */
import AxeBuilder from '@axe-core/playwright'
import { expect, type BrowserContext, type Locator, type Page, type TestInfo } from '@playwright/test'
import { startDevServer, type DevServer } from '../cli/commands/dev.ts'
import type { DocpilotConfigInput } from '../core/config/schema.ts'
import { validateConfig } from '../core/config/validate.ts'
import { providerSpec, type MemberId } from '../core/providers/table.ts'
import { startFakeProviders, type FakeProviders } from '../fixtures/providers/index.ts'
import { E2E_DOCS, E2E_INDEX, E2E_WIDGET } from './paths.ts'

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
    indexDir: E2E_INDEX,
    index: 'reuse',
    widgetDir: E2E_WIDGET,
    buildWidget: false,
    config: validateConfig(opts.config ?? { chat: { chain: 'auto' } }, '(e2e)'),
    env,
    dbPath: ':memory:',
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
  await expect(turn).toHaveAttribute('data-phase', 'settled', { timeout: 15_000 })
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

/** axe-core on the open panel: no serious or critical violations. */
export async function expectAccessible(page: Page, info: TestInfo, label: string): Promise<void> {
  const results = await new AxeBuilder({ page }).include('[data-docpilot-panel]').analyze()
  const bad = results.violations.filter((v) => v.impact === 'serious' || v.impact === 'critical')
  if (bad.length > 0) {
    await info.attach(`axe-${label}`, { body: JSON.stringify(bad, null, 2), contentType: 'application/json' })
  }
  expect(bad.map((v) => `${v.id}: ${v.help} (${v.nodes.length} nodes)`), `axe in state ${label}`).toEqual([])
}

/** Records every byte the page sends or receives that contains one of the secrets. */
export function watchForSecrets(context: BrowserContext, secrets: string[]): { leaks: string[]; seen: { requests: number; responses: number }; settle(): Promise<void> } {
  const leaks: string[] = []
  const seen = { requests: 0, responses: 0 }
  const pending: Promise<void>[] = []
  const scan = (where: string, text: string | null | undefined) => {
    if (!text) return
    for (const s of secrets) if (text.includes(s)) leaks.push(`${where} contains ${s.slice(0, 9)}…`)
  }
  context.on('request', (req) => {
    seen.requests++
    scan(`request ${req.url()} url`, req.url())
    scan(`request ${req.url()} headers`, JSON.stringify(req.headers()))
    scan(`request ${req.url()} body`, req.postData())
  })
  context.on('response', (res) => {
    seen.responses++
    pending.push(
      (async () => {
        scan(`response ${res.url()} headers`, JSON.stringify(await res.allHeaders()))
        const body = await res.body().catch(() => null)
        if (body) scan(`response ${res.url()} body`, body.toString('latin1'))
      })(),
    )
  })
  return { leaks, seen, settle: async () => void (await Promise.all(pending)) }
}
