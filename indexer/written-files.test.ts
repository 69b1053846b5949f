import { existsSync, mkdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { describe, expect, it } from 'vitest'
import { tempDirs } from '../fixtures/temp-dirs.ts'
import { fileBelow, WrittenFiles } from './written-files.ts'

const temp = tempDirs('docpilot-written-')

/** One run of the index in `scope` writing `files` (relative path -> text) into `site`. */
async function run(site: string, cacheDir: string | undefined, files: Record<string, string>, scope = '/out'): Promise<number> {
  const written = await WrittenFiles.open(site, cacheDir ? { cacheDir, scope } : undefined)
  for (const [rel, text] of Object.entries(files)) written.write(join(site, rel), text)
  await written.finish()
  return written.written
}

const inode = (file: string) => statSync(file).ino

/** A folder holding an index (what a record's scope names), as far as telling one apart from a deleted one goes. */
function indexFolder(): string {
  const dir = temp()
  writeFileSync(join(dir, 'manifest.json'), '{}')
  return dir
}

describe('files written into a folder the indexer does not own', () => {
  it('a run rewrites only what changed or is no longer as written; without a record, everything', async () => {
    const [site, cache] = [temp(), temp()]
    expect(await run(site, cache, { 'a.md': 'A', 'guide/b.md': 'B', 'guide/c.md': 'C' })).toBe(3)
    const before = inode(join(site, 'guide/b.md'))
    writeFileSync(join(site, 'guide/c.md'), 'changed by hand')
    rmSync(join(site, 'a.md'))
    expect(await run(site, cache, { 'a.md': 'A', 'guide/b.md': 'B', 'guide/c.md': 'C' })).toBe(2)
    expect(inode(join(site, 'guide/b.md'))).toBe(before)
    expect(readFileSync(join(site, 'a.md'), 'utf8')).toBe('A')
    expect(readFileSync(join(site, 'guide/c.md'), 'utf8')).toBe('C')
    expect(await run(site, cache, { 'a.md': 'A', 'guide/b.md': 'B2', 'guide/c.md': 'C' })).toBe(1)
    expect(readFileSync(join(site, 'guide/b.md'), 'utf8')).toBe('B2')
    expect(await run(site, undefined, { 'a.md': 'A', 'guide/b.md': 'B2', 'guide/c.md': 'C' })).toBe(3)
  })

  it('keeps a file made from the same source as last run without hashing its text, and writes one made from another source without comparing', async () => {
    const [site, cache] = [temp(), temp()]
    const write = async (files: Record<string, [text: string, source?: string]>) => {
      const written = await WrittenFiles.open(site, { cacheDir: cache, scope: '/out' })
      for (const [rel, [text, source]] of Object.entries(files)) written.write(join(site, rel), text, source)
      await written.finish()
      return written.written
    }
    expect(await write({ 'a.md': ['A', 'page-a@1'], 'b.md': ['B'] })).toBe(2)
    // Same source: kept as it is, even where the text differs (which a true source never gives): it was not compared.
    expect(await write({ 'a.md': ['A, not looked at', 'page-a@1'], 'b.md': ['B'] })).toBe(0)
    expect(readFileSync(join(site, 'a.md'), 'utf8')).toBe('A')
    // Another source: written, even with the same text.
    expect(await write({ 'a.md': ['A', 'page-a@2'], 'b.md': ['B', 'page-b@1'] })).toBe(2)
    expect(await write({ 'a.md': ['A, not looked at', 'page-a@2'], 'b.md': ['B, not looked at', 'page-b@1'] })).toBe(0)
    writeFileSync(join(site, 'b.md'), 'changed by hand')
    expect(await write({ 'a.md': ['A', 'page-a@2'], 'b.md': ['B', 'page-b@1'] })).toBe(1)
    expect(readFileSync(join(site, 'b.md'), 'utf8')).toBe('B')
    // Without a source, files are compared by digest again: the text on disk is what a source-made file holds.
    expect(await write({ 'a.md': ['A'], 'b.md': ['B'] })).toBe(2)
    expect(await write({ 'a.md': ['A'], 'b.md': ['B'] })).toBe(0)
  })

  it('writes content given in pieces as their bytes one after another, and compares it by those bytes', async () => {
    const [site, cache] = [temp(), temp()]
    // More pieces than one writev call takes on Linux (IOV_MAX, 1024), some of them views into one larger buffer.
    const stored = Buffer.from('<page>')
    const pieces = Array.from({ length: 1500 }, (_, i) => (i % 2 ? Buffer.from(`${i}ü\n`) : stored.subarray(1, -1)))
    const whole = Buffer.concat(pieces)
    const write = async (content: Uint8Array | Uint8Array[], source?: string) => {
      const written = await WrittenFiles.open(site, { cacheDir: cache, scope: '/out' })
      written.write(join(site, 'full.txt'), content, source)
      await written.finish()
      return written.written
    }
    expect(await write(pieces)).toBe(1)
    expect(readFileSync(join(site, 'full.txt'))).toEqual(whole)
    expect(await write(whole)).toBe(0)
    expect(await write([whole.subarray(0, 10), whole.subarray(10)])).toBe(0)
    expect(await write(pieces, 'all pages@1')).toBe(1)
    expect(readFileSync(join(site, 'full.txt'))).toEqual(whole)
    expect(await write([], 'all pages@1')).toBe(0)
  })

  it('removes the files of a run that this run no longer writes, and the folders they leave empty, but nothing else', async () => {
    const [site, cache] = [temp(), temp()]
    await run(site, cache, { 'a.md': 'A', 'old/deep/b.md': 'B', 'mixed/c.md': 'C', 'mixed/d.md': 'D', 'edited.md': 'E' })
    writeFileSync(join(site, 'mixed/owner.txt'), "the owner's file")
    writeFileSync(join(site, 'edited.md'), 'edited since')
    await run(site, cache, { 'a.md': 'A', 'mixed/c.md': 'C' })
    expect(existsSync(join(site, 'old'))).toBe(false)
    expect(existsSync(join(site, 'mixed/d.md'))).toBe(false)
    expect(readFileSync(join(site, 'mixed/owner.txt'), 'utf8')).toBe("the owner's file")
    expect(readFileSync(join(site, 'edited.md'), 'utf8')).toBe('edited since')
    expect(readFileSync(join(site, 'a.md'), 'utf8')).toBe('A')
  })

  it('leaves a file alone whose folder was replaced by a file', async () => {
    const [site, cache] = [temp(), temp()]
    await run(site, cache, { 'a.md': 'A', 'old/b.md': 'B' })
    rmSync(join(site, 'old'), { recursive: true })
    writeFileSync(join(site, 'old'), 'now a file')
    await run(site, cache, { 'a.md': 'A' })
    expect(readFileSync(join(site, 'old'), 'utf8')).toBe('now a file')
  })

  it("two indexes sharing the folder remove none of each other's files, and say they share it", async () => {
    const [site, cache, outA, outB] = [temp(), temp(), indexFolder(), indexFolder()]
    await run(site, cache, { 'a/one.md': 'A1', 'a/two.md': 'A2' }, outA)
    await run(site, cache, { 'b/one.md': 'B1' }, outB)
    const again = await WrittenFiles.open(site, { cacheDir: cache, scope: outA })
    expect(again.sharedWith).toBe(outB)
    again.write(join(site, 'a/one.md'), 'A1')
    await again.finish()
    expect(readFileSync(join(site, 'b/one.md'), 'utf8')).toBe('B1')
    // Its own deleted page's copy stays too: the record of it was the other index's run's to keep.
    expect(readFileSync(join(site, 'a/two.md'), 'utf8')).toBe('A2')
    expect((await WrittenFiles.open(site, { cacheDir: cache, scope: outA })).sharedWith).toBeUndefined()
  })

  it("takes over the record of an index that is gone (its folder deleted, or holding no index), removing the files only it wrote", async () => {
    const [site, cache, old, emptied] = [temp(), temp(), indexFolder(), indexFolder()]
    await run(site, cache, { 'one.md': '1', 'two.md': '2' }, old)
    rmSync(old, { recursive: true })
    const again = await WrittenFiles.open(site, { cacheDir: cache, scope: emptied })
    expect(again.sharedWith).toBeUndefined()
    again.write(join(site, 'one.md'), '1')
    await again.finish()
    expect(again.written).toBe(0)
    expect(existsSync(join(site, 'two.md'))).toBe(false)
    rmSync(join(emptied, 'manifest.json'))
    expect((await WrittenFiles.open(site, { cacheDir: cache, scope: indexFolder() })).sharedWith).toBeUndefined()
  })

  it('names a file below the folder as path.resolve does, and nothing that is not below it', () => {
    for (const rel of ['a.md', 'guide/b c.md', '..b/c.md', 'a//b.md', './a/../b.md', 'a/b/', 'x/.']) {
      expect(fileBelow('/site', rel)).toBe(resolve('/site', rel))
    }
    expect(fileBelow('/', 'a/b.md')).toBe('/a/b.md')
    for (const rel of ['', '.', '..', '../x.md', 'a/../../x.md', '/etc/passwd', '//x']) expect(fileBelow('/site', rel)).toBeUndefined()
  })

  it('knows a file by where it is, however its path is written', async () => {
    const [site, cache] = [temp(), temp()]
    expect(await run(site, cache, { 'guide/a.md': 'A' })).toBe(1)
    const again = await WrittenFiles.open(site, { cacheDir: cache, scope: '/out' })
    again.write(`${site}/./guide/../guide/a.md`, 'A')
    again.write(`${site}//guide//b.md`, 'B')
    await again.finish()
    expect(again.written).toBe(1)
    expect(await run(site, cache, { 'guide/a.md': 'A', 'guide/b.md': 'B' })).toBe(0)
  })

  it('refuses a file outside its folder', async () => {
    const site = temp()
    mkdirSync(join(site, 'in'))
    const written = await WrittenFiles.open(join(site, 'in'), undefined)
    expect(() => written.write(join(site, 'out.md'), 'x')).toThrow(/is outside/)
    expect(() => written.write(join(site, 'in'), 'x')).toThrow(/is outside/)
    expect(() => written.write(`${site}/in/../out.md`, 'x')).toThrow(/is outside/)
  })
})
