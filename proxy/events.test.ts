import { describe, expect, it } from 'vitest'
import { IN_MEMORY, MemoryState, SqliteState, createNodeProxy } from './node.ts'
import { parseProxySettings } from './settings.ts'
import type { EventRecord } from './events.ts'

const SITE = 'https://docs.example.com'
const DAY = 86_400_000

function settings(opts: { enabled: boolean; storeText?: boolean; retentionDays?: number }) {
  return parseProxySettings({
    routes: [],
    proxy: { siteOrigins: [SITE], rateLimit: { perMinute: 10_000, burst: 10_000 } },
    feedback: { storeText: opts.storeText ?? false },
    insights: { enabled: opts.enabled, ...(opts.retentionDays ? { retentionDays: opts.retentionDays } : {}) },
  })
}

const TAB = 'tab-0123456789'
const turn = (id: string, extra: Record<string, unknown> = {}) => ({
  kind: 'turn',
  tab: TAB,
  turn: id,
  outcome: 'refused',
  retrieval: { mode: 'hybrid', degraded: false, gate: { pass: false, score: 0.21 }, passages: 8 },
  sections: [{ path: 'guide/context.md', anchor: 'set-get', trail: ['Context', 'set() / get()'], cited: false }],
  ladder: null,
  cooling: ['openai'],
  stages: { retrieveMs: 12.5, answerMs: null, totalMs: 13 },
  question: 'how do zebras migrate?',
  ...extra,
})

/** A beacon arrives as text/plain from the site's page. */
const beacon = (body: unknown, origin = SITE): RequestInit => ({
  method: 'POST',
  headers: { 'content-type': 'text/plain;charset=UTF-8', origin },
  body: typeof body === 'string' ? body : JSON.stringify(body),
})

