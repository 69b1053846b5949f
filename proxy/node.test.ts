import { mkdtempSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { IN_MEMORY, MemoryState, SqliteState, createNodeProxy, resolveDbPath } from './node.ts'
import { parseProxySettings } from './settings.ts'

const tmp = () => mkdtempSync(join(tmpdir(), 'docpilot-node-state-'))

describe('proxy state path', () => {
  it("keeps ':memory:' a name, and resolves every other path against the working directory", () => {
    expect(resolveDbPath('/srv/site', IN_MEMORY)).toBe(':memory:')
    expect(resolveDbPath('/srv/site', '.docpilot/proxy.sqlite')).toBe('/srv/site/.docpilot/proxy.sqlite')
    expect(resolveDbPath('/srv/site', '/var/lib/docpilot.sqlite')).toBe('/var/lib/docpilot.sqlite')
  })

  it("refuses ':memory:' joined to a folder instead of creating a file of that name", () => {
    const dir = tmp()
    expect(() => new SqliteState(join(dir, IN_MEMORY))).toThrow(/':memory:' joined to a folder/)
    expect(readdirSync(dir)).toEqual([])
  })

  it("a file path creates its folder and keeps the day's count when reopened", async () => {
    const file = join(tmp(), 'nested', 'state.sqlite')
    const now = Date.UTC(2026, 0, 1, 12)
    const first = new SqliteState(file)
    expect(await first.spendDaily(1, now)).toEqual({ ok: true, used: 1, resetAt: Date.UTC(2026, 0, 2) })
    first.close()
    const reopened = new SqliteState(file)
    expect(await reopened.spendDaily(1, now)).toEqual({ ok: false, used: 1, resetAt: Date.UTC(2026, 0, 2) })
    // A new UTC day starts over.
    expect((await reopened.spendDaily(1, Date.UTC(2026, 0, 2, 0, 0, 1))).ok).toBe(true)
    reopened.close()
  })
})

describe('state in memory (no SQLite installed)', () => {
  it('keeps the same daily ceiling as the SQLite state, and starts over on a new UTC day', async () => {
    const now = Date.UTC(2026, 0, 1, 12)
    for (const state of [new MemoryState(), new SqliteState(IN_MEMORY)]) {
      expect(await state.spendDaily(2, now)).toEqual({ ok: true, used: 1, resetAt: Date.UTC(2026, 0, 2) })
      expect(await state.spendDaily(2, now)).toEqual({ ok: true, used: 2, resetAt: Date.UTC(2026, 0, 2) })
      expect(await state.spendDaily(2, now)).toEqual({ ok: false, used: 2, resetAt: Date.UTC(2026, 0, 2) })
      expect(await state.spendDaily(2, Date.UTC(2026, 0, 2, 0, 0, 1))).toMatchObject({ ok: true, used: 1 })
      state.close()
    }
  })
})

describe('feedback on the Node entry', () => {
  const send = (proxy: ReturnType<typeof createNodeProxy>, body: unknown) =>
    proxy.app.request('/ai/feedback', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) })
  const feedback = { rating: 'up', question: 'What does c.set do?', answer: 'It stores a value.', receipt: { outcome: 'answered', prompt: 'the prompt' } }
  const settings = (storeText: boolean) => parseProxySettings({ routes: [], feedback: { storeText, maxBytes: 4096 } })

  it('stores the question, answer and receipt text in SQLite only when the owner opted in', async () => {
    const optedIn = createNodeProxy({ settings: settings(true), env: {}, dbPath: IN_MEMORY })
    expect((await send(optedIn, feedback)).status).toBe(201)
    expect(optedIn.state.feedbackRows()[0]).toMatchObject({ rating: 'up', question: 'What does c.set do?', answer: 'It stores a value.' })
    expect(JSON.parse(optedIn.state.feedbackRows()[0]!.receipt!).prompt).toBe('the prompt')
    optedIn.close()

    const byDefault = createNodeProxy({ settings: settings(false), env: {}, dbPath: IN_MEMORY })
    expect((await send(byDefault, feedback)).status).toBe(201)
    expect(byDefault.state.feedbackRows()[0]).toMatchObject({ rating: 'up', question: null, answer: null })
    expect(JSON.stringify(byDefault.state.feedbackRows())).not.toMatch(/c\.set|stores a value|the prompt/)
    byDefault.close()
  })
})
