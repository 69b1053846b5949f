import { describe, expect, it } from 'vitest'
import { findKeys } from './key-scan.ts'

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
      const header = `Authorization: Basic ${Buffer.from(`${prefix}${KEY}:x`).toString('base64')}`
      const hits = findKeys([{ where: `header (${prefix.length})`, bytes: header }], [KEY])
      expect(hits.map((h) => h.form), `prefix "${prefix}"`).toContain('base64')
    }
    const dataUrl = `data:text/plain;base64,${Buffer.from(`config=${KEY}`).toString('base64url')}`
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
