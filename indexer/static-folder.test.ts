import { cpSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, utimesSync, writeFileSync } from 'node:fs'
import { truncate } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it, vi } from 'vitest'
import { DEFAULT_MODEL_DIR } from '../cli/package-root.ts'
import { PackedStaticEmbedder } from '../core/embed/static-packed.ts'
import { openStaticFolder, PREPACKED, writePrepackedRows } from './static-folder.ts'

const tmp = (prefix: string) => mkdtempSync(join(tmpdir(), prefix))
const modelCopy = () => {
  const dir = join(tmp('dp-sf-model-'), 'model')
  cpSync(fileURLToPath(DEFAULT_MODEL_DIR), dir, { recursive: true })
  return dir
}
const rows = async (dir: string, cacheDir: string) => (await openStaticFolder(dir, cacheDir)).rows()
/** The packs the cache holds, by key. */
const packs = (cacheDir: string) => readdirSync(join(cacheDir, 'model-rows')).filter((f) => f.endsWith('.bin')).sort()

describe('a static model folder rows pack in the cache', { timeout: 120_000 }, () => {
  it('is read back while the folder is unchanged, without reading the vocabulary or the table', async () => {
    const model = modelCopy()
    const cacheDir = tmp('dp-sf-cache-')
    const packed = await rows(model, cacheDir)
    const folder = await openStaticFolder(model, cacheDir)
    // Gone after the folder was opened: only a cache hit can still give the rows.
    rmSync(join(model, 'vectors.bin'))
    rmSync(join(model, 'vocab.txt'))
    const cached = await folder.rows()
    expect(cached.packDigest).toBe(packed.packDigest)
    expect(Buffer.from(cached.pack()).equals(Buffer.from(packed.pack()))).toBe(true)
  })

  it('names a cached pack from its digest and directory, and reads its bytes only when asked for them', async () => {
    const model = modelCopy()
    const cacheDir = tmp('dp-sf-cache-')
    const packed = await rows(model, cacheDir)
    const cached = await rows(model, cacheDir)
    expect([cached.packDigest, cached.packBytes]).toEqual([packed.packDigest, packed.packBytes])
    // The run that packed and the run that read back both name the cache's copy, for the index to link.
    expect(packed.file).toBe(join(cacheDir, 'model-rows', packs(cacheDir)[0]!))
    expect(cached.file).toBe(packed.file)
    expect(readFileSync(packed.file!).equals(Buffer.from(packed.pack()))).toBe(true)
    // Rewritten after the rows were named: what pack() gives is read at the ask.
    const [file] = packs(cacheDir)
    const other = Buffer.alloc(cached.packBytes, 7)
    writeFileSync(join(cacheDir, 'model-rows', file!), other)
    expect(Buffer.from(cached.pack()).equals(other)).toBe(true)
  })

  it('keeps the pack in use and the most recently used other; nothing else in the cache folder is touched', async () => {
    const [a, b, c] = [modelCopy(), modelCopy(), modelCopy()]
    const cacheDir = tmp('dp-sf-cache-')
    await rows(a, cacheDir)
    const [packA] = packs(cacheDir)
    writeFileSync(join(cacheDir, 'model-rows', 'notes.txt'), 'mine')
    writeFileSync(join(cacheDir, 'other.bin'), 'mine')
    await rows(b, cacheDir)
    const packB = packs(cacheDir).find((p) => p !== packA)!
    expect(packs(cacheDir)).toEqual([packA, packB].sort())
    await rows(a, cacheDir) // a hit: a is now the most recently used
    await rows(c, cacheDir)
    const kept = packs(cacheDir)
    expect(kept).toHaveLength(2)
    expect(kept).toContain(packA)
    expect(kept).not.toContain(packB)
    expect(readdirSync(join(cacheDir, 'model-rows')).filter((f) => f.startsWith(packB.slice(0, 32)))).toEqual([])
    expect(readdirSync(join(cacheDir, 'model-rows'))).toContain('notes.txt')
    expect(readdirSync(cacheDir)).toContain('other.bin')
  })

  it("marks a pack used without touching the pack file an index links (its stamp stays what the index's record saw)", async () => {
    const model = modelCopy()
    const cacheDir = tmp('dp-sf-cache-')
    await rows(model, cacheDir)
    const [stem] = packs(cacheDir)
    const file = (ext: string) => join(cacheDir, 'model-rows', `${stem!.slice(0, 32)}${ext}`)
    const long = new Date(Date.now() - 60_000)
    for (const ext of ['.bin', '.sha256']) utimesSync(file(ext), long, long)
    const before = statSync(file('.bin'), { bigint: true })
    await rows(model, cacheDir)
    const after = statSync(file('.bin'), { bigint: true })
    expect([after.mtimeNs, after.ctimeNs]).toEqual([before.mtimeNs, before.ctimeNs])
    expect(statSync(file('.sha256')).mtimeMs).toBeGreaterThan(long.getTime() + 1000)
  })

  it("embeds a few texts from their words' buckets in the cached pack, as the whole pack does, and reads it whole for a full batch", async () => {
    const model = modelCopy()
    const cacheDir = tmp('dp-sf-cache-')
    const fresh = await openStaticFolder(model, cacheDir)
    const packed = await fresh.rows()
    const texts = ['How do I set a cookie on the response?', 'Über-fast routing with regex params and 42 wildcards', 'zzqxw qqqzzv', 'the the cookie Cookie COOKIE']
    const expected = await new PackedStaticEmbedder(fresh.descriptor, { pack: packed.pack(), counts: packed.counts }).embed(texts)
    const folder = await openStaticFolder(model, cacheDir)
    const cached = await folder.rows()
    const pack = vi.spyOn(cached, 'pack')
    const few = await folder.embedder.embed(texts)
    expect(pack).not.toHaveBeenCalled()
    texts.forEach((t, i) => expect(Array.from(few[i]!), t).toEqual(Array.from(expected[i]!)))
    const batch = Array.from({ length: 64 }, (_, i) => texts[i % texts.length]!)
    const many = await folder.embedder.embed(batch)
    expect(pack).toHaveBeenCalledTimes(1)
    batch.forEach((t, i) => expect(Array.from(many[i]!), t).toEqual(Array.from(expected[i % texts.length]!)))
  })

  it('packs again, instead of stopping the build, when the cached directory or digest is damaged', async () => {
    const model = modelCopy()
    const cacheDir = tmp('dp-sf-cache-')
    const packed = await rows(model, cacheDir)
    const stem = join(cacheDir, 'model-rows', packs(cacheDir)[0]!.replace(/\.bin$/, ''))
    for (const [ext, damage] of [['.dir.gz', 'not gzip'], ['.sha256', 'not a digest']] as const) {
      const kept = readFileSync(`${stem}${ext}`)
      writeFileSync(`${stem}${ext}`, damage)
      const again = await rows(model, cacheDir)
      expect([again.packDigest, again.held], ext).toEqual([packed.packDigest, true])
      expect(readFileSync(`${stem}${ext}`).equals(kept), `${ext} rewritten`).toBe(true)
    }
  })

  it('stops, naming the file, when the cached pack is cut short while in use, instead of missing its words', async () => {
    const model = modelCopy()
    const cacheDir = tmp('dp-sf-cache-')
    await (await openStaticFolder(model, cacheDir)).rows()
    const folder = await openStaticFolder(model, cacheDir)
    const cached = await folder.rows()
    await truncate(cached.file!, 0)
    await expect(folder.embedder.embed(['How do I set a cookie on the response?'])).rejects.toThrow(cached.file!)
  })
})

