import { describe, expect, it } from 'vitest'
import { findKeys, Redactor } from './key-scan.ts'

const KEY = 'sk-planted-key-9f8e7d6c5b4a'
const noise = (n: number) => Uint8Array.from({ length: n }, (_, i) => (i * 37 + 11) % 256)

describe('findKeys', () => {
  it('finds nothing in bytes without the key', () => {
    expect(findKeys([{ where: 'clean.js', bytes: noise(4096) }, { where: 'text', bytes: 'sk-planted-key-9f8e7d6c5b4' }], [KEY])).toEqual([])
  })

  it('catches a key planted raw in the middle of binary bytes', () => {
    const bytes = new Uint8Array([...noise(1000), ...new TextEncoder().encode(KEY), ...noise(1000)])
    expect(findKeys([{ where: 'model.onnx', bytes }], [KEY])).toEqual([{ key: 'sk-pla…', where: 'model.onnx', form: 'raw' }])
  })

  it('catches a key base64-encoded inside a longer run, at every alignment', () => {
    for (const prefix of ['', 'u', 'us', 'user:']) {
      const header = `Authorization: Basic ${btoa(`${prefix}${KEY}:x`)}`
      const hits = findKeys([{ where: `header (${prefix.length})`, bytes: header }], [KEY])
      expect(hits.map((h) => h.form), `prefix "${prefix}"`).toContain('base64')
    }
    const dataUrl = `data:text/plain;base64,${btoa(`config=${KEY}`).replace(/\+/g, '-').replace(/\//g, '_').replace(/=+$/, '')}`
    expect(findKeys([{ where: 'data url', bytes: dataUrl }], [KEY]).length).toBeGreaterThan(0)
  })

  it('catches percent-encoded and JSON-escaped keys', () => {
    const odd = 'key/with+special"chars&=42'
    expect(findKeys([{ where: 'url', bytes: `https://x.test/?k=${encodeURIComponent(odd)}` }], [odd]).map((h) => h.form)).toEqual(['percent-encoded'])
    expect(findKeys([{ where: 'json', bytes: JSON.stringify({ k: odd }) }], [odd]).map((h) => h.form)).toEqual(['json-escaped'])
  })

  it('refuses keys short enough to match by chance', () => {
    expect(() => findKeys([], ['abc'])).toThrow(/would match by chance/)
  })
})

describe('Redactor', () => {
  const b64 = (s: string) => btoa(s)
  const run = async (redactor: Redactor, chunks: string[]) => {
    const out: string[] = []
    const source = new ReadableStream<Uint8Array>({
      start(controller) {
        for (const c of chunks) controller.enqueue(new TextEncoder().encode(c))
        controller.close()
      },
    })
    const reader = source.pipeThrough(redactor.stream()).getReader()
    const decoder = new TextDecoder()
    for (;;) {
      const { done, value } = await reader.read()
      if (done) break
      out.push(decoder.decode(value))
    }
    return out
  }

  it('replaces the key raw, percent-encoded, JSON-escaped and base64 at any alignment', () => {
    const r = new Redactor([KEY, undefined])
    for (const prefix of ['', 'u', 'us']) {
      expect(r.redact(`Basic ${b64(`${prefix}${KEY}:x`)}`)).toContain('[redacted]')
    }
    expect(r.redact(`key=${KEY}; json="${KEY}"`)).toBe('key=[redacted]; json="[redacted]"')
    const odd = 'key/with+special"chars&=42'
    const r2 = new Redactor([odd])
    expect(r2.redact(`?k=${encodeURIComponent(odd)} ${JSON.stringify({ k: odd })}`)).not.toMatch(/special/)
    expect(findKeys([{ where: 'x', bytes: r.redact(`data:;base64,${b64(`config=${KEY}`)}`) }], [KEY])).toEqual([])
  })

  it('catches a key split across two stream chunks, and holds back nothing when no chunk ends like a key', async () => {
    const r = new Redactor([KEY])
    const event = `data: {"error":{"message":"bad key ${KEY}"}}\n\n`
    for (let cut = 1; cut < event.length; cut++) {
      const out = await run(r, [event.slice(0, cut), event.slice(cut)])
      expect(out.join(''), `cut at ${cut}`).toBe('data: {"error":{"message":"bad key [redacted]"}}\n\n')
    }
    // A delta ending its event is passed on whole, at once.
    const deltas = await run(r, ['data: {"delta":"one"}\n\n', 'data: {"delta":"two"}\n\n'])
    expect(deltas).toEqual(['data: {"delta":"one"}\n\n', 'data: {"delta":"two"}\n\n'])
    expect(r.carry).toBeGreaterThanOrEqual(KEY.length - 1)
  })
})
