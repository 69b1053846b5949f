/**
 * A docpilot static model folder at index time. The index serves the model
 * as rows by word (core/index/static-rows.ts) and the indexer pools passages
 * from those same rows, so the vocabulary and the table are read only to
 * pack them. Packing is a pure function of the folder's files, so the pack is
 * kept in the cache, keyed by the descriptor's bytes and the vocabulary's and
 * table's fingerprints (device, inode, size, and modification and change
 * times to the nanosecond: a file rewritten in place with its mtime restored
 * still has a new ctime): a re-index with the model unchanged reads the pack
 * and nothing else of the model. The pack's digest and its served directory
 * are kept beside it, so the re-index neither hashes 17 MB nor compresses the
 * directory again, and the pack itself is read only when asked for: a
 * re-index whose vectors are all cached names it in the index and links the
 * previous index's copy (write.ts) without reading it (about 20 ms of CPU).
 * A pack is ~17 MB and any new key (a model copied again, a new zlib) makes
 * another, so a miss removes all but the last few used.
 */
import { createHash } from 'node:crypto'
import { closeSync, openSync, readFileSync, readSync } from 'node:fs'
import { readFile, stat, utimes } from 'node:fs/promises'
import { join } from 'node:path'
import { gunzipSync, gzipSync } from 'node:zlib'
import { staticIdentity } from '../core/embed/static.ts'
import { staticRows, staticWords, type StaticModelDescriptor } from '../core/embed/static-model.ts'
import { PackedStaticEmbedder } from '../core/embed/static-packed.ts'
import { encodeRowsPack, entryBytes, WORDS_PER_BUCKET, type RowsPack } from '../core/index/static-rows.ts'
import type { Embedder } from '../core/embed/types.ts'
import type { EmbedderIdentity } from '../core/index/format.ts'
import { EmbedConfigError, modelFile, modelFileStat } from './model-files.ts'
import { fileStamp } from './read-source.ts'
import { pruneCache, replaceFile } from './cache-file.ts'
import { sha256 } from './sha256.ts'

const NEEDS = 'a docpilot static model folder holds model.json, vocab.txt and vectors.bin (scripts/models/distill.ts writes one).'

/** The rows pack with what naming and serving it needs. */
export interface ServedRows {
  /** The pack's SHA-256, hex. */
  packDigest: string
  /** Its size in bytes. */
  packBytes: number
  /** The pack (RowsPack['pack']), read from the cache at the first call when it comes from there. */
  pack(): Uint8Array
  /** Whether pack() costs no read: a pack made this run, held in memory. */
  held: boolean
  /** The cache's copy of the pack, when there is one: the index links it instead of writing 17 MB again. */
  file?: string
  /** Entries per bucket (RowsPack['counts']). */
  counts: Uint8Array
  /** The directory as served: the counts, gzip-compressed. */
  directory: Uint8Array
}

export interface StaticFolder {
  descriptor: StaticModelDescriptor
  /** model.json as it is, the one model file the index carries whole. */
  descriptorBytes: Uint8Array
  /** The model's rows, packed by word (read from the cache when the folder is unchanged). Read once per run. */
  rows(): Promise<ServedRows>
  /** Pools passages from the rows pack, read at the first text. */
  embedder: Embedder
}

/** Opens a static model folder: reads its descriptor, checks its other files are there, reads nothing else yet. */
export async function openStaticFolder(dir: string, cacheDir?: string): Promise<StaticFolder> {
  const descriptorBytes = await modelFile(dir, 'model.json', NEEDS)
  let descriptor: StaticModelDescriptor
  try {
    descriptor = JSON.parse(new TextDecoder().decode(descriptorBytes)) as StaticModelDescriptor
  } catch (err) {
    throw new EmbedConfigError(`model file ${join(dir, 'model.json')} is not JSON (${err instanceof Error ? err.message : String(err)})`)
  }
  const prepacked = await prepackedRows(dir, descriptor)
  if (typeof prepacked === 'string') {
    await modelFileStat(dir, descriptor.files.vectors, NEEDS).catch(() => {
      throw new EmbedConfigError(`model folder ${dir}: ${prepacked}, and it holds no ${descriptor.files.vectors} to pack them from. Reinstall docpilot if this is its default model, else rebuild the folder.`)
    })
  }
  const ready = typeof prepacked === 'object' ? prepacked : undefined
  const tables = ready ? [descriptor.files.vocab] : [descriptor.files.vocab, descriptor.files.vectors]
  await Promise.all(tables.map((name) => modelFileStat(dir, name, NEEDS)))
  let rows: Promise<ServedRows> | undefined
  const folder = { dir, descriptor, descriptorBytes, stamps: tables.map((name) => fileStamp(join(dir, name))), cacheDir }
  const read = () => (rows ??= ready ? Promise.resolve(ready) : cachedRows(folder))
  return { descriptor, descriptorBytes, rows: read, embedder: new RowsPackEmbedder(descriptor, read) }
}

