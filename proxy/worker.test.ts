/**
 * The Workers entry in-process, for what it answers before any binding is
 * used: a Worker has no start-up to refuse, so a settings value it cannot serve
 * is a 503 on every request, whose message must name the Worker's own fix.
 */
import { describe, expect, it } from 'vitest'
import worker from './worker.ts'

/** The bindings are never reached by a refused request; a call to one fails the test. */
const unreachable = new Proxy({}, { get: () => { throw new Error('a binding was used') } })

async function ask(vars: Record<string, unknown>) {
  const res = await worker.fetch(new Request('https://docs.example.com/ai/health'), { LIMITS: unreachable, FEEDBACK_DB: unreachable, ...vars })
  return { status: res.status, body: (await res.json()) as { error: { code: string; message: string } } }
}

describe('the Worker with settings it cannot serve', () => {
  it('without proxy.siteOrigins in DOCPILOT_PROXY, says to rewrite DOCPILOT_PROXY (the Worker never reads docpilot.config)', async () => {
    const { status, body } = await ask({ DOCPILOT_PROXY: JSON.stringify({ routes: [] }) })
    expect(status).toBe(503)
    expect(body.error.code).toBe('proxy_misconfigured')
    expect(body.error.message).toMatch(/^proxy\.siteOrigins is not set in DOCPILOT_PROXY: /)
    expect(body.error.message).toContain('npx docpilot doctor --proxy --wrangler')
  })

  it('without its Durable Object or D1 binding (a wrangler.toml of the owner\'s own), names the binding and the block to add', async () => {
    const DOCPILOT_PROXY = JSON.stringify({ routes: [{ member: 'openai', chatModels: ['gpt-4o-mini'] }], proxy: { siteOrigins: ['https://docs.example.com'] } })
    const noLimits = await ask({ DOCPILOT_PROXY, LIMITS: undefined })
    expect(noLimits.status).toBe(503)
    expect(noLimits.body.error.code).toBe('proxy_misconfigured')
    expect(noLimits.body.error.message).toMatch(/^The Worker has no LIMITS binding .*\[\[durable_objects\.bindings\]\].*\[\[migrations\]\].*docpilot doctor --proxy --wrangler/)
    const noDb = await ask({ DOCPILOT_PROXY, FEEDBACK_DB: undefined })
    expect(noDb.status).toBe(503)
    expect(noDb.body.error.message).toMatch(/^The Worker has no FEEDBACK_DB binding .*\[\[d1_databases\]\].*wrangler d1 create docpilot-feedback/)
  })

  it('without DOCPILOT_PROXY, says where it comes from', async () => {
    const { status, body } = await ask({})
    expect(status).toBe(503)
    expect(body.error.message).toMatch(/DOCPILOT_PROXY is not set/)
  })
})
