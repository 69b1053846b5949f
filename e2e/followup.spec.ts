/**
 * Follow-up questions in the panel: each turn's retrieval gets the questions
 * asked before it, so "How do I make them optional?" after a question about
 * path parameters lands on optional path parameters, not on the config
 * reference's options (where the question alone lands).
 */
import { ask, expect, openPanel, settled, test, useSite } from './harness.ts'

const site = useSite({ members: [] })

test('a follow-up question is searched for the conversation, not for its own words', async ({ page }) => {
  await page.goto(site.url)
  await openPanel(page)
  const first = await ask(page, 'How do I define path parameters in a route?')
  await expect(first).toHaveAttribute('data-phase', 'settled', { timeout: 45_000 })
  const followUp = await ask(page, 'How do I make them optional?')
  await expect(followUp).toHaveAttribute('data-phase', 'settled', { timeout: 45_000 })
  await expect(followUp.locator('a[href*="#"]').first()).toHaveAttribute('href', /\/guide\/routing#optional-parameters$/)
})

test.describe('after a turn no model answered', () => {
  const site = useSite({ members: ['openai'] }, [])

  test('the follow-up carries the earlier question to the model', async ({ page }) => {
    await page.goto(site.url)
    await openPanel(page)
    await site.fakes.control({ fault: 'server-error' })
    await settled(await ask(page, 'How do I define path parameters in a route?'), 'hybrid')
    await site.fakes.reset()
    await settled(await ask(page, 'How do I make them optional?'), 'answered')
    const chats = (await site.fakes.requests()).filter((r) => r.endpoint === 'chat')
    const { messages } = chats.at(-1)!.body as { messages: { role: string; content: string }[] }
    expect(messages.map((m) => m.content).join('\n')).toContain('How do I define path parameters in a route?')
  })
})