/**
 * A folder may carry its rows pack made beforehand, as docpilot's package
 * does for its default model (scripts/ship-models.ts): a first build, or any
 * build with a fresh cache, then links the pack into the index instead of
 * reading the 16 MB table, packing it and hashing the pack (about 0.2 s of
 * CPU: docs/embeddings.md, "The embedding cache"). The files are the cache's three, under these
 * names; rows.json says which packing made them, so a pack made by another
 * docpilot version is never served as this one's.
 */
export const PREPACKED = { pack: 'rows.bin', directory: 'rows.dir.gz', about: 'rows.json' } as const

/** What a rows pack's bytes depend on besides the model: the entry layout and the bucket count. */
const PACKING = `rows-pack-v3 ${WORDS_PER_BUCKET}`

interface PrepackedAbout {
  packing: string
  packSha256: string
  packBytes: number
}

/** The folder's prepacked rows; undefined when it has none; a string saying why when they cannot be used. */
async function prepackedRows(dir: string, descriptor: StaticModelDescriptor): Promise<ServedRows | string | undefined> {
  let about: PrepackedAbout
  try {
    about = JSON.parse(await readFile(join(dir, PREPACKED.about), 'utf8')) as PrepackedAbout
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'ENOENT' ? undefined : `its ${PREPACKED.about} cannot be read (${err instanceof Error ? err.message : String(err)})`
  }
  if (about.packing !== PACKING) return `its rows were packed as "${String(about.packing)}", and this docpilot packs them as "${PACKING}"`
  const file = join(dir, PREPACKED.pack)
  const [size, directory] = await Promise.all([stat(file).then((s) => s.size, () => -1), readFile(join(dir, PREPACKED.directory)).catch(() => undefined)])
  const rows = about.packBytes === size ? storedRows(descriptor, { file, size, directory, digest: String(about.packSha256) }) : 'size'
  if (typeof rows === 'object') return rows
  return {
    size: `its ${PREPACKED.pack} or ${PREPACKED.about} does not hold ${descriptor.vocabSize} rows of ${descriptor.dims} dimensions`,
    directory: `its ${PREPACKED.directory} is missing or damaged`,
    buckets: `its ${PREPACKED.directory} does not match its vocabulary size`,
  }[rows]
}

/** What is wrong with a stored pack: its size or digest, its directory's bytes, or its directory's length. */
type StoredFault = 'size' | 'directory' | 'buckets'

/**
 * A pack stored in `file` (the cache's, or a prepacked folder's), with its
 * directory and digest, checked against the model it says it packs. The
 * pack's bytes are read at the first call for them.
 */
function storedRows(descriptor: StaticModelDescriptor, stored: { file: string; size: number; directory: Buffer | undefined; digest: string }): ServedRows | StoredFault {
  if (stored.size !== descriptor.vocabSize * entryBytes(descriptor.dims) || !/^[0-9a-f]{64}$/.test(stored.digest)) return 'size'
  let counts: Buffer
  try {
    counts = gunzipSync(stored.directory ?? new Uint8Array())
  } catch {
    return 'directory'
  }
  if (counts.length !== bucketsOf(descriptor)) return 'buckets'
  let bytes: Uint8Array | undefined
  return { packDigest: stored.digest, packBytes: stored.size, pack: () => (bytes ??= toBytes(readFileSync(stored.file))), held: false, file: stored.file, counts: toBytes(counts), directory: toBytes(stored.directory!) }
}

/**
 * Writes the rows pack of the static model folder `dir` into `out` as a
 * prepacked folder carries it (PREPACKED). The table itself is then not
 * needed to index: the package leaves it out.
 */
export async function writePrepackedRows(dir: string, out: string): Promise<void> {
  const folder = await openStaticFolder(dir)
  const rows = await folder.rows()
  const about: PrepackedAbout = { packing: PACKING, packSha256: rows.packDigest, packBytes: rows.packBytes }
  await replaceFile(join(out, PREPACKED.pack), rows.pack())
  await replaceFile(join(out, PREPACKED.directory), rows.directory)
  await replaceFile(join(out, PREPACKED.about), `${JSON.stringify(about, null, 2)}\n`)
}

const bucketsOf = (descriptor: StaticModelDescriptor) => Math.max(1, Math.ceil(descriptor.vocabSize / WORDS_PER_BUCKET))

/**
 * Texts per call from which the whole pack is read: a full batch (embed.ts's
 * BATCH), so more are likely to follow. Fewer (a re-index's changed pages)
 * read only their words' buckets from the cached pack, as a reader does: a
 * few hundred small reads instead of 17 MB.
 */
const WHOLE_PACK_TEXTS = 64

class RowsPackEmbedder implements Embedder {
  readonly identity: EmbedderIdentity
  private whole: PackedStaticEmbedder | undefined
  private byBucket: { embedder: PackedStaticEmbedder; file: { fd: number; path: string } } | undefined

