import { describe, expect, it } from 'vitest'
import { gunzipSync, gzipSync } from 'node:zlib'
import { countingLoader, memoryPartLoader, PartMissingError, readJsonPart, readRange, sharedPartsLoader, type PartLoader } from './parts.ts'

/** A loader over in-memory parts that counts how often each part is read. */
function memoryLoader(parts: Record<string, number[]>) {
  const readsOf = new Map<string, number>()
  const loader: PartLoader = {
    async bytes(name) {
      readsOf.set(name, (readsOf.get(name) ?? 0) + 1)
      const part = parts[name]
      if (!part) throw new PartMissingError(name)
      return Uint8Array.from(part)
    },
  }
  return { loader, readsOf }
}

describe('sharedPartsLoader', () => {
  it('reads each part once for every reader and range', async () => {
    const { loader, readsOf } = memoryLoader({ a: [1, 2, 3, 4, 5], b: [9] })
    const shared = sharedPartsLoader(loader)
    expect([...(await shared.bytes('a'))]).toEqual([1, 2, 3, 4, 5])
    expect([...(await shared.range('a', 1, 3))]).toEqual([2, 3])
    expect([...(await shared.bytes('b'))]).toEqual([9])
    expect([...(await shared.bytes('a'))]).toEqual([1, 2, 3, 4, 5])
    expect(Object.fromEntries(readsOf)).toEqual({ a: 1, b: 1 })
  })

  it('gives what a part has when a range runs past its end, as a range read does', async () => {
    const shared = sharedPartsLoader(memoryLoader({ a: [1, 2, 3] }).loader)
    expect([...(await shared.range('a', 2, 10))]).toEqual([3])
  })

  it('does not keep a failed read: the next reader asks again', async () => {
    const { loader, readsOf } = memoryLoader({})
    const shared = sharedPartsLoader(loader)
    await expect(shared.bytes('gone')).rejects.toThrow(PartMissingError)
    await expect(shared.bytes('gone')).rejects.toThrow(PartMissingError)
    expect(readsOf.get('gone')).toBe(2)
  })

  it('decodes each JSON part once for every reader, and each reader still counts it as read, at its stored size', async () => {
    const stored = [...gzipSync(JSON.stringify({ terms: ['cookie', 'signed'] }))]
    const { loader, readsOf } = memoryLoader({ 'head.json.gz': stored })
    const shared = sharedPartsLoader(loader)
    const first = countingLoader(shared)
    const second = countingLoader(shared)
    const a = await readJsonPart<{ terms: string[] }>(first, 'head.json.gz')
    const b = await readJsonPart<{ terms: string[] }>(second, 'head.json.gz')
    expect(a).toEqual({ terms: ['cookie', 'signed'] })
    expect(b).toBe(a)
    expect(readsOf.get('head.json.gz')).toBe(1)
    expect(Object.fromEntries(first.reads)).toEqual({ 'head.json.gz': stored.length })
    expect(Object.fromEntries(second.reads)).toEqual({ 'head.json.gz': stored.length })
  })

  it('decodes with the gunzip it is given', async () => {
    const stored = [...gzipSync(JSON.stringify(['cookie']))]
    const seen: number[] = []
    const shared = sharedPartsLoader(memoryLoader({ 'a.json.gz': stored }).loader, (gz) => {
      seen.push(gz.length)
      return gunzipSync(gz)
    })
    expect(await readJsonPart(shared, 'a.json.gz')).toEqual(['cookie'])
    expect(seen).toEqual([stored.length])
  })

  it('leaves counting to each reader: every counting loader sees its own reads', async () => {
    const shared = sharedPartsLoader(memoryLoader({ a: [1, 2, 3, 4], b: [5, 6] }).loader)
    const first = countingLoader(shared)
    const second = countingLoader(shared)
    await first.bytes('a')
    await second.bytes('b')
    await readRange(second, 'a', 0, 2)
    expect(Object.fromEntries(first.reads)).toEqual({ a: 4 })
    expect(Object.fromEntries(second.reads)).toEqual({ b: 2, 'a#0-2': 2 })
  })
})

describe('memoryPartLoader', () => {
  it('serves the parts it holds, whole and by range, and reads the others through its fallback', async () => {
    const { loader, readsOf } = memoryLoader({ b: [7, 8, 9] })
    const parts = memoryPartLoader(new Map([['a', Uint8Array.from([1, 2, 3, 4])]]), loader)
    expect([...(await parts.bytes('a'))]).toEqual([1, 2, 3, 4])
    expect([...(await readRange(parts, 'a', 1, 3))]).toEqual([2, 3])
    expect([...(await readRange(parts, 'b', 1, 9))]).toEqual([8, 9])
    expect(Object.fromEntries(readsOf)).toEqual({ b: 1 })
    await expect(parts.bytes('gone')).rejects.toThrow(PartMissingError)
  })
})

/** A loader whose reads finish only when the test lets them, in the order it chooses. */
function gatedLoader() {
  const waiting = new Map<string, () => void>()
  const loader: PartLoader = {
    bytes: (name) => new Promise((done) => waiting.set(name, () => done(new Uint8Array(name.length)))),
  }
  const finish = (name: string) => {
    waiting.get(name)!()
    waiting.delete(name)
  }
  return { loader, finish, waiting }
}

describe('countingLoader.settled', () => {
  it('waits for reads started and not awaited, including reads they lead to, and counts them', async () => {
    const { loader, finish, waiting } = gatedLoader()
    const counting = countingLoader(loader)
    // A reader that fires a read and moves on; when it lands, it reads another part.
    void counting.bytes('directory').then(() => counting.bytes('rows-of-a-word'))
    let settled = false
    const done = counting.settled().then(() => (settled = true))
    await new Promise((next) => setTimeout(next, 0))
    expect(settled).toBe(false)
    finish('directory')
    await new Promise((next) => setTimeout(next, 0))
    expect(settled).toBe(false)
    expect([...waiting.keys()]).toEqual(['rows-of-a-word'])
    finish('rows-of-a-word')
    await done
    expect(Object.fromEntries(counting.reads)).toEqual({ directory: 9, 'rows-of-a-word': 14 })
  })

  it('settles at once with nothing in flight, and after a failed read', async () => {
    const counting = countingLoader(memoryLoader({ a: [1] }).loader)
    await counting.settled()
    await expect(counting.bytes('gone')).rejects.toThrow(PartMissingError)
    await counting.settled()
    expect([...counting.reads.keys()]).toEqual([])
  })
})

describe('readJsonPart', () => {
  it('names a part that does not decode, and the fix', async () => {
    const damaged = { bytes: async () => new TextEncoder().encode('garbage\n') }
    await expect(readJsonPart(damaged, 'lexical.0a1b.json.gz')).rejects.toThrow(/^index part lexical\.0a1b\.json\.gz is damaged \(.*\)\. Rebuild the index with `docpilot index`\.$/s)
    // A truncated gzip fails in the gunzip, not the parser: the same message.
    const truncated = { bytes: async () => new Uint8Array(gzipSync(JSON.stringify({ terms: ['cookie'] })).subarray(0, 12)) }
    await expect(readJsonPart(truncated, 'texts/0.ab.json.gz')).rejects.toThrow(/^index part texts\/0\.ab\.json\.gz is damaged/)
  })
})
