import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { DEFAULT_MODEL_DIR } from '../../cli/package-root.ts'
import { openEmbedder } from './open.ts'
import { StaticEmbedder, staticTokens } from './static.ts'
import { EmbedError } from './types.ts'
import type { StaticModelDescriptor } from './static-model.ts'
import { splitIdentity } from './static-split.ts'
import { encodeRowsPack } from '../index/static-rows.ts'

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

describe('a corrupt or missing model rows file, as a reader loads it from the index', () => {
  // The reader reads a static model by word from a packed rows file (static-split.ts): that file and its seeds can be damaged or missing.
  const words = read('vocab.txt').toString().split('\n').slice(0, desc.vocabSize)
  const packed = encodeRowsPack(embedder.table, words)
  const rows = { pack: 'embed-rows.c.bin', directory: 'embed-rows.s.dir.gz', buckets: packed.counts.length }
  const identity = splitIdentity(desc, rows, { 'model.json': 'embed.a.model.json' })
  const loader = (parts: Record<string, Uint8Array>) => ({
    bytes: async (name: string) => {
      const b = parts[name]
      if (!b) throw new Error(`HTTP 404 for ${name}`)
      return b
    },
  })
  const good = { [rows.pack]: packed.pack, [rows.directory]: packed.counts }

  it('a truncated rows file: an error naming that part', async () => {
    const e = (await openEmbedder(identity, { loader: loader({ ...good, [rows.pack]: packed.pack.subarray(0, 1000) }) }))!
    const err = await e.embed(['zebra cookie']).catch((x: unknown) => x)
    expect(err).toBeInstanceOf(EmbedError)
    expect((err as EmbedError).code).toBe('bad_model')
    expect((err as Error).message).toMatch(/model rows file embed-rows\.c\.bin is damaged/)
  })
  it('a directory from another model: an error naming that part', async () => {
    const e = (await openEmbedder(identity, { loader: loader({ ...good, [rows.directory]: new Uint8Array(6) }) }))!
    await expect(e.embed(['cookie'])).rejects.toThrow(/model rows file embed-rows\.s\.dir\.gz is damaged \(6 bytes, expected \d+\)/)
  })
  it('a missing file: unreachable, naming the part', async () => {
    const { [rows.pack]: _, ...parts } = good
    const err = await (await openEmbedder(identity, { loader: loader(parts) }))!.embed(['cookie']).catch((e: unknown) => e)
    expect((err as EmbedError).code).toBe('unreachable')
    expect((err as Error).message).toMatch(/model rows embed-rows\.c\.bin unreachable: HTTP 404/)
  })
})
