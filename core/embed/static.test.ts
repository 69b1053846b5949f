import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { DEFAULT_MODEL_DIR } from './load-default.ts'
import { openEmbedder } from './open.ts'
import { StaticEmbedder, staticTokens } from './static.ts'
import { EmbedError } from './types.ts'
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
    expect(() => new StaticEmbedder(desc, read('vocab.txt').toString(), new Uint8Array(10))).toThrow(/vectors\.bin: has 10 bytes, expected/)
  })
})

describe('a corrupt or missing model file, as a reader loads it from the index', () => {
  const files = { 'model.json': 'embed.a.model.json', 'vocab.txt': 'embed.b.vocab.txt', 'vectors.bin': 'embed.c.vectors.bin' }
  const identity = { id: desc.id, kind: 'local' as const, model: `static:${desc.id}`, dims: desc.dims, quantization: 'int8', files }
  const loader = (parts: Record<string, Uint8Array>) => ({
    json: async () => ({}) as never,
    bytes: async (name: string) => {
      const b = parts[name]
      if (!b) throw new Error(`HTTP 404 for ${name}`)
      return b
    },
  })
  const good = { 'embed.a.model.json': read('model.json'), 'embed.b.vocab.txt': read('vocab.txt'), 'embed.c.vectors.bin': read('vectors.bin') }

  it('a truncated vectors file: an error naming that part', async () => {
    const parts = { ...good, 'embed.c.vectors.bin': read('vectors.bin').subarray(0, 1000) }
    const err = await openEmbedder(identity, { loader: loader(parts) }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(EmbedError)
    expect((err as EmbedError).code).toBe('bad_model')
    expect((err as Error).message).toMatch(/embed\.c\.vectors\.bin: has 1000 bytes, expected \d+/)
  })
  it('a vocabulary from another model: an error naming that part', async () => {
    const parts = { ...good, 'embed.b.vocab.txt': new TextEncoder().encode('just\nthree\nwords\n') }
    await expect(openEmbedder(identity, { loader: loader(parts) })).rejects.toThrow(/embed\.b\.vocab\.txt has 3 words, model\.json says \d+/)
  })
  it('a missing file: unreachable, naming the part', async () => {
    const { 'embed.c.vectors.bin': _, ...parts } = good
    const err = await openEmbedder(identity, { loader: loader(parts) }).catch((e: unknown) => e)
    expect((err as EmbedError).code).toBe('unreachable')
    expect((err as Error).message).toMatch(/model file embed\.c\.vectors\.bin unreachable: HTTP 404/)
  })
})