describe('/ai/events on the Node entry', () => {
  it('stores nothing and says so while insights are off', async () => {
    const proxy = createNodeProxy({ settings: settings({ enabled: false }), env: {}, dbPath: IN_MEMORY })
    const res = await proxy.app.request('/ai/events', beacon(turn('turn-00000001')))
    expect(res.status).toBe(404)
    expect(((await res.json()) as { error: { code: string } }).error.code).toBe('insights_off')
    expect(proxy.state.eventRows()).toEqual([])
    proxy.close()
  })

  it("stores the turn's record without its question unless text is opted in, and a later rating on it", async () => {
    let at = Date.UTC(2026, 0, 10, 12)
    const proxy = createNodeProxy({ settings: settings({ enabled: true }), env: {}, dbPath: IN_MEMORY, now: () => at })
    expect(proxy.state).toBeInstanceOf(SqliteState)
    const res = await proxy.app.request('/ai/events', beacon(turn('turn-00000001', { Question: 'secret 1', sections: [{ path: 'a.md', anchor: 'b', trail: ['A'], cited: true, text: 'secret 2' }] })))
    expect(res.status).toBe(204)
    const rows = proxy.state.eventRows()
    expect(rows).toHaveLength(1)
    const row = rows[0]!
    expect(row).toMatchObject({ id: 'turn-00000001', tab: TAB, outcome: 'refused', question: null, rating: null, createdAt: '2026-01-10T12:00:00.000Z' })
    const record = JSON.parse(row.record) as EventRecord
    expect(record.sections).toEqual([{ path: 'a.md', anchor: 'b', trail: ['A'], cited: true }])
    expect(record.cooling).toEqual(['openai'])
    expect(record.retrieval?.gate.score).toBe(0.21)
    expect(JSON.stringify(rows)).not.toMatch(/secret|zebras/)

    // The same beacon twice is one row; a rating needs both random ids.
    await proxy.app.request('/ai/events', beacon(turn('turn-00000001')))
    expect((await proxy.app.request('/ai/events', beacon({ kind: 'rating', tab: 'another-tab-id', turn: 'turn-00000001', rating: 'down' }))).status).toBe(204)
    expect(proxy.state.eventRows()[0]!.rating).toBeNull()
    await proxy.app.request('/ai/events', beacon({ kind: 'rating', tab: TAB, turn: 'turn-00000001', rating: 'down' }))
    expect(proxy.state.eventRows()).toMatchObject([{ id: 'turn-00000001', rating: 'down' }])

    // Retention (90 days by default): the next event deletes what is older.
    at += 91 * DAY
    await proxy.app.request('/ai/events', beacon(turn('turn-00000002')))
    expect(proxy.state.eventRows().map((r) => r.id)).toEqual(['turn-00000002'])
    proxy.close()
  })

  it('keeps feedback ratings as long as events (insights.retentionDays), on or off: the next rating deletes older ones', async () => {
    for (const enabled of [false, true]) {
      let at = Date.UTC(2026, 0, 10, 12)
      const proxy = createNodeProxy({ settings: settings({ enabled, retentionDays: 30 }), env: {}, dbPath: IN_MEMORY, now: () => at })
      const rate = (rating: string) => proxy.app.request('/ai/feedback', { method: 'POST', headers: { origin: SITE }, body: JSON.stringify({ rating }) })
      expect((await rate('up')).status).toBe(201)
      at += 29 * DAY
      await rate('down')
      expect(proxy.state.feedbackRows().map((r) => r.rating)).toEqual(['up', 'down'])
      at += 2 * DAY
      await rate('up')
      expect(proxy.state.feedbackRows().map((r) => [r.rating, r.createdAt])).toEqual([
        ['down', '2026-02-08T12:00:00.000Z'],
        ['up', '2026-02-10T12:00:00.000Z'],
      ])
      proxy.close()
    }
    for (const state of [new MemoryState(), new SqliteState(IN_MEMORY)]) {
      const row = { id: 'f-1', createdAt: '2026-01-10T00:00:00.000Z', rating: 'up' as const, page: null, receipt: null, ladder: null, question: null, answer: null, comment: null }
      await state.save(row, '2026-01-01T00:00:00.000Z')
      await state.save({ ...row, id: 'f-2', createdAt: '2026-02-01T00:00:00.000Z' }, '2026-01-15T00:00:00.000Z')
      expect(state.feedbackRows().map((r) => r.id)).toEqual(['f-2'])
      state.close()
    }
  })

  it('keeps the same events in memory as in SQLite (no SQLite installed)', async () => {
    for (const state of [new MemoryState(), new SqliteState(IN_MEMORY)]) {
      const row = { id: 'turn-1', tab: TAB, createdAt: '2026-01-10T00:00:00.000Z', outcome: 'answered' as const, record: '{}', question: null, rating: null }
      await state.saveEvent(row, '2026-01-01T00:00:00.000Z')
      await state.saveEvent({ ...row, outcome: 'error' }, '2026-01-01T00:00:00.000Z')
      await state.rateEvent({ id: 'turn-1', tab: TAB, rating: 'up' })
      expect(state.eventRows()).toEqual([{ ...row, rating: 'up' }])
      await state.saveEvent({ ...row, id: 'turn-2', createdAt: '2026-02-01T00:00:00.000Z' }, '2026-01-15T00:00:00.000Z')
      expect(state.eventRows().map((r) => r.id)).toEqual(['turn-2'])
      state.close()
    }
  })

  it('keeps the question when the owner opted in to text (feedback.storeText)', async () => {
    const proxy = createNodeProxy({ settings: settings({ enabled: true, storeText: true }), env: {}, dbPath: IN_MEMORY })
    await proxy.app.request('/ai/events', beacon(turn('turn-00000003')))
    expect(proxy.state.eventRows()[0]!.question).toBe('how do zebras migrate?')
    proxy.close()
  })

  it("draws on its own bucket with the same limits: a reader's beacons never cost them an answer", async () => {
    const limited = parseProxySettings({ ...settings({ enabled: true }), proxy: { siteOrigins: [SITE], rateLimit: { perMinute: 1, burst: 2 } } })
    const proxy = createNodeProxy({ settings: limited, env: {}, dbPath: IN_MEMORY })
    const answers = []
    for (let i = 0; i < 3; i++) answers.push(await proxy.app.request('/ai/events', beacon(turn(`turn-limit-${i}`))))
    expect(answers.map((r) => r.status)).toEqual([204, 204, 429])
    expect(((await answers[2]!.json()) as { error: { message: string } }).error.message).toMatch(/^Too many insights events from this client;/)
    // The chat routes' bucket is untouched: feedback (which shares it) still passes.
    expect((await proxy.app.request('/ai/feedback', { method: 'POST', headers: { origin: SITE }, body: '{"rating":"up"}' })).status).toBe(201)
    proxy.close()
  })

  it('refuses other origins, malformed and oversize events, and bad ids', async () => {
    const proxy = createNodeProxy({ settings: settings({ enabled: true, storeText: true }), env: {}, dbPath: IN_MEMORY })
    const send = (body: unknown, origin?: string) => proxy.app.request('/ai/events', beacon(body, origin))
    expect((await send(turn('turn-00000004'), 'https://evil.example')).status).toBe(403)
    expect((await send(turn('short'))).status).toBe(400)
    expect((await send(turn('turn-00000005', { outcome: 'great' }))).status).toBe(400)
    expect((await send(turn('turn-00000006', { question: 'x'.repeat(70_000) }))).status).toBe(413)
    expect((await send('{"kind":"turn","question":"half \\ud800 pair"}')).status).toBe(400)
    expect((await send(turn('turn-00000007', { sections: Array(6).fill({ path: 'a', anchor: 'b', trail: [], cited: false }) }))).status).toBe(400)
    expect((await proxy.app.request('/ai/events', { method: 'GET', headers: { origin: SITE } })).status).toBe(405)
    expect(proxy.state.eventRows()).toEqual([])
    proxy.close()
  })
})
