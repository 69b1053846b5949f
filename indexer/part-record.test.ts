import { mkdtemp, readdir, rm, utimes, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { PartRecord } from './part-record.ts'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'docpilot-part-record-'))
})
afterEach(() => rm(dir, { recursive: true, force: true }))

/** A run that stored part `a.json.gz` holding content `digest-a` in the index at `out`. */
async function recordedRun(out: string, cacheDir: string): Promise<string> {
  const part = join(out, 'a.json.gz')
  await writeFile(part, 'stored bytes')
  const record = await PartRecord.open(cacheDir, out)
  await record.keep('a.json.gz', part, 'digest-a')
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

  it('records only what the run kept or carried over: a part of the old index the new one dropped is forgotten', async () => {
    const cacheDir = join(dir, 'cache')
    const part = await recordedRun(dir, cacheDir)
    const second = await PartRecord.open(cacheDir, dir)
    second.carry('renamed.json.gz', 'a.json.gz')
    await second.save()
    const third = await PartRecord.open(cacheDir, dir)
    expect(await third.unchanged('renamed.json.gz', part, 'digest-a')).toBe('stored bytes'.length)
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
