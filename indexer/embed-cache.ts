/**
 * Chunk vectors cached between index runs, keyed by the digest of the exact
 * text embedded, one file per embedder and index (scope), so two indexes built
 * from one cache folder do not evict each other's entries. An unchanged chunk
 * is never sent to the embedder again (for a hosted embedder: never billed again).
 *
 * Each vector is kept with its exact row as the index's vectors file holds
 * it (core/index/vectors.ts), so a re-index copies rows instead
 * of quantizing every vector again.
 *
 * A file serves only the embedder and rows it was written for: its identity
 * names the model's content when the index carries the model (a static
 * model's rows pack, a local model's files, by digest), so a model changed
 * under the same id is a miss, and the row codec by its output for a fixed
 * vector, so rows encoded by another codec are never copied into an index.
 *
 * The file is binary and kept as a journal, so a re-index reads its vectors
 * without parsing and writes only what it embedded: u32 magic, u32 dims,
 * u32 identity bytes, the identity (`embedder id\nmodel\n[content\n]row
 * format`, UTF-8, padded to 4 bytes), then batches of entries: u32 count,
 * their 32-byte text digests, their dims float32 values each, their rows
 * one after another (padded to 4 bytes), then the CRC-32 of all that (u32),
 * little-endian. A batch whose bytes were changed in place (its framing
 * intact) would otherwise give wrong vectors to every later index, and
 * its rows into the index's vectors file: it fails its check instead, and
 * reads as damage (its chunks are embedded again). A run appends one
 * batch of the vectors it embedded; the file is rewritten as one batch of the
 * entries the run used alone, in the order it used them, once unused ones
 * outnumber a quarter of it, or when an append was cut short.
 *
 * Each part of a batch is in one piece so that a re-index, which uses every
 * entry, decodes a batch's digests at once and copies the rows of
 * consecutive chunks (a batch holds them in chunk order) as one range,
 * rather than each record's by itself (astro's 4,064 chunks: embedChunks
 * 24 -> 19 ms of CPU in a one-page re-index).
 */
