import { describe, expect, it } from 'vitest'
import { jsonDepth, MAX_JSON_DEPTH, parseJsonObject, readJsonBody } from './json-body.ts'
import { Refusal } from './refusal.ts'

const bytes = (s: string) => new TextEncoder().encode(s)

describe('parseJsonObject', () => {
  it('measures nesting without parsing, brackets inside strings ignored', () => {
    expect(jsonDepth(bytes('{"a":[1,{"b":"[[[{{{\\"]]]"}]}'))).toBe(3)
    expect(jsonDepth(bytes('[]'.repeat(5)))).toBe(1)
  })

  it('refuses a 32,000-level body before JSON.parse sees it, and accepts a normal one', () => {
    const deep = `{"model":"m","messages":${'['.repeat(32_000)}${']'.repeat(32_000)}}`
    expect(parseJsonObject(bytes(deep))).toEqual({ ok: false, message: `The request body nests deeper than ${MAX_JSON_DEPTH} levels.` })
    expect(parseJsonObject(bytes('{"model":"m","messages":[{"role":"user","content":"hi"}]}'))).toEqual({ ok: true, value: { model: 'm', messages: [{ role: 'user', content: 'hi' }] } })
    expect(parseJsonObject(bytes('[1]')).ok).toBe(false)
    expect(parseJsonObject(new Uint8Array([0x7b, 0xff, 0x7d])).ok).toBe(false)
  })
})

describe('readJsonBody', () => {
  /** A POST whose body sends `first`, then nothing more until `rest` (if ever). */
  const trickle = (first: string, rest?: { after: number; text: string }) =>
    new Request('http://proxy.test/ai/x', {
      method: 'POST',
      duplex: 'half',
      body: new ReadableStream<Uint8Array>({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(first))
          if (rest) {
            setTimeout(() => {
              controller.enqueue(new TextEncoder().encode(rest.text))
              controller.close()
            }, rest.after)
          }
        },
      }),
    } as RequestInit)

  it('refuses a body still arriving after the deadline with 408 body_timeout, rather than waiting on it', async () => {
    const refused = await readJsonBody(trickle('{"model":'), 1 << 16, 'too large', 50).catch((e: unknown) => e)
    expect(refused).toBeInstanceOf(Refusal)
    expect((refused as Refusal).code).toBe('body_timeout')
    expect((refused as Refusal).status).toBe(408)
  })

  it('reads a body that arrives in pieces within the deadline', async () => {
    expect(await readJsonBody(trickle('{"model":', { after: 20, text: '"m"}' }), 1 << 16, 'too large', 2000)).toEqual({ model: 'm' })
  })
})
