import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { encodeVectorRows } from '../core/index/vectors.ts'
import { EmbeddingCache, textDigest } from './embed-cache.ts'

const identity = { id: 'test-embedder', model: 'static:test', dims: 3 }
const vector = (...xs: number[]) => Float32Array.from(xs)
/** A batch of `n` entries: its count, n 32-byte digests, n x 3 float32, n 7-byte rows padded to 4 bytes, then its CRC-32. */
const batch = (n: number) => 4 + n * (32 + 3 * 4) + Math.ceil((n * 7) / 4) * 4 + 4
const fileOf = (dir: string) => join(dir, 'embeddings', readdirSync(join(dir, 'embeddings'))[0]!)
/** The file's header: 12 bytes, then the identity it names, padded to 4 bytes. */
const headerOf = (dir: string) => 12 + Math.ceil(readFileSync(fileOf(dir)).readUInt32LE(8) / 4) * 4

async function seeded(dir: string, texts: Record<string, Float32Array>, scope = '/out') {
  const cache = await EmbeddingCache.open(dir, identity, scope)
  for (const [text, v] of Object.entries(texts)) cache.set(textDigest(text), v)
  await cache.save()
}

describe('EmbeddingCache', () => {
  it('gives back the exact float32 values it stored, in a file of one batch of entries (digests, values, rows) per run', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dp-ec-'))
    const a = vector(0.1, -2.5e-8, 3.4e38)
    const b = vector(Number.MIN_VALUE, -0, 1 / 3)
    await seeded(dir, { a, b })
    const cache = await EmbeddingCache.open(dir, identity, '/out')
    expect(cache.get(textDigest('a'))).toEqual(a)
    expect(Object.is(cache.get(textDigest('b'))![1], -0)).toBe(true)
    expect(cache.get(textDigest('b'))).toEqual(b)
    expect(cache.get(textDigest('c'))).toBeUndefined()
    expect(statSync(fileOf(dir)).size).toBe(headerOf(dir) + batch(2))
  })

  it("keeps each vector's exact row as the index's vectors file holds it, for the entries this run used", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dp-ec-'))
    const a = vector(0.3, -0.9, 0.05)
    await seeded(dir, { a })
    const cache = await EmbeddingCache.open(dir, identity, '/out')
    expect(() => cache.rows([textDigest('a')])).toThrow(/no 3-dimension entry used this run/)
    cache.get(textDigest('a'))
    expect(cache.rows([textDigest('a')])).toEqual(encodeVectorRows([a], 3))
    const b = vector(0, 2, -1)
    cache.set(textDigest('b'), b)
    expect(cache.rows([textDigest('b'), textDigest('a')])).toEqual(encodeVectorRows([b, a], 3))
  })

  it('keeps only the entries a run used', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dp-ec-'))
    await seeded(dir, { a: vector(1, 2, 3), b: vector(4, 5, 6) })
    const run = await EmbeddingCache.open(dir, identity, '/out')
    run.get(textDigest('a'))
    await run.save()
    const next = await EmbeddingCache.open(dir, identity, '/out')
    expect(next.get(textDigest('a'))).toEqual(vector(1, 2, 3))
    expect(next.get(textDigest('b'))).toBeUndefined()
  })

  it('leaves the file alone when a run used every entry and added none, and appends what a run embedded', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dp-ec-'))
    await seeded(dir, { a: vector(1, 2, 3), b: vector(4, 5, 6), c: vector(7, 8, 9) })
    const before = statSync(fileOf(dir))
    const same = await EmbeddingCache.open(dir, identity, '/out')
    for (const t of ['a', 'b', 'c']) same.get(textDigest(t))
    await same.save()
    expect(statSync(fileOf(dir)).mtimeMs).toBe(before.mtimeMs)

    const grown = await EmbeddingCache.open(dir, identity, '/out')
    for (const t of ['a', 'b']) grown.get(textDigest(t))
    grown.set(textDigest('d'), vector(1, 1, 1))
    await grown.save()
    // One batch appended in place (a rewrite renames a new file over it): c, unused, is one of four.
    expect(statSync(fileOf(dir))).toMatchObject({ ino: before.ino, size: before.size + batch(1) })
    const next = await EmbeddingCache.open(dir, identity, '/out')
    expect(next.get(textDigest('d'))).toEqual(vector(1, 1, 1))
    expect(next.get(textDigest('c'))).toEqual(vector(7, 8, 9))
  })

  it('rewrites the file with the used entries alone, in the order the run used them, once more than a quarter of it is unused, or an append was cut short', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dp-ec-'))
    await seeded(dir, { a: vector(1, 2, 3), b: vector(4, 5, 6), c: vector(7, 8, 9), f: vector(0, 0, 1) })
    // b and f unused: two of five.
    const run = await EmbeddingCache.open(dir, identity, '/out')
    run.get(textDigest('c'))
    run.set(textDigest('d'), vector(1, 1, 1))
    run.get(textDigest('a'))
    await run.save()
    const header = headerOf(dir)
    expect(statSync(fileOf(dir)).size).toBe(header + batch(3))
    const digestsOf = (file: Buffer, n: number) => Array.from({ length: n }, (_, i) => file.toString('hex', header + 4 + 32 * i, header + 36 + 32 * i))
    expect(digestsOf(readFileSync(fileOf(dir)), 3)).toEqual(['c', 'd', 'a'].map(textDigest))
    expect((await EmbeddingCache.open(dir, identity, '/out')).get(textDigest('b'))).toBeUndefined()

    // The next run's batch (e) cut short by five bytes: its entries are missed, the rest kept, and the file rewritten.
    const grown = await EmbeddingCache.open(dir, identity, '/out')
    for (const t of ['a', 'c', 'd']) grown.get(textDigest(t))
    grown.set(textDigest('e'), vector(2, 2, 2))
    await grown.save()
    const file = readFileSync(fileOf(dir))
    expect(file.length).toBe(header + batch(3) + batch(1))
    writeFileSync(fileOf(dir), file.subarray(0, file.length - 5))
    const cut = await EmbeddingCache.open(dir, identity, '/out')
    expect(cut.get(textDigest('e'))).toBeUndefined()
    for (const t of ['a', 'c', 'd']) expect(cut.get(textDigest(t))).toBeDefined()
    await cut.save()
    expect(statSync(fileOf(dir)).size).toBe(header + batch(3))
    const next = await EmbeddingCache.open(dir, identity, '/out')
    expect(next.get(textDigest('d'))).toEqual(vector(1, 1, 1))
  })

  it('copies the rows of entries that follow each other in the file as they are, around rows set this run', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dp-ec-'))
    const vectors = { a: vector(1, 2, 3), b: vector(-4, 5, 6), c: vector(7, -8, 9), d: vector(0.5, 0, -1) }
    await seeded(dir, vectors)
    const cache = await EmbeddingCache.open(dir, identity, '/out')
    for (const t of ['a', 'b', 'c', 'd']) cache.get(textDigest(t))
    const changed = vector(3, 3, -3)
    cache.set(textDigest('x'), changed)
    const order = ['b', 'c', 'x', 'd', 'a']
    expect(cache.rows(order.map(textDigest))).toEqual(encodeVectorRows([vectors.b, vectors.c, changed, vectors.d, vectors.a], 3))
  })

  it('is separate per index and per model, and a damaged file is an empty cache', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dp-ec-'))
    await seeded(dir, { a: vector(1, 2, 3) })
    expect((await EmbeddingCache.open(dir, identity, '/other')).get(textDigest('a'))).toBeUndefined()
    expect((await EmbeddingCache.open(dir, { ...identity, model: 'static:other' }, '/out')).get(textDigest('a'))).toBeUndefined()

    expect((await EmbeddingCache.open(dir, { ...identity, content: 'rows=0123' }, '/out')).get(textDigest('a'))).toBeUndefined()

    writeFileSync(fileOf(dir), readFileSync(fileOf(dir)).subarray(0, 40))
    const damaged = await EmbeddingCache.open(dir, identity, '/out')
    expect(damaged.get(textDigest('a'))).toBeUndefined()
    damaged.set(textDigest('a'), vector(7, 8, 9))
    await damaged.save()
    expect((await EmbeddingCache.open(dir, identity, '/out')).get(textDigest('a'))).toEqual(vector(7, 8, 9))
  })

  it('reads a batch whose bytes changed in place (its framing intact) as damage: its entries and those after it are missed, the rest kept, and the file rewritten', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dp-ec-'))
    await seeded(dir, { a: vector(1, 2, 3), b: vector(4, 5, 6) })
    const run = await EmbeddingCache.open(dir, identity, '/out')
    for (const t of ['a', 'b']) run.get(textDigest(t))
    run.set(textDigest('c'), vector(7, 8, 9))
    await run.save()
    const header = headerOf(dir)
    const file = readFileSync(fileOf(dir))
    expect(file.length).toBe(header + batch(2) + batch(1))
    // One float of b's vector (the first batch's second entry) changed: a wrong vector, not a shorter file.
    file.writeFloatLE(-4, header + 4 + 2 * 32 + 3 * 4)
    writeFileSync(fileOf(dir), file)
    const damaged = await EmbeddingCache.open(dir, identity, '/out')
    for (const t of ['a', 'b', 'c']) expect(damaged.get(textDigest(t))).toBeUndefined()
    damaged.set(textDigest('b'), vector(4, 5, 6))
    await damaged.save()
    expect(statSync(fileOf(dir)).size).toBe(header + batch(1))
    expect((await EmbeddingCache.open(dir, identity, '/out')).get(textDigest('b'))).toEqual(vector(4, 5, 6))

    // The same for a later batch: the batches before it are kept.
    const grown = await EmbeddingCache.open(dir, identity, '/out')
    grown.get(textDigest('b'))
    grown.set(textDigest('d'), vector(0, 1, 0))
    await grown.save()
    const two = readFileSync(fileOf(dir))
    two[two.length - 5]! ^= 1
    writeFileSync(fileOf(dir), two)
    const later = await EmbeddingCache.open(dir, identity, '/out')
    expect(later.get(textDigest('b'))).toEqual(vector(4, 5, 6))
    expect(later.get(textDigest('d'))).toBeUndefined()
  })

  it("is a miss once the model's content changes under the same id, or the file's rows were encoded by another row codec", async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dp-ec-'))
    const model = { ...identity, content: 'rows=aaaa' }
    const cache = await EmbeddingCache.open(dir, model, '/out')
    cache.set(textDigest('a'), vector(1, 2, 3))
    await cache.save()
    expect((await EmbeddingCache.open(dir, model, '/out')).get(textDigest('a'))).toEqual(vector(1, 2, 3))
    expect((await EmbeddingCache.open(dir, { ...model, content: 'rows=bbbb' }, '/out')).get(textDigest('a'))).toBeUndefined()

    // The same file as written by a codec whose row for the format's fixed vector differs in one byte.
    const file = readFileSync(fileOf(dir))
    const format = file.indexOf('\nrows ', 12, 'latin1') + '\nrows '.length
    expect(format).toBeGreaterThan(12)
    file[format] = file[format] === 0x30 ? 0x31 : 0x30
    writeFileSync(fileOf(dir), file)
    expect((await EmbeddingCache.open(dir, model, '/out')).get(textDigest('a'))).toBeUndefined()
  })
})
