import { mkdtemp, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MANIFEST_FILE, type ChunkRecord } from '../index/format.ts'
import { countingLoader } from '../index/parts.ts'
import { fsPartLoader } from '../../indexer/fs-parts.ts'
import { writeIndex } from '../../indexer/write.ts'
import { reopeningIndex } from './index-cache.ts'

const chunk = (text: string): ChunkRecord => ({ id: 'a.md#', path: 'a.md', url: '/a', anchor: '', title: 'A', trail: ['A'], text })
const write = (out: string, text: string) =>
  writeIndex({ chunks: [chunk(text)], files: 1, out, docpilotVersion: 'test', createdAt: new Date(0).toISOString() })

describe('an index kept by a long-lived server', () => {
  let dir: string
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'docpilot-kept-'))
  })
  afterAll(() => rm(dir, { recursive: true, force: true }))

  it('is opened once, and opened again only when a recheck finds a rebuilt index', async () => {
    const out = join(dir, 'index')
    await write(out, 'the first words')
    let now = 0
    const get = reopeningIndex(fsPartLoader(out), { recheckMs: 1000, now: () => now })
    const first = await get()
    expect(await get()).toBe(first)
    expect((await first.search('first')).results).toHaveLength(1)

    await write(out, 'the second words')
    now = 999
    expect(await get(), 'within the interval the kept index answers').toBe(first)
    now = 1000
    const second = await get()
    expect(second).not.toBe(first)
    expect((await second.search('second')).results).toHaveLength(1)
    now = 5000
    expect(await get(), 'an unchanged manifest keeps the index').toBe(second)
  })

  it('forgets a failed open, so the next request tries again', async () => {
    const out = join(dir, 'later')
    const get = reopeningIndex(fsPartLoader(out), { recheckMs: 60_000 })
    await expect(get()).rejects.toThrow(/manifest\.json/)
    await write(out, 'now it exists')
    expect((await (await get()).search('exists')).results).toHaveLength(1)
  })
})

describe('opening a kept index', () => {
  it('reads manifest.json once: the manifest read to learn the version is the one the index opens with', async () => {
    const out = await mkdtemp(join(tmpdir(), 'docpilot-kept-once-'))
    try {
      await write(out, 'the only words')
      const loader = countingLoader(fsPartLoader(out))
      const get = reopeningIndex(loader, { recheckMs: 60_000 })
      expect((await (await get()).search('words')).results).toHaveLength(1)
      expect(loader.times.get(MANIFEST_FILE)).toBe(1)
    } finally {
      await rm(out, { recursive: true, force: true })
    }
  })
})
