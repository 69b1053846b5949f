import { describe, expect, it } from 'vitest'
import { jsonDepth, MAX_JSON_DEPTH, parseJsonObject } from './json-body.ts'

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
