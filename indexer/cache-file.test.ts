import { spawnSync } from 'node:child_process'
import { readdirSync, readFileSync, utimesSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { tempDirs } from '../fixtures/temp-dirs.ts'
import { cacheFile, pruneCache, replaceFile } from './cache-file.ts'

const temp = tempDirs('docpilot-cache-file-')
/** The number of a process that has ended. */
const deadPid = spawnSync(process.execPath, ['-e', '0']).pid

describe('cache files', () => {
  it('names a cache file by a 16-hex digest of its key, in the folder of its kind', () => {
    expect(cacheFile('/c', 'pages', 'a key', '.jsonl')).toMatch(/^\/c\/pages\/[0-9a-f]{16}\.jsonl$/)
    expect(cacheFile('/c', 'pages', 'a key', '.jsonl')).toBe(cacheFile('/c', 'pages', 'a key', '.jsonl'))
    expect(cacheFile('/c', 'pages', 'another key', '.jsonl')).not.toBe(cacheFile('/c', 'pages', 'a key', '.jsonl'))
  })

  it('replaces a file whole, making its folder, and leaves no temporary file beside it', async () => {
    const dir = temp()
    const file = join(dir, 'kind', 'f.bin')
    await replaceFile(file, 'first')
    await replaceFile(file, Uint8Array.of(1, 2, 3))
    expect([...readFileSync(file)]).toEqual([1, 2, 3])
    expect(readdirSync(join(dir, 'kind'))).toEqual(['f.bin'])
  })

  it('prunes the files of every entry but the one in use and the most recently used others, and nothing else', async () => {
    const dir = temp()
    const names = ['a.bin', 'a.idx', 'b.bin', 'b.idx', 'c.bin', `c.bin.${deadPid}.tmp`, 'notes.txt']
    for (const name of names) writeFileSync(join(dir, name), name)
    utimesSync(join(dir, `c.bin.${deadPid}.tmp`), 500, 500)
    utimesSync(join(dir, 'b.bin'), 1000, 1000)
    utimesSync(join(dir, 'c.bin'), 2000, 2000)
    const pruning = { entryOf: (name: string) => /^([abc])\./.exec(name)?.[1], usedFile: (entry: string) => `${entry}.bin` }
    await pruneCache(dir, 'a', { ...pruning, keep: 2 })
    // c is kept, but not the write a dead run left of it: no rename will ever land it.
    expect(readdirSync(dir).sort()).toEqual(['a.bin', 'a.idx', 'c.bin', 'notes.txt'])
    await pruneCache(dir, 'a', { ...pruning, keep: 1 })
    expect(readdirSync(dir).sort()).toEqual(['a.bin', 'a.idx', 'notes.txt'])
  })

  it("removes an old unfinished write of the entry in use whose run is dead, and leaves this run's own and a recent one", async () => {
    const dir = temp()
    const own = `a.bin.${process.pid}.tmp`
    const recent = `a.bin.${deadPid + 1}.tmp`
    for (const name of ['a.bin', own, `a.bin.${deadPid}.tmp`, recent]) writeFileSync(join(dir, name), name)
    utimesSync(join(dir, `a.bin.${deadPid}.tmp`), 500, 500)
    await pruneCache(dir, 'a', { entryOf: (name) => name.split('.')[0], keep: 1, usedFile: (e) => `${e}.bin` })
    // A recent one may be a live writer's in another PID namespace (a cache two containers share): left alone.
    expect(readdirSync(dir).sort()).toEqual(['a.bin', own, recent].sort())
  })

  it("leaves another running build's unfinished write of an entry it prunes, so that build's rename still lands", async () => {
    const dir = temp()
    const running = `b.bin.${process.ppid}.tmp`
    for (const name of ['a.bin', 'b.bin', running, `b.bin.${deadPid}.tmp`]) writeFileSync(join(dir, name), name)
    utimesSync(join(dir, `b.bin.${deadPid}.tmp`), 500, 500)
    await pruneCache(dir, 'a', { entryOf: (name) => name.split('.')[0], keep: 1, usedFile: (e) => `${e}.bin` })
    expect(readdirSync(dir).sort()).toEqual(['a.bin', running])
  })
})