  constructor(
    private readonly descriptor: StaticModelDescriptor,
    private readonly rows: () => Promise<ServedRows>,
  ) {
    this.identity = staticIdentity(descriptor)
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    const rows = await this.rows()
    if (this.whole || texts.length >= WHOLE_PACK_TEXTS || !rows.file) {
      this.whole ??= new PackedStaticEmbedder(this.descriptor, { pack: rows.pack(), counts: rows.counts })
      return this.whole.embed(texts)
    }
    if (!this.byBucket) {
      const file = { fd: -1, path: rows.file }
      this.byBucket = { file, embedder: new PackedStaticEmbedder(this.descriptor, { counts: rows.counts, read: (start, end) => readAt(file, start, end) }) }
    }
    // Open for this call only: the embedder may outlive the run's last text. Closed by its own number, so
    // an overlapping call (each reads synchronously inside embed) never closes another's.
    const { file, embedder } = this.byBucket
    const fd = openSync(file.path, 'r')
    file.fd = fd
    try {
      return await embedder.embed(texts)
    } finally {
      closeSync(fd)
    }
  }
}

/** Bytes start..end of the open pack; fewer means the file changed since its size was checked, and a row would be missed. */
function readAt(file: { fd: number; path: string }, start: number, end: number): Uint8Array {
  const out = new Uint8Array(end - start)
  const read = out.length && readSync(file.fd, out, 0, out.length, start)
  if (read !== out.length) throw new EmbedConfigError(`The cached model rows ${file.path} ended at byte ${start + read}, before ${end}: it changed while in use. Delete it and run again.`)
  return out
}

interface FolderState {
  dir: string
  descriptor: StaticModelDescriptor
  descriptorBytes: Uint8Array
  /** The vocabulary's and the table's fileStamp (undefined: not a regular file, which packing reports). */
  stamps: (string | undefined)[]
  cacheDir: string | undefined
}

async function cachedRows(folder: FolderState): Promise<ServedRows> {
  const { descriptor, cacheDir } = folder
  if (!cacheDir) return served(await packRows(folder))
  // The zlib version is in the key: the cached directory must be the bytes this run would compress.
  const key = createHash('sha256').update(`${PACKING} zlib ${process.versions.zlib}\0`).update(folder.descriptorBytes)
  for (const stamp of folder.stamps) key.update(`\0${stamp}`)
  const stem = key.digest('hex').slice(0, 32)
  const cached = join(cacheDir, 'model-rows', stem)
  // A damaged cache (a pack of the wrong size, a directory that is not gzip) is packed again.
  const stored = await Promise.all([stat(`${cached}.bin`), readFile(`${cached}.dir.gz`), readFile(`${cached}.sha256`, 'utf8')]).then(
    ([pack, directory, digest]) => storedRows(descriptor, { file: `${cached}.bin`, size: pack.size, directory, digest }),
    () => undefined,
  )
  if (typeof stored === 'object') {
    // Marks the pack used, for the pruning of another run's miss: on its digest file, since an index's copy of
    // the pack is a link to the .bin (same inode), whose stamp must stay what the index's part record saw.
    await utimes(`${cached}.sha256`, new Date(), new Date()).catch(() => {})
    return stored
  }
  const rows = served(await packRows(folder))
  // An unwritable cache only costs the next run the packing (and this one a second write of the pack).
  const saved = await saveRows(cached, rows).then(() => true, () => false)
  await pruneRows(join(cacheDir, 'model-rows'), stem).catch(() => {})
  return saved ? { ...rows, file: `${cached}.bin` } : rows
}

/** Packs kept in the cache: the one in use and the most recently used other (two models built from one cache take turns). */
const KEPT_PACKS = 2
const PACK_FILE = /^([0-9a-f]{32})\.(?:bin|dir\.gz|sha256)(?:\.\d+\.tmp)?$/

/** Removes the files of every pack in `dir` but `inUse` and the most recently used others, and nothing that is not a pack's. */
const pruneRows = (dir: string, inUse: string) =>
  pruneCache(dir, inUse, { entryOf: (name) => PACK_FILE.exec(name)?.[1], keep: KEPT_PACKS, usedFile: (stem) => `${stem}.sha256` })

const toBytes = (b: Buffer) => new Uint8Array(b.buffer, b.byteOffset, b.byteLength)

function served({ pack, counts }: RowsPack): ServedRows {
  return { packDigest: sha256(pack), packBytes: pack.length, pack: () => pack, held: true, counts, directory: gzipSync(counts, { level: 9 }) }
}

async function packRows({ dir, descriptor }: FolderState): Promise<RowsPack> {
  const [vocab, vectors] = await Promise.all([modelFile(dir, descriptor.files.vocab, NEEDS), modelFile(dir, descriptor.files.vectors, NEEDS)])
  try {
    const words = staticWords(descriptor, new TextDecoder().decode(vocab), join(dir, descriptor.files.vocab))
    return encodeRowsPack(staticRows(descriptor, vectors, join(dir, descriptor.files.vectors)), words)
  } catch (err) {
    throw new EmbedConfigError(`${err instanceof Error ? err.message : String(err)}. Rebuild or re-copy the model folder ${dir}.`)
  }
}

/** Writes the served rows to the cache (each file renamed into place, so a killed run leaves no half file). */
async function saveRows(path: string, rows: ServedRows): Promise<void> {
  for (const [ext, bytes] of [['.bin', rows.pack()], ['.dir.gz', rows.directory], ['.sha256', rows.packDigest]] as const) await replaceFile(`${path}${ext}`, bytes)
}