import { appendFile, mkdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import { crc32 } from 'node:zlib'
import type { EmbedderIdentity } from '../core/index/format.ts'
import { encodeVectorRow, rowBytes } from '../core/index/vectors.ts'
import { cacheFile, replaceFile } from './cache-file.ts'
import { sha256 } from './sha256.ts'

/** "DPE5", little-endian. */
const MAGIC = 0x35455044
const HEADER = 12
/** Bytes of a text digest as the caches made from an embedder's vectors store it. */
export const DIGEST_BYTES = 32
/** Share of unused entries in the file above which a run rewrites it. */
const MAX_UNUSED = 0.25

/** A text's key in the cache. */
export const textDigest = (text: string): string => sha256(text)

export const pad4 = (n: number) => (n + 3) & ~3

/** The row codec's output for a fixed vector: any change to how rows are encoded changes it, no version to remember to bump. */
const ROW_FORMAT = (() => {
  const probe = Float32Array.from({ length: 8 }, (_, i) => Math.sin(i + 1) * (i + 1))
  const row = new Uint8Array(rowBytes(probe.length))
  encodeVectorRow(probe, probe.length, row, 0)
  return `rows ${Buffer.from(row).toString('hex')}`
})()

/** Which embedder a cache file serves. */
export interface CachedEmbedder extends Pick<EmbedderIdentity, 'id' | 'model' | 'dims'> {
  /** The model's content, by digest, when it is known (a local model): vectors from another content are not reused. */
  content?: string
}

/**
 * The file of a `kind` of cache made from this embedder's vectors, for the index `scope`. The model's
 * content goes in the file's header (embedderText), not its name: a changed model rewrites its index's
 * file rather than leaving it behind.
 */
export const embedderCacheFile = (cacheDir: string, kind: string, identity: CachedEmbedder, scope: string): string =>
  cacheFile(cacheDir, kind, `${identity.id}\n${identity.model}\n${scope}`, '.bin')

/** How a cache file's header names the embedder its contents come from and the `format` they are in: a file naming another is not read. */
export const embedderText = ({ id, model, content }: CachedEmbedder, format: string): string => `${id}\n${model}\n${content ? `${content}\n` : ''}${format}`

/** A batch's bytes: its entries, then their CRC-32. */
const batchBytes = (count: number, dims: number) => 4 + count * (DIGEST_BYTES + dims * 4) + pad4(count * rowBytes(dims)) + 4

interface Entry {
  vector: Float32Array
  /** The vector's exact row (rowBytes(dims) bytes): its own bytes (set this run), or where it starts in the file read. */
  row: Uint8Array | number
  /** Whether this run got or set it. */
  used: boolean
}

export class EmbeddingCache {
  private entries = new Map<string, Entry>()
  /** The entries this run got or set, in the order it first did. */
  private usedInOrder: string[] = []
  /** The file as read (4-byte aligned): the rows of the entries it held. */
  private read: Uint8Array = new Uint8Array(0)
  /** Entries in the file as it is, and whether it can be appended to as it is. */
  private stored = 0
  private appendable = false
  /** Entries set this run, in order, for the append. */
  private added: string[] = []

  private constructor(
    private readonly file: string,
    private readonly identity: CachedEmbedder,
    private dims: number,
  ) {}

  /** `scope` names the index the cache serves (its output folder). */
  static async open(cacheDir: string, identity: CachedEmbedder, scope = ''): Promise<EmbeddingCache> {
    const cache = new EmbeddingCache(embedderCacheFile(cacheDir, 'embeddings', identity, scope), identity, identity.dims)
    const bytes = await readFile(cache.file).catch(() => null)
    // A damaged or foreign file is only a slower run: start empty.
    if (bytes) cache.load(bytes)
    return cache
  }

  private header(): Buffer {
    const id = Buffer.from(embedderText(this.identity, ROW_FORMAT))
    const out = Buffer.alloc(HEADER + pad4(id.length))
    out.writeUInt32LE(MAGIC, 0)
    out.writeUInt32LE(this.dims, 4)
    out.writeUInt32LE(id.length, 8)
    id.copy(out, HEADER)
    return out
  }

  private load(bytes: Buffer): void {
    if (bytes.length < HEADER || bytes.readUInt32LE(0) !== MAGIC) return
    const dims = bytes.readUInt32LE(4)
    const header = this.header()
    const start = HEADER + pad4(bytes.readUInt32LE(8))
    if (start !== header.length || !bytes.subarray(HEADER, start).equals(header.subarray(HEADER))) return
    // Float32 views need 4-byte alignment; a buffer that is not aligned is copied once.
    const aligned = bytes.byteOffset % 4 === 0 ? bytes : Buffer.from(bytes)
    let at = start
    let stored = 0
    while (at + 4 <= aligned.length) {
      const count = aligned.readUInt32LE(at)
      const end = at + batchBytes(count, dims)
      // An empty batch, one cut short or one whose bytes changed: damage, left out (with what follows) and written over by the next save.
      if (count === 0 || end > aligned.length || crc32(aligned.subarray(at, end - 4)) !== aligned.readUInt32LE(end - 4)) break
      const digests = aligned.toString('hex', at + 4, at + 4 + count * DIGEST_BYTES)
      const vectorsAt = at + 4 + count * DIGEST_BYTES
      const rowsAt = vectorsAt + count * dims * 4
      for (let i = 0; i < count; i++) {
        this.entries.set(digests.slice(i * 2 * DIGEST_BYTES, (i + 1) * 2 * DIGEST_BYTES), {
          vector: new Float32Array(aligned.buffer, aligned.byteOffset + vectorsAt + i * dims * 4, dims),
          row: rowsAt + i * rowBytes(dims),
          used: false,
        })
      }
      stored += count
      at = end
    }
    this.read = aligned
    this.dims = dims
    this.stored = stored
    this.appendable = at === aligned.length
  }

  get(digest: string): Float32Array | undefined {
    const e = this.entries.get(digest)
    if (!e || (this.dims && e.vector.length !== this.dims)) return undefined
    this.markUsed(digest, e)
    return e.vector
  }

  /**
   * The exact rows of these entries, one after another, each one get() or
   * set() gave this run. Rows that follow each other in the file are copied
   * as one range.
   */
  rows(digests: readonly string[]): Uint8Array {
    const size = rowBytes(this.dims)
    const out = new Uint8Array(digests.length * size)
    // The rows read from the file not copied yet: from..to, to go at `into`.
    let from = 0
    let to = 0
    let into = 0
    for (let i = 0; i < digests.length; i++) {
      const e = this.entries.get(digests[i]!)
      if (!e?.used || e.vector.length !== this.dims) throw new Error(`embedding cache: no ${this.dims}-dimension entry used this run for ${digests[i]}`)
      if (e.row === to && to > from) {
        to += size
        continue
      }
      out.set(this.read.subarray(from, to), into)
      if (typeof e.row === 'number') [from, to, into] = [e.row, e.row + size, i * size]
      else {
        out.set(e.row, i * size)
        from = to = 0
      }
    }
    out.set(this.read.subarray(from, to), into)
    return out
  }

  set(digest: string, v: Float32Array): void {
    if (v.length !== this.dims) this.appendable = false
    this.dims = v.length
    const row = new Uint8Array(rowBytes(v.length))
    encodeVectorRow(v, v.length, row, 0)
    const e = { vector: v, row, used: this.entries.get(digest)?.used ?? false }
    this.entries.set(digest, e)
    this.markUsed(digest, e)
    this.added.push(digest)
  }

  private markUsed(digest: string, e: Entry): void {
    if (!e.used) this.usedInOrder.push(digest)
    e.used = true
  }

  /** These entries as one batch, after `head`. */
  private encode(digests: readonly string[], head: Uint8Array = new Uint8Array(0)): Buffer {
    const { dims } = this
    const out = Buffer.alloc(head.length + batchBytes(digests.length, dims))
    out.set(head)
    out.writeUInt32LE(digests.length, head.length)
    const vectorsAt = head.length + 4 + digests.length * DIGEST_BYTES
    const rowsAt = vectorsAt + digests.length * dims * 4
    digests.forEach((d, i) => {
      const { vector, row } = this.entries.get(d)!
      out.write(d, head.length + 4 + i * DIGEST_BYTES, 'hex')
      out.set(new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength), vectorsAt + i * dims * 4)
      out.set(typeof row === 'number' ? this.read.subarray(row, row + rowBytes(dims)) : row, rowsAt + i * rowBytes(dims))
    })
    out.writeUInt32LE(crc32(out.subarray(head.length, out.length - 4)), out.length - 4)
    return out
  }

  /**
   * Keeps what this run used for the next: appends what it embedded, or
   * writes the used entries alone (atomically) when the file would hold too
   * many it no longer needs.
   */
  async save(): Promise<void> {
    const total = this.stored + this.added.length
    await mkdir(join(this.file, '..'), { recursive: true })
    if (this.appendable && total - this.usedInOrder.length <= total * MAX_UNUSED) {
      if (this.added.length) await appendFile(this.file, this.encode(this.added))
      this.stored = total
    } else {
      const kept = this.usedInOrder.filter((d) => this.entries.get(d)!.vector.length === this.dims)
      await replaceFile(this.file, this.encode(kept, this.header()))
      this.stored = kept.length
      this.appendable = true
    }
    this.added = []
  }
}
