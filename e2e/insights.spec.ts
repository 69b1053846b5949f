/**
 * Insights end to end: readers in Chromium on `docpilot dev --fake-providers`
 * (the dev server with its own fakes), events stored by the real Node proxy
 * in a SQLite file, then `docpilot insights` reading that file and writing
 * the report, which must render offline and pass axe.
 */
import AxeBuilder from '@axe-core/playwright'
import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { Page, Request } from '@playwright/test'
import { startDevServer, type DevServer } from '../cli/commands/dev.ts'
import { main } from '../cli/main.ts'
import { buildReport, parseEvents, type GapGroup } from '../cli/insights/report.ts'
import { readD1Events, readSqliteEvents } from '../cli/insights/store.ts'
import type { DocpilotConfigInput } from '../core/config/schema.ts'
import { startFakeProviders, type FakeProviders } from '../fixtures/providers/index.ts'
import { proxySettingsFromConfig } from '../proxy/from-config.ts'
import { freePort, startWorkerProxy, type RunningWorker } from '../proxy/testing.ts'
import type { EventRow } from '../proxy/events.ts'
import { validateConfig } from '../core/config/validate.ts'
import { ask, expect, keepScreenshot, openPanel, settled, test, useSite } from './harness.ts'
import { COVERED, E2E_DOCS, E2E_WIDGET, UNCOVERED } from './paths.ts'

const THUMBS_DOWN_QUESTION = 'How do I read a value back from the context later?'

interface InsightsSite {
  server: DevServer
  dir: string
  db: string
  index: string
}

/** dev with its own fake providers, an index built with this config, and a SQLite file the CLI can read afterwards. */
async function startInsightsSite(config: DocpilotConfigInput): Promise<InsightsSite> {
  const dir = mkdtempSync(join(tmpdir(), 'docpilot-insights-e2e-'))
  const server = await startDevServer({
    docsDir: E2E_DOCS,
    indexDir: join(dir, 'index'),
    index: 'build',
    widgetDir: E2E_WIDGET,
    buildWidget: false,
    config: validateConfig({ embed: 'default', chat: { chain: ['openai', 'gemini'] }, ...config }, '(e2e)'),
    env: {},
    fakeProviders: true,
    dbPath: join(dir, 'proxy.sqlite'),
  })
  return { server, dir, db: join(dir, 'proxy.sqlite'), index: join(dir, 'index') }
}

/** Every body the page posted to /ai/events. */
function watchEvents(page: Page): { bodies: string[]; requests: Request[] } {
  const seen = { bodies: [] as string[], requests: [] as Request[] }
  page.on('request', (r) => {
    if (new URL(r.url()).pathname === '/ai/events') {
      seen.requests.push(r)
      seen.bodies.push(r.postData() ?? '')
    }
  })
  return seen
}

async function cli(args: string[]): Promise<{ code: number; out: string; err: string }> {
  let out = ''
  let err = ''
  const code = await main(args, { stdout: (t) => void (out += t), stderr: (t) => void (err += t), cwd: process.cwd() })
  return { code, out, err }
}

/**
 * The readers' turns every store is tested with: answered by the head of the
 * chain; answered by the second member after the first failed (the reader
 * gives it a thumbs down); refused by the gate; rate-limited by every
 * member's daily quota. Returns the first link the refused turn listed.
 */
async function driveReaders(page: Page, fakes: FakeProviders): Promise<{ nearestHref: string | null }> {
  await fakes.reset()
  await openPanel(page)
  // 1. Answered by the head of the chain (rung 1, openai).
  await settled(await ask(page, COVERED), 'answered')
  // 2. openai fails once: gemini answers (rung 2), and openai cools for the turns after; the reader is unhappy.
  await fakes.control({ member: 'openai', fault: 'server-error', times: 1 })
  const downTurn = await settled(await ask(page, THUMBS_DOWN_QUESTION), 'answered')
  const rated = page.waitForRequest((r) => r.url().endsWith('/ai/events') && (r.postData() ?? '').includes('"rating"'))
  await downTurn.getByRole('button', { name: 'Not helpful' }).click()
  await rated
  // 3. Refused by the gate: no model is called.
  const refused = await settled(await ask(page, UNCOVERED), 'refused')
  const nearestHref = await refused.locator('a').first().getAttribute('href')
  // 4. Every member out of its daily quota: rate-limited.
  await fakes.control({ fault: 'daily-quota' })
  await settled(await ask(page, 'How do I define routes?'), 'rate-limited')
  await fakes.reset()
  return { nearestHref }
}

