import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { DEFAULT_MODEL_DIR } from './load-default.ts'
import { StaticEmbedder, staticTokens } from './static.ts'
import type { StaticModelDescriptor } from './static-model.ts'

const read = (name: string) => readFileSync(new URL(name, DEFAULT_MODEL_DIR))
const desc = JSON.parse(read('model.json').toString()) as StaticModelDescriptor
const embedder = new StaticEmbedder(desc, read('vocab.txt').toString(), read('vectors.bin'))
const cos = (a: Float32Array, b: Float32Array) => a.reduce((s, x, i) => s + x * b[i]!, 0)

describe('static embedder (offline default model)', () => {
  it('tokenizes Unicode letters and digits, lower-cased', () => {
    expect(staticTokens("Set c.req.header('X-Id') to 42 Über", desc.tokenizer.pattern)).toEqual(['set', 'c', 'req', 'header', 'x', 'id', 'to', '42', 'über'])
  })

  it('returns unit vectors of the model dimension', async () => {
    const [v] = await embedder.embed(['How do I set a cookie on the response?'])
    expect(v!.length).toBe(desc.dims)
    expect(Math.hypot(...v!)).toBeCloseTo(1, 5)
  })

  it('places related sentences closer than unrelated ones', async () => {
    const [a, b, c] = await embedder.embed([
      'How can I store a session cookie in the browser?',
      'Setting cookies on the HTTP response header',
      'Recipe for a spicy chicken curry with rice',
    ])
    expect(cos(a!, b!)).toBeGreaterThan(cos(a!, c!) + 0.1)
  })

  it('gives a zero vector when no word is known, rather than noise', async () => {
    const [v] = await embedder.embed(['zzqxw qqqzzv'])
    expect(Array.from(v!).every((x) => x === 0)).toBe(true)
  })

  it('rejects a vectors file that does not match the descriptor', () => {
    expect(() => new StaticEmbedder(desc, read('vocab.txt').toString(), new Uint8Array(10))).toThrow(/vectors file: has 10 bytes, expected/)
  })
})
