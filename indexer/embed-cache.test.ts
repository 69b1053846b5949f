import { mkdtempSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { EmbeddingCache, textDigest } from './embed-cache.ts'

const identity = { id: 'test-embedder', model: 'static:test', dims: 3 }
const vector = (...xs: number[]) => Float32Array.from(xs)
const fileOf = (dir: string) => join(dir, 'embeddings', readdirSync(join(dir, 'embeddings'))[0]!)

async function seeded(dir: string, texts: Record<string, Float32Array>, scope = '/out') {
  const cache = await EmbeddingCache.open(dir, identity, scope)
  for (const [text, v] of Object.entries(texts)) cache.set(textDigest(text), v)
  await cache.save()
}

describe('EmbeddingCache', () => {
  it('gives back the exact float32 values it stored, in a file of 32 bytes of digest and 4 bytes per value per entry', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dp-ec-'))
    const a = vector(0.1, -2.5e-8, 3.4e38)
    const b = vector(Number.MIN_VALUE, -0, 1 / 3)
    await seeded(dir, { a, b })
    const cache = await EmbeddingCache.open(dir, identity, '/out')
    expect(cache.get(textDigest('a'))).toEqual(a)
    expect(Object.is(cache.get(textDigest('b'))![1], -0)).toBe(true)
    expect(cache.get(textDigest('b'))).toEqual(b)
    expect(cache.get(textDigest('c'))).toBeUndefined()
    const header = 16 + Math.ceil(`${identity.id}\n${identity.model}`.length / 4) * 4
    expect(statSync(fileOf(dir)).size).toBe(header + 2 * (32 + 3 * 4))
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

  it('leaves the file alone when a run used every entry and added none, and rewrites it when one was added', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dp-ec-'))
    await seeded(dir, { a: vector(1, 2, 3) })
    const before = statSync(fileOf(dir)).ino
    const same = await EmbeddingCache.open(dir, identity, '/out')
    same.get(textDigest('a'))
    await same.save()
    // save() writes a new file and renames it into place: an untouched file keeps its inode.
    expect(statSync(fileOf(dir)).ino).toBe(before)

    const grown = await EmbeddingCache.open(dir, identity, '/out')
    grown.get(textDigest('a'))
    grown.set(textDigest('b'), vector(4, 5, 6))
    await grown.save()
    expect(statSync(fileOf(dir)).ino).not.toBe(before)
    expect((await EmbeddingCache.open(dir, identity, '/out')).get(textDigest('b'))).toEqual(vector(4, 5, 6))
  })

  it('is separate per index and per model, and a damaged file is an empty cache', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dp-ec-'))
    await seeded(dir, { a: vector(1, 2, 3) })
    expect((await EmbeddingCache.open(dir, identity, '/other')).get(textDigest('a'))).toBeUndefined()
    expect((await EmbeddingCache.open(dir, { ...identity, model: 'static:other' }, '/out')).get(textDigest('a'))).toBeUndefined()

    writeFileSync(fileOf(dir), readFileSync(fileOf(dir)).subarray(0, 40))
    const damaged = await EmbeddingCache.open(dir, identity, '/out')
    expect(damaged.get(textDigest('a'))).toBeUndefined()
    damaged.set(textDigest('a'), vector(7, 8, 9))
    await damaged.save()
    expect((await EmbeddingCache.open(dir, identity, '/out')).get(textDigest('a'))).toEqual(vector(7, 8, 9))
  })
})
