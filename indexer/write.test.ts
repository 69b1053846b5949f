import { spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readdir, readFile, rm, stat, utimes, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { FORMAT_VERSION, shardFile, type ChunkRecord, type ShardSet } from '../core/index/format.ts'
import { IndexFormatError } from '../core/index/read-manifest.ts'
import { openIndex } from '../core/retrieval/search.ts'
import { fsPartLoader } from './fs-parts.ts'
import { assertNotShrinking, IndexBusyError, MIN_KEPT_SHARE, OutDirError, ShrinkError, writeIndex, type WriteIndexInput } from './write.ts'

function chunk(path: string, title: string, heading: string, text: string, n = 0): ChunkRecord {
  const anchor = heading.toLowerCase().replace(/[^a-z0-9]+/g, '-')
  return { id: n ? `${path}#${anchor}~${n}` : `${path}#${anchor}`, path, url: `/${path.replace(/\.md$/, '')}`, anchor, title, trail: [title, heading], text }
}

const CHUNKS: ChunkRecord[] = [
  chunk('docs/cookie.md', 'Cookie Helper', 'Signed cookies', 'Use setSignedCookie with a secret so the value cannot be tampered with.'),
  chunk('docs/cookie.md', 'Cookie Helper', 'Regular cookies', 'getCookie reads a cookie; setCookie writes one with options such as maxAge.'),
  chunk('docs/cors.md', 'CORS Middleware', 'Options', 'origin, allowMethods and credentials control cross-origin requests.', 2),
  chunk('docs/bun.md', 'Bun', 'Change port number', 'Export an object with a port property to change the port Bun listens on.'),
  { ...chunk('docs/bun.md', 'Bun', 'Intro', 'Bun is a fast JavaScript runtime.'), anchor: '', id: 'docs/bun.md#', trail: ['Bun'] },
]

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'docpilot-write-'))
})
afterEach(() => rm(dir, { recursive: true, force: true }))

const input = (out: string, extra: Partial<WriteIndexInput> = {}): WriteIndexInput => ({
  chunks: CHUNKS,
  files: 3,
  out,
  docpilotVersion: '0.0.0-test',
  createdAt: new Date(0).toISOString(),
  shardSize: 2,
  ...extra,
})

async function snapshot(folder: string): Promise<Record<string, string>> {
  const out: Record<string, string> = {}
  const entries = await readdir(folder, { recursive: true, withFileTypes: true })
  for (const e of entries.filter((e) => e.isFile())) {
    const path = join(e.parentPath, e.name)
    out[path.slice(folder.length + 1)] = (await readFile(path)).toString('base64')
  }
  return Object.fromEntries(Object.entries(out).sort(([a], [b]) => (a < b ? -1 : 1)))
}