describe('a static model folder that carries its rows prepacked (as the package ships the default model)', { timeout: 120_000 }, () => {
  /** A copy of the default model with its rows prepacked, and (unless `keepTable`) without its table. */
  const prepackedCopy = async (keepTable = false) => {
    const model = modelCopy()
    await writePrepackedRows(model, model)
    if (!keepTable) rmSync(join(model, 'vectors.bin'))
    return model
  }

  it("serves the rows the table packs to, links the folder's own pack, and packs nothing into the cache", async () => {
    const packed = await rows(modelCopy(), tmp('dp-sf-cache-'))
    const model = await prepackedCopy()
    const cacheDir = tmp('dp-sf-cache-')
    const ready = await rows(model, cacheDir)
    expect([ready.packDigest, ready.packBytes]).toEqual([packed.packDigest, packed.packBytes])
    expect(Buffer.from(ready.directory).equals(Buffer.from(packed.directory))).toBe(true)
    expect(Buffer.from(ready.pack()).equals(Buffer.from(packed.pack()))).toBe(true)
    expect(ready.file).toBe(join(model, PREPACKED.pack))
    expect(readdirSync(cacheDir)).not.toContain('model-rows')
  })

  it('embeds as the packed table does, a few texts by bucket and a full batch whole', async () => {
    const fresh = await openStaticFolder(modelCopy(), tmp('dp-sf-cache-'))
    const packed = await fresh.rows()
    const texts = ['How do I set a cookie on the response?', 'Über-fast routing with regex params', 'zzqxw qqqzzv']
    const expected = await new PackedStaticEmbedder(fresh.descriptor, { pack: packed.pack(), counts: packed.counts }).embed(texts)
    const folder = await openStaticFolder(await prepackedCopy(), tmp('dp-sf-cache-'))
    const few = await folder.embedder.embed(texts)
    const many = await folder.embedder.embed(Array.from({ length: 64 }, (_, i) => texts[i % texts.length]!))
    texts.forEach((t, i) => expect(Array.from(few[i]!), t).toEqual(Array.from(expected[i]!)))
    many.forEach((v, i) => expect(Array.from(v)).toEqual(Array.from(expected[i % texts.length]!)))
  })

  it('packs from the table instead when the prepacked rows were made by another packing, or are damaged', async () => {
    const packed = await rows(modelCopy(), tmp('dp-sf-cache-'))
    const other = await prepackedCopy(true)
    const about = JSON.parse(readFileSync(join(other, PREPACKED.about), 'utf8')) as Record<string, unknown>
    writeFileSync(join(other, PREPACKED.about), JSON.stringify({ ...about, packing: 'rows-pack-v0 9' }))
    const cut = await prepackedCopy(true)
    await truncate(join(cut, PREPACKED.pack), 4096)
    for (const model of [other, cut]) {
      const cacheDir = tmp('dp-sf-cache-')
      const got = await rows(model, cacheDir)
      expect(got.packDigest).toBe(packed.packDigest)
      expect(got.file).toBe(join(cacheDir, 'model-rows', packs(cacheDir)[0]!))
    }
  })

  it('stops, naming the folder and the fix, when prepacked rows cannot be used and there is no table to pack', async () => {
    const model = await prepackedCopy()
    writeFileSync(join(model, PREPACKED.about), JSON.stringify({ packing: 'rows-pack-v0 9', packSha256: 'x', packBytes: 1 }))
    await expect(openStaticFolder(model, tmp('dp-sf-cache-'))).rejects.toThrow(new RegExp(`model folder ${model}: its rows were packed as "rows-pack-v0 9".*no vectors.bin to pack them from. Reinstall docpilot`))
    const cut = await prepackedCopy()
    rmSync(join(cut, PREPACKED.directory))
    await expect(openStaticFolder(cut, tmp('dp-sf-cache-'))).rejects.toThrow(`model folder ${cut}: its ${PREPACKED.directory} is missing or damaged`)
  })
})
