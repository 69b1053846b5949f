import { link, mkdtemp, readdir, rm, stat, utimes, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { PartRecord } from './part-record.ts'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'docpilot-part-record-'))
})
afterEach(() => rm(dir, { recursive: true, force: true }))

/** A run that stored part `a.json.gz` holding content `digest-a` in the index at `out` (its mtime set to `mtime` s, when given). */
async function recordedRun(out: string, cacheDir: string, mtime?: number): Promise<string> {
  const part = join(out, 'a.json.gz')
  await writeFile(part, 'stored bytes')
  if (mtime !== undefined) await utimes(part, mtime, mtime)
  const record = await PartRecord.open(cacheDir, out)
  record.keep('a.json.gz', 'digest-a', 'stored bytes'.length)
  await record.save()
  return part
}

describe('PartRecord', () => {
  it('vouches for a part the last run stored, with its stored size, when asked for the same content', async () => {
    const cacheDir = join(dir, 'cache')
    const part = await recordedRun(dir, cacheDir)
    const next = await PartRecord.open(cacheDir, dir)
    expect(await next.unchanged('a.json.gz', part, 'digest-a')).toBe('stored bytes'.length)
    expect(await next.unchanged('a.json.gz', part, 'digest-b')).toBeUndefined()
    expect(await next.unchanged('b.json.gz', part, 'digest-a')).toBeUndefined()
  })

  it('keeps one record per index folder', async () => {
    const cacheDir = join(dir, 'cache')
    const part = await recordedRun(dir, cacheDir)
    expect(await (await PartRecord.open(cacheDir, join(dir, 'other'))).unchanged('a.json.gz', part, 'digest-a')).toBeUndefined()
  })

  it('does not vouch for a file changed since, or gone', async () => {
    const cacheDir = join(dir, 'cache')
    const part = await recordedRun(dir, cacheDir)
    await utimes(part, new Date(), new Date(Date.now() + 10_000))
    expect(await (await PartRecord.open(cacheDir, dir)).unchanged('a.json.gz', part, 'digest-a')).toBeUndefined()
    await rm(part)
    expect(await (await PartRecord.open(cacheDir, dir)).unchanged('a.json.gz', part, 'digest-a')).toBeUndefined()
  })

  it('does not vouch for a part rewritten in place with its size and mtime kept (rsync --inplace -t)', async () => {
    const cacheDir = join(dir, 'cache')
    // A whole second: what utimes sets back exactly (a Date or a float loses the mtime's sub-millisecond part).
    const mtime = Math.floor(Date.now() / 1000) - 60
    const part = await recordedRun(dir, cacheDir, mtime)
    await writeFile(part, 'CORRUPT byte')
    await utimes(part, mtime, mtime)
    expect((await stat(part, { bigint: true })).mtimeNs).toBe(BigInt(mtime) * 1_000_000_000n)
    expect(await (await PartRecord.open(cacheDir, dir)).unchanged('a.json.gz', part, 'digest-a')).toBeUndefined()
  })

  it('vouches for a part the next run left in place, on the stamp it was recorded with', async () => {
    const cacheDir = join(dir, 'cache')
    const part = await recordedRun(dir, cacheDir)
    const second = await PartRecord.open(cacheDir, dir)
    expect(second.unchanged('a.json.gz', part, 'digest-a')).toBe('stored bytes'.length)
    second.carry('a.json.gz', 'a.json.gz')
    await second.save()
    expect((await PartRecord.open(cacheDir, dir)).unchanged('a.json.gz', part, 'digest-a')).toBe('stored bytes'.length)
    // Changed after the run looked at it: the stamp carried over is the old one, so the next run does not vouch.
    const third = await PartRecord.open(cacheDir, dir)
    expect(third.unchanged('a.json.gz', part, 'digest-a')).toBe('stored bytes'.length)
    third.carry('a.json.gz', 'a.json.gz')
    await writeFile(part, 'CORRUPT byte')
    await third.save()
    expect((await PartRecord.open(cacheDir, dir)).unchanged('a.json.gz', part, 'digest-a')).toBeUndefined()
  })

  it('writes the record again only when it changed', async () => {
    const cacheDir = join(dir, 'cache')
    const part = await recordedRun(dir, cacheDir)
    const [file] = await readdir(join(cacheDir, 'parts'))
    const inode = async () => (await stat(join(cacheDir, 'parts', file!))).ino
    const before = await inode()
    const second = await PartRecord.open(cacheDir, dir)
    expect(second.unchanged('a.json.gz', part, 'digest-a')).toBeDefined()
    second.carry('a.json.gz', 'a.json.gz')
    await second.save()
    expect(await inode()).toBe(before)
    const third = await PartRecord.open(cacheDir, dir)
    third.keep('a.json.gz', 'digest-b', 3)
    await third.save()
    expect(await inode()).not.toBe(before)
  })

  it('records only what the run kept or carried over: a part of the old index the new one dropped is forgotten', async () => {
    const cacheDir = join(dir, 'cache')
    const part = await recordedRun(dir, cacheDir)
    const second = await PartRecord.open(cacheDir, dir)
    const renamed = join(dir, 'renamed.json.gz')
    await link(part, renamed)
    second.carry('renamed.json.gz', 'a.json.gz')
    await second.save()
    const third = await PartRecord.open(cacheDir, dir)
    expect(await third.unchanged('renamed.json.gz', renamed, 'digest-a')).toBe('stored bytes'.length)
    expect(await third.unchanged('a.json.gz', part, 'digest-a')).toBeUndefined()
  })

  it('treats a damaged record as no record', async () => {
    const cacheDir = join(dir, 'cache')
    const part = await recordedRun(dir, cacheDir)
    const [file] = await readdir(join(cacheDir, 'parts'))
    await writeFile(join(cacheDir, 'parts', file!), '{"a.json.gz": ')
    expect(await (await PartRecord.open(cacheDir, dir)).unchanged('a.json.gz', part, 'digest-a')).toBeUndefined()
  })
})