describe('writeIndex', () => {
  it('writes byte-identical folders for the same input', async () => {
    await writeIndex(input(join(dir, 'a')))
    await writeIndex(input(join(dir, 'b')))
    const [a, b] = [await snapshot(join(dir, 'a')), await snapshot(join(dir, 'b'))]
    expect(Object.keys(a)).toContain('manifest.json')
    expect(a).toEqual(b)
  })

  it('names parts by their content, each shard by its own', async () => {
    const { manifest } = await writeIndex(input(join(dir, 'idx')))
    expect(manifest.format).toBe(FORMAT_VERSION)
    expect(manifest.corpus).toMatchObject({ files: 3, chunks: 5 })
    const texts = manifest.parts.texts as ShardSet
    expect(texts).toMatchObject({ dir: 'texts', count: 3, per: 2, ext: '.json.gz' })
    expect(texts.tags).toEqual([expect.stringMatching(/^[0-9a-f]{12}$/), expect.stringMatching(/^[0-9a-f]{12}$/), expect.stringMatching(/^[0-9a-f]{12}$/)])
    expect((manifest.parts.postings as ShardSet).dir).toBe('postings')
    expect(String(manifest.parts.lexical)).toMatch(/^lexical\.[0-9a-f]{16}\.json\.gz$/)
    const changed = await writeIndex(input(join(dir, 'idx2'), { chunks: [...CHUNKS.slice(0, 4), { ...CHUNKS[4]!, text: 'changed' }] }))
    // A changed chunk renames its own shard (cached copies of the old one are never reused), and no other.
    const after = changed.manifest.parts.texts as ShardSet
    expect(after.tags.slice(0, 2)).toEqual(texts.tags.slice(0, 2))
    expect(after.tags[2]).not.toBe(texts.tags[2])
    const files = await readdir(join(dir, 'idx2', 'texts'))
    expect(files.sort()).toEqual([0, 1, 2].map((i) => `${i}.${after.tags[i]}.json.gz`))
  })

  it('gives the same chunks the same corpus digest, and another one when any chunk field or the order changes', async () => {
    const digestOf = async (chunks: ChunkRecord[], name: string) => (await writeIndex(input(join(dir, name), { chunks }))).manifest.corpus.digest
    const same = await digestOf(CHUNKS, 'a')
    expect(same).toMatch(/^[0-9a-f]{64}$/)
    expect(await digestOf(CHUNKS.map((c) => ({ ...c })), 'b')).toBe(same)
    const last = CHUNKS[4]!
    const variants: ChunkRecord[][] = [
      ...(['id', 'path', 'url', 'anchor', 'title', 'text'] as const).map((field) => [...CHUNKS.slice(0, 4), { ...last, [field]: `${last[field]}x` }]),
      [...CHUNKS.slice(0, 4), { ...last, trail: [...last.trail, 'More'] }],
      [...CHUNKS.slice(0, 3), CHUNKS[4]!, CHUNKS[3]!],
    ]
    const digests = await Promise.all(variants.map((chunks, i) => digestOf(chunks, `v${i}`)))
    expect(new Set([same, ...digests]).size).toBe(variants.length + 1)
  })

  it('round-trips every chunk field through the parts', async () => {
    await writeIndex(input(join(dir, 'idx')))
    const index = await openIndex(fsPartLoader(join(dir, 'idx')))
    expect(await index.chunks([0, 1, 2, 3, 4])).toEqual(CHUNKS)
  })

  it('leaves the previous index intact when a write fails midway, and no temp folder behind', async () => {
    const out = join(dir, 'idx')
    await writeIndex(input(out))
    const before = await snapshot(out)
    let parts = 0
    const failing = writeIndex(
      input(out, {
        chunks: CHUNKS.map((c) => ({ ...c, text: `${c.text} v2` })),
        onPart: () => {
          if (++parts === 2) throw new Error('disk full')
        },
      }),
    )
    await expect(failing).rejects.toThrow('disk full')
    expect(await snapshot(out)).toEqual(before)
    expect(await readdir(dir)).toEqual(['idx'])
    // A first build that fails leaves no folder.
    await expect(writeIndex(input(join(dir, 'new'), { onPart: () => Promise.reject(new Error('disk full')) }))).rejects.toThrow('disk full')
    expect(await readdir(dir)).toEqual(['idx'])
  })

  it('serves the previous index, whole, until the new manifest names the new parts', async () => {
    const out = join(dir, 'idx')
    await writeIndex(input(out))
    const edited = CHUNKS.map((c) => ({ ...c, text: `${c.text} v2` }))
    const served: ChunkRecord[][] = []
    const onPart = async () => {
      served.push(await (await openIndex(fsPartLoader(out))).chunks([0, 1, 2, 3, 4]))
    }
    await writeIndex(input(out, { chunks: edited, onPart }))
    expect(served.length).toBeGreaterThan(3)
    for (const chunks of served) expect(chunks).toEqual(CHUNKS)
    expect(await (await openIndex(fsPartLoader(out))).chunks([0, 1, 2, 3, 4])).toEqual(edited)
  })

  it('removes what the manifest does not name: parts of a killed run, an older format\'s shard folders, stray files', async () => {
    const out = join(dir, 'idx')
    await writeIndex(input(out))
    await mkdir(join(out, 'texts.0123456789abcdef'))
    await writeFile(join(out, 'texts.0123456789abcdef', '0.json.gz'), 'old format')
    await writeFile(join(out, 'texts', '9.0123456789ab.json.gz'), 'killed run')
    await writeFile(join(out, 'lexical.0123456789abcdef.json.gz.123.tmp'), 'half written')
    await writeIndex(input(out))
    await writeIndex(input(join(dir, 'fresh')))
    expect(await snapshot(out)).toEqual(await snapshot(join(dir, 'fresh')))
  })

  it("stops while another live run writes the same folder, and takes over a killed run's lock and parts", async () => {
    const out = join(dir, 'idx')
    const lock = join(dir, '.idx.lock')
    await writeFile(lock, String(process.ppid))
    await expect(writeIndex(input(out))).rejects.toThrow(IndexBusyError)
    await expect(writeIndex(input(out))).rejects.toThrow(`Another docpilot run (process ${process.ppid}) is writing the index at ${out}.`)
    expect(await readdir(dir)).toEqual(['.idx.lock'])
    // A killed run left its lock and parts but no manifest: the folder is still docpilot's to write.
    await writeFile(lock, String(spawnSync(process.execPath, ['-e', '0']).pid))
    await mkdir(join(out, 'texts'), { recursive: true })
    await writeFile(join(out, 'texts', '7.0123456789ab.json.gz'), 'half')
    await writeIndex(input(out))
    await writeIndex(input(join(dir, 'fresh')))
    expect(await snapshot(out)).toEqual(await snapshot(join(dir, 'fresh')))
    expect(existsSync(lock)).toBe(false)
  })

  it('replaces an old index with a new one', async () => {
    const out = join(dir, 'idx')
    await writeIndex(input(out))
    const { manifest } = await writeIndex(input(out, { chunks: CHUNKS.slice(0, 2) }))
    expect(JSON.parse(await readFile(join(out, 'manifest.json'), 'utf8'))).toEqual(manifest)
    // manifest, lexical head, postings folder, texts folder: nothing of the old index left.
    expect((await readdir(out)).length).toBe(4)
    expect(await readdir(dir)).toEqual(['idx'])
  })

  it.each([
    ['comparing each part with its previous copy', false],
    ['with the record of the parts it stored (part-record.ts)', true],
  ])('re-indexing after a small change keeps the unchanged parts where they were (not rewritten, not recompressed) and writes what a fresh build writes, %s', async (_, recorded) => {
    const out = join(dir, 'idx')
    const cache = recorded ? { cacheDir: join(dir, 'cache') } : {}
    const first = await writeIndex(input(out, cache))
    const firstTexts = first.manifest.parts.texts as ShardSet
    const inode = async (name: string) => (await stat(join(out, name))).ino
    const before = { lexical: await inode(String(first.manifest.parts.lexical)), shards: await Promise.all([0, 1, 2].map((i) => inode(shardFile(firstTexts, i)))) }

    const edited = [...CHUNKS.slice(0, 4), { ...CHUNKS[4]!, text: 'Bun is a fast JavaScript runtime and package manager.' }]
    const second = await writeIndex(input(out, { chunks: edited, ...cache }))
    const texts = second.manifest.parts.texts as ShardSet
    // The chunks of the first two text shards did not change: same files. The third did: a new file.
    expect(await Promise.all([0, 1].map((i) => inode(shardFile(texts, i))))).toEqual(before.shards.slice(0, 2))
    expect(await inode(shardFile(texts, 2))).not.toBe(before.shards[2])
    expect(await inode(String(second.manifest.parts.lexical))).not.toBe(before.lexical)

    const fresh = await writeIndex(input(join(dir, 'fresh'), { chunks: edited }))
    expect(await snapshot(out)).toEqual(await snapshot(join(dir, 'fresh')))
    expect(second.parts).toEqual(fresh.parts)
  })

  it("links a binary part its maker keeps on disk (a static model's rows pack in the cache) instead of writing it again, and writes it when it cannot link", async () => {
    const pack = Buffer.from('the rows pack, named by its content')
    const kept = join(dir, 'kept.bin')
    await writeFile(kept, pack)
    const dense = (file: string): WriteIndexInput['dense'] => ({
      identity: { id: 'test-static', kind: 'local', model: 'test', dims: 4, quantization: 'int8' },
      files: [
        { name: 'codes.0.bits', bytes: new Uint8Array(1) },
        { name: 'vectors.0.i8', bytes: new Uint8Array(4) },
        { name: 'embed-rows.0.bin', size: pack.length, read: () => pack, file },
      ],
      codesPart: 'codes.0.bits',
      vectorsPart: 'vectors.0.i8',
    })
    const linked = join(dir, 'linked')
    await writeIndex(input(linked, { dense: dense(kept) }))
    expect((await stat(join(linked, 'embed-rows.0.bin'))).ino).toBe((await stat(kept)).ino)
    const written = join(dir, 'written')
    await writeIndex(input(written, { dense: dense(join(dir, 'gone.bin')) }))
    expect(await readFile(join(written, 'embed-rows.0.bin'))).toEqual(pack)
    expect(await snapshot(linked)).toEqual(await snapshot(written))
  })

  it("does not read a linked pack again when its stamp changed (the index's copy is the same inode as the cache's)", async () => {
    const pack = Buffer.from('the rows pack, named by its content')
    const kept = join(dir, 'kept.bin')
    await writeFile(kept, pack)
    let reads = 0
    const dense: WriteIndexInput['dense'] = {
      identity: { id: 'test-static', kind: 'local', model: 'test', dims: 4, quantization: 'int8' },
      files: [
        { name: 'codes.0.bits', bytes: new Uint8Array(1) },
        { name: 'vectors.0.i8', bytes: new Uint8Array(4) },
        { name: 'embed-rows.0.bin', size: pack.length, read: () => (reads++, pack), file: kept },
      ],
      codesPart: 'codes.0.bits',
      vectorsPart: 'vectors.0.i8',
    }
    const out = join(dir, 'out')
    const cache = { cacheDir: join(dir, 'cache') }
    await writeIndex(input(out, { dense, ...cache }))
    // Something touched the cache copy (a backup restoring times, say): the record's stamp of the index's copy no longer matches.
    const later = new Date(Date.now() + 5000)
    await utimes(kept, later, later)
    const edited = [...CHUNKS.slice(0, 4), { ...CHUNKS[4]!, text: 'Bun is a fast JavaScript runtime and package manager.' }]
    const second = await writeIndex(input(out, { chunks: edited, dense, ...cache }))
    expect(reads).toBe(0)
    expect((await stat(join(out, 'embed-rows.0.bin'))).ino).toBe((await stat(kept)).ino)
    expect(Buffer.from(await second.loader.bytes('embed-rows.0.bin'))).toEqual(pack)
  })

  it.each([
    ['a later modification time (an edit in place)', false],
    ['its modification time set back (rsync --inplace -t, a precompress step)', true],
  ])('does not take the record on trust: a part rewritten on disk after the run, same size, %s, is written afresh', async (_, mtimeKept) => {
    const out = join(dir, 'idx')
    const cacheDir = join(dir, 'cache')
    const { manifest } = await writeIndex(input(out, { cacheDir }))
    const shard = join(out, shardFile(manifest.parts.texts as ShardSet, 0))
    // A whole second, which utimes sets back exactly, recorded by a second run.
    const stamp = new Date(1_700_000_000_000)
    await utimes(shard, stamp, stamp)
    await writeIndex(input(out, { cacheDir }))
    await writeFile(shard, Buffer.alloc((await stat(shard)).size, 1))
    await utimes(shard, stamp, mtimeKept ? stamp : new Date(Date.now() + 10_000))

    await writeIndex(input(out, { cacheDir }))
    await writeIndex(input(join(dir, 'fresh')))
    expect(await snapshot(out)).toEqual(await snapshot(join(dir, 'fresh')))
  })

  it('refuses to replace a folder that is not an index', async () => {
    const out = join(dir, 'site')
    await mkdir(out)
    await writeFile(join(out, 'index.html'), '<h1>mine</h1>')
    await expect(writeIndex(input(out))).rejects.toThrow(OutDirError)
    expect(await readdir(out)).toEqual(['index.html'])
  })
})

