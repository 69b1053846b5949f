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
 * format`, UTF-8, padded to 4 bytes), then records of a 32-byte text digest, dims float32 values and
 * the row (padded to 4 bytes), little-endian. A run appends the vectors it embedded; the file is
 * rewritten with the entries the run used alone once unused ones outnumber
 * a quarter of it, or when an append was cut short.
 */
import { appendFile, mkdir, readFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { EmbedderIdentity } from '../core/index/format.ts'
import { encodeVectorRow, rowBytes } from '../core/index/vectors.ts'
import { cacheFile, replaceFile } from './cache-file.ts'
import { sha256 } from './sha256.ts'

/** "DPE3", little-endian. */
const MAGIC = 0x33455044
const HEADER = 12
const DIGEST_BYTES = 32
/** Share of unused records in the file above which a run rewrites it. */
const MAX_UNUSED = 0.25

/** A text's key in the cache. */
export const textDigest = (text: string): string => sha256(text)

const pad4 = (n: number) => (n + 3) & ~3

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
const recordBytes = (dims: number) => DIGEST_BYTES + dims * 4 + pad4(rowBytes(dims))

interface Entry {
  vector: Float32Array
  /** The vector's exact row (rowBytes(dims) bytes). */
  row: Uint8Array
}

export class EmbeddingCache {
  private entries = new Map<string, Entry>()
  private used = new Set<string>()
  /** Records in the file as it is, and whether it can be appended to as it is. */
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
    // The content is in the header, not the name: a changed model rewrites its index's file rather than leaving it behind.
    const cache = new EmbeddingCache(cacheFile(cacheDir, 'embeddings', `${identity.id}\n${identity.model}\n${scope}`, '.bin'), identity, identity.dims)
    const bytes = await readFile(cache.file).catch(() => null)
    // A damaged or foreign file is only a slower run: start empty.
    if (bytes) cache.load(bytes)
    return cache
  }

  private header(): Buffer {
    const { id: embedder, model, content } = this.identity
    const id = Buffer.from(`${embedder}\n${model}\n${content ? `${content}\n` : ''}${ROW_FORMAT}`)
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
    const size = recordBytes(dims)
    const records = Math.floor((bytes.length - start) / size)
    // Float32 views need 4-byte alignment; a buffer that is not aligned is copied once.
    const aligned = bytes.byteOffset % 4 === 0 ? bytes : Buffer.from(bytes)
    for (let i = 0, at = start; i < records; i++, at += size) {
      const vectorAt = aligned.byteOffset + at + DIGEST_BYTES
      this.entries.set(aligned.toString('hex', at, at + DIGEST_BYTES), {
        vector: new Float32Array(aligned.buffer, vectorAt, dims),
        row: new Uint8Array(aligned.buffer, vectorAt + dims * 4, rowBytes(dims)),
      })
    }
    this.dims = dims
    this.stored = records
    this.appendable = start + records * size === bytes.length
  }

  get(digest: string): Float32Array | undefined {
    const e = this.entries.get(digest)
    if (!e || (this.dims && e.vector.length !== this.dims)) return undefined
    this.used.add(digest)
    return e.vector
  }

  /** The exact row of an entry get() or set() gave this run. */
  row(digest: string): Uint8Array | undefined {
    return this.used.has(digest) ? this.entries.get(digest)?.row : undefined
  }

  set(digest: string, v: Float32Array): void {
    if (v.length !== this.dims) this.appendable = false
    this.dims = v.length
    const row = new Uint8Array(rowBytes(v.length))
    encodeVectorRow(v, v.length, row, 0)
    this.entries.set(digest, { vector: v, row })
    this.used.add(digest)
    this.added.push(digest)
  }

  /** These entries' records, one after another, after `head`. */
  private encode(digests: readonly string[], head: Uint8Array = new Uint8Array(0)): Buffer {
    const size = recordBytes(this.dims)
    const out = Buffer.alloc(head.length + digests.length * size)
    out.set(head)
    digests.forEach((d, i) => {
      const { vector, row } = this.entries.get(d)!
      const at = head.length + i * size
      out.write(d, at, 'hex')
      out.set(new Uint8Array(vector.buffer, vector.byteOffset, vector.byteLength), at + DIGEST_BYTES)
      out.set(row, at + DIGEST_BYTES + vector.byteLength)
    })
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
    if (this.appendable && total - this.used.size <= total * MAX_UNUSED) {
      if (this.added.length) await appendFile(this.file, this.encode(this.added))
      this.stored = total
    } else {
      const kept = [...this.used].filter((d) => this.entries.get(d)!.vector.length === this.dims).sort()
      await replaceFile(this.file, this.encode(kept, this.header()))
      this.stored = kept.length
      this.appendable = true
    }
    this.added = []
  }
}
