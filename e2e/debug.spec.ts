/** ?dpdebug=1: turn.ladder on the console for every turn and a drawer with the receipt; nothing without the flag. */
import type { ConsoleMessage } from '@playwright/test'
import { ask, expect, expectAccessible, keepScreenshot, openPanel, settled, test, useSite } from './harness.ts'
import { COVERED } from './paths.ts'

const site = useSite({ members: ['openai', 'gemini'] }, { echo: true })

const fromDocpilot = (m: ConsoleMessage) => /turn\.ladder|docpilot/i.test(m.text())

test('?dpdebug=1 prints turn.ladder per turn and shows the receipt drawer', async ({ page }, info) => {
  const lines: string[] = []
  page.on('console', (m) => fromDocpilot(m) && lines.push(m.text()))
  await site.fakes.control({ member: 'openai', fault: 'server-error', times: 1 })
  await page.goto(`${site.url}/?dpdebug=1`)
  await openPanel(page)
  const turn = await ask(page, COVERED)
  await settled(turn, 'answered')
  await settled(await ask(page, COVERED), 'answered')
  expect(lines).toHaveLength(2)
  const ladders = lines.map((l) => JSON.parse(l.replace(/^turn\.ladder = /, '')))
  expect(ladders[0]).toEqual({ provider: 'gemini', index: 1, freePool: null })

  const drawer = turn.getByTestId('dp-debug')
  await drawer.locator('summary').click()
  const receipt = JSON.parse(await drawer.locator('pre').innerText())
  expect(receipt.ladder).toEqual(ladders[0])
  expect(receipt.receipt.attempts.map((a: { provider?: string; member?: string; class?: string }) => a.provider ?? a.member)).toEqual(['openai', 'gemini'])
  expect(receipt.receipt.retrieval.mode).toMatch(/hybrid|lexical/)
  expect(receipt.receipt.stages.retrieveMs).toBeGreaterThanOrEqual(0)
  expect(typeof receipt.receipt.retrieval.gate.score).toBe('number')
  expect(receipt.cooldowns.openai).toMatchObject({ class: 'server_error' })
  expect(receipt.scores[0].channels.lexical).toBeGreaterThan(0)
  // A receipt never carries prompt text, answer text or keys.
  const raw = JSON.stringify(receipt)
  const answer = (await turn.locator('.dp-answer').innerText()).slice(0, 40)
  expect(answer.length).toBeGreaterThan(20)
  expect(raw).not.toContain(answer)
  for (const key of site.keys) expect(raw).not.toContain(key)
  await keepScreenshot(page, info, 'debug-drawer')
  await expectAccessible(page, info, 'debug')
})

test('without the flag: no console output and no drawer', async ({ page }) => {
  const lines: string[] = []
  page.on('console', (m) => fromDocpilot(m) && lines.push(m.text()))
  await page.goto(site.url)
  await openPanel(page)
  const turn = await ask(page, COVERED)
  await settled(turn, 'answered')
  await expect(turn.getByTestId('dp-debug')).toHaveCount(0)
  expect(lines).toEqual([])
})