describe('openIndex', () => {
  it('refuses an index of another format version with one clear message', async () => {
    const out = join(dir, 'idx')
    await writeIndex(input(out))
    const manifest = JSON.parse(await readFile(join(out, 'manifest.json'), 'utf8'))
    await writeFile(join(out, 'manifest.json'), JSON.stringify({ ...manifest, format: FORMAT_VERSION + 1, docpilot: '9.0.0' }))
    const opening = openIndex(fsPartLoader(out))
    await expect(opening).rejects.toThrow(IndexFormatError)
    await expect(opening).rejects.toThrow(`This index has format version ${FORMAT_VERSION + 1} (written by docpilot 9.0.0); this docpilot reads format version ${FORMAT_VERSION}. Rebuild it with \`docpilot index\`.`)
  })

  it('searches with the lexical gate and returns passages with their text', async () => {
    await writeIndex(input(join(dir, 'idx')))
    const index = await openIndex(fsPartLoader(join(dir, 'idx')))
    const hit = await index.search('signed cookie secret')
    expect(hit.mode).toBe('lexical')
    expect(hit.gate.pass).toBe(true)
    expect(hit.results[0]).toMatchObject({ path: 'docs/cookie.md', anchor: 'signed-cookies', text: CHUNKS[0]!.text })
    const miss = await index.search('bake sourdough bread')
    expect(miss.gate.pass).toBe(false)
    expect(miss.results).toEqual([])
  })
})