function expectStoredTurns(rows: EventRow[]): void {
  expect(rows.map((r) => r.outcome)).toEqual(['answered', 'answered', 'refused', 'rate-limited'])
  expect(rows[1]!.rating).toBe('down')
  expect(new Set(rows.map((r) => r.tab)).size).toBe(1)
  expect(JSON.stringify(rows)).not.toMatch(/127\.0\.0\.1|::1|localhost/)
}

/** The report over the driven turns: the refused question in a gap group at the section the panel listed first; one answer per rung. */
function expectGapsAndRungs(rows: EventRow[], nearestHref: string | null): GapGroup {
  const report = buildReport(parseEvents(rows).events)
  const refusedGroup = report.gaps.find((g) => g.questions.includes(UNCOVERED))!
  expect(refusedGroup).toBeDefined()
  expect(refusedGroup.refused).toBe(1)
  expect(nearestHref).toContain(`#${refusedGroup.section.anchor}`)
  expect(report.gaps.find((g) => g.questions.includes(THUMBS_DOWN_QUESTION))!.thumbsDown).toBe(1)
  // Rung counts match the turns driven: one answer each; openai was cooling when turns 3 and 4 began.
  expect(report.rungs.map((r) => [r.member, r.index, r.answered, r.cooling])).toEqual([
    ['openai', 0, 1, 2],
    ['gemini', 1, 1, 0],
  ])
  return refusedGroup
}

test.describe('insights on, question text kept', () => {
  let site: InsightsSite
  test.beforeAll(async () => {
    site = await startInsightsSite({ insights: { enabled: true }, feedback: { storeText: true } })
  })
  test.afterAll(async () => site?.server.close())

  test('answered, refused, rate-limited and thumbs-down turns become a report with gaps and rung counts', async ({ page, context }, info) => {
    const events = watchEvents(page)
    await page.goto(site.server.url)
    const { nearestHref } = await driveReaders(page, site.server.fakes!)

    // One beacon per settled turn plus the rating, all answered by the proxy.
    await expect.poll(() => readSqliteEvents(site.db).length).toBe(4)
    expect(events.requests).toHaveLength(5)
    const rows = readSqliteEvents(site.db)
    expectStoredTurns(rows)

    const out = join(site.dir, 'report')
    const gapsFile = join(site.dir, 'gaps.jsonl')
    const run = await cli(['insights', '--db', site.db, '--index', site.index, '--out', out, '--export', gapsFile])
    expect(run.code, run.err).toBe(0)
    expect(run.out).toMatch(/^4 turns: 2 answered, 1 refused, 1 thumbs down; [12] gap group/)

    const refusedGroup = expectGapsAndRungs(rows, nearestHref)
    const markdown = readFileSync(join(out, 'insights.md'), 'utf8')
    expect(markdown).toContain(UNCOVERED)
    expect(markdown).toContain(refusedGroup.section.path)
    const exported = readFileSync(gapsFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { q: string; gold: unknown[] })
    expect(exported.map((q) => q.q).sort()).toEqual([THUMBS_DOWN_QUESTION, UNCOVERED].sort())
    expect(exported.every((q) => q.gold.length === 0)).toBe(true)
    await info.attach('insights.md', { body: markdown, contentType: 'text/markdown' })

    // The HTML report renders from disk with the network cut off, and reads well to a screen reader.
    const reportPage = await context.newPage()
    const fetched: string[] = []
    await context.route(/^https?:/, (route) => {
      fetched.push(route.request().url())
      return route.abort()
    })
    await context.setOffline(true)
    await reportPage.goto(pathToFileURL(join(out, 'insights.html')).href)
    await expect(reportPage.getByRole('heading', { name: 'Gaps: what the docs did not answer' })).toBeVisible()
    await expect(reportPage.getByRole('img', { name: 'Turns per day by outcome' })).toBeVisible()
    await expect(reportPage.getByRole('table', { name: 'Gap groups' })).toContainText(UNCOVERED)
    expect(fetched).toEqual([])
    await keepScreenshot(reportPage, info, 'insights-report')
    const axe = await new AxeBuilder({ page: reportPage }).analyze()
    expect(axe.violations.map((v) => `${v.id}: ${v.help} (${v.nodes.length} nodes)`)).toEqual([])
    await context.setOffline(false)
  })
})