describe('a run never loses a good index by accident', () => {
  it('refuses no chunks, or under half the pages of the index in place, unless told the shrink is deliberate', async () => {
    const out = join(dir, 'idx')
    await writeIndex(input(out, { files: 10 }))
    const before = await snapshot(out)
    expect(MIN_KEPT_SHARE).toBe(0.5)
    await expect(assertNotShrinking(out, { pages: 0, chunks: 0 })).rejects.toThrow(ShrinkError)
    await expect(assertNotShrinking(out, { pages: 0, chunks: 0 })).rejects.toThrow(/No page produced any text to index.*left as it was.*--allow-shrink/)
    await expect(assertNotShrinking(out, { pages: 4, chunks: 9 })).rejects.toThrow(/indexed 4 pages, fewer than 50% of the 10 in the index at .*idx, which is left as it was/)
    await assertNotShrinking(out, { pages: 5, chunks: 9 })
    await assertNotShrinking(out, { pages: 1, chunks: 1, allowShrink: true })
    await assertNotShrinking(join(dir, 'fresh'), { pages: 1, chunks: 1 })
    await expect(assertNotShrinking(join(dir, 'fresh'), { pages: 2, chunks: 0, warnings: 2 })).rejects.toThrow(/so no index was written\. Fix the warnings above/)
    // No warning to fix: the folder or the include patterns are what to check.
    await expect(assertNotShrinking(join(dir, 'fresh'), { pages: 0, chunks: 0 })).rejects.toThrow(/so no index was written\. Check that this is the docs folder you meant/)
    expect(await snapshot(out)).toEqual(before)
  })

  it("removes temp folders of killed runs at the next run, and leaves a live run's alone", async () => {
    const out = join(dir, 'idx')
    const dead = join(dir, '.idx.tmp-999999999-deadbeef')
    const deadOld = join(dir, '.idx.tmp-999999999-deadbeef.old')
    const live = join(dir, `.idx.tmp-${process.pid}-cafe0000`)
    const other = join(dir, '.other.tmp-999999999-deadbeef')
    for (const d of [dead, deadOld, live, other]) await mkdir(d)
    await writeIndex(input(out))
    const left = (await readdir(dir)).sort()
    expect(left).toEqual(['.idx.tmp-' + process.pid + '-cafe0000', '.other.tmp-999999999-deadbeef', 'idx'])
  })
})