test.describe('insights on, question text off', () => {
  let site: InsightsSite
  test.beforeAll(async () => {
    site = await startInsightsSite({ insights: { enabled: true } })
  })
  test.afterAll(async () => site?.server.close())

  test('neither the beacon nor the store holds the question', async ({ page }) => {
    const events = watchEvents(page)
    await page.goto(site.server.url)
    await openPanel(page)
    await settled(await ask(page, UNCOVERED), 'refused')
    await expect.poll(() => readSqliteEvents(site.db).length).toBe(1)
    const [row] = readSqliteEvents(site.db)
    expect(row!.question).toBeNull()
    expect(row!.outcome).toBe('refused')
    expect(JSON.parse(row!.record).sections.length).toBeGreaterThan(0)
    expect(events.bodies).toHaveLength(1)
    expect(events.bodies[0]).not.toContain('zebra')
    expect(JSON.stringify(row)).not.toContain('zebra')
  })
})

test.describe('insights off (the default)', () => {
  const site = useSite({ members: ['openai'] })

  test('no request to /ai/events for any turn or rating', async ({ page }) => {
    const events = watchEvents(page)
    await page.goto(site.url)
    await openPanel(page)
    const answered = await settled(await ask(page, COVERED), 'answered')
    const feedback = page.waitForResponse((r) => r.url().endsWith('/ai/feedback'))
    await answered.getByRole('button', { name: 'Not helpful' }).click()
    await feedback
    await settled(await ask(page, UNCOVERED), 'refused')
    expect(events.requests).toEqual([])
    expect(site.server.proxy.state.eventRows()).toEqual([])
  })
})

test.describe('insights on a Worker: wrangler dev with D1', () => {
  let fakes: FakeProviders
  let worker: RunningWorker
  let server: DevServer
  const dir = mkdtempSync(join(tmpdir(), 'docpilot-insights-d1-'))
  const persist = join(dir, 'wrangler-state')
  const index = join(dir, 'index')
  test.beforeAll(async () => {
    test.setTimeout(300_000)
    fakes = await startFakeProviders()
    const config = validateConfig({ embed: 'default', chat: { chain: ['openai', 'gemini'] }, insights: { enabled: true }, feedback: { storeText: true } }, '(e2e)')
    // The page stays on dev's origin; its /ai requests and beacons go to the Worker (data-proxy), which allows that origin (CORS).
    const devPort = await freePort()
    const { settings } = proxySettingsFromConfig(config, fakes.env())
    settings.proxy = { ...settings.proxy, siteOrigins: ['https://docs.example.com'], allowedOrigins: [`http://127.0.0.1:${devPort}`] }
    worker = await startWorkerProxy({ settings, env: fakes.env(), statePath: persist })
    server = await startDevServer({
      docsDir: E2E_DOCS,
      indexDir: index,
      index: 'build',
      widgetDir: E2E_WIDGET,
      buildWidget: false,
      config,
      env: {},
      fakeProviders: fakes,
      port: devPort,
      csp: false,
      dbPath: ':memory:',
      scriptData: { proxy: worker.url },
    })
  })
  test.afterAll(async () => {
    await server?.close()
    await worker?.stop()
    await fakes?.close()
  })

  test('the same turns stored in D1 and read back by docpilot insights --d1', async ({ page }, info) => {
    test.setTimeout(300_000)
    const events = watchEvents(page)
    await page.goto(server.url)
    const { nearestHref } = await driveReaders(page, fakes)
    await expect.poll(() => events.requests.length).toBe(5)
    // Nothing went to dev's own Node proxy: the Worker stored them.
    expect(events.requests.every((r) => r.url().startsWith(worker.url))).toBe(true)
    expect(server.proxy.state.eventRows()).toEqual([])

    const wrangler = ['--d1', 'docpilot-feedback', '--wrangler-config', join(worker.configDir, 'wrangler.toml'), '--persist-to', persist]
    const out = join(dir, 'report')
    const gapsFile = join(dir, 'gaps.jsonl')
    const run = await cli(['insights', ...wrangler, '--index', index, '--out', out, '--export', gapsFile])
    expect(run.code, run.err).toBe(0)
    expect(run.out).toMatch(/^4 turns: 2 answered, 1 refused, 1 thumbs down; [12] gap group/)
    const exported = readFileSync(gapsFile, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as { q: string })
    expect(exported.map((q) => q.q).sort()).toEqual([THUMBS_DOWN_QUESTION, UNCOVERED].sort())
    const rows = await readD1Events({ database: 'docpilot-feedback', config: join(worker.configDir, 'wrangler.toml'), persistTo: persist }, process.cwd())
    expectStoredTurns(rows)
    expectGapsAndRungs(rows, nearestHref)
    await info.attach('insights-d1.md', { body: readFileSync(join(out, 'insights.md'), 'utf8'), contentType: 'text/markdown' })
  })
})
