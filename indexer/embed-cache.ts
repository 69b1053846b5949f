/**
 * Chunk vectors cached between index runs, keyed by the digest of the exact
 * text embedded, one file per embedder and index (scope), so two indexes built
 * from one cache folder do not evict each other's entries. An unchanged chunk
 * is never sent to the embedder again (for a hosted embedder: never billed again).
 *
 * The file is binary, so a re-index reads its vectors without parsing:
 * u32 magic, u32 dims, u32 entries, u32 identity bytes, the identity
 * (`embedder id\nmodel`, UTF-8, padded to 4 bytes), then each entry's
 * 32-byte text digest, then each entry's dims float32 values, all
 * little-endian, entries in digest order. It is rewritten only when a run
 * changed what it should hold.
 */
import { hash } from 'node:crypto'
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { EmbedderIdentity } from '../core/index/format.ts'

/** "DPE1", little-endian. */
const MAGIC = 0x31455044
const HEADER = 16
const DIGEST_BYTES = 32

export const textDigest = (text: string) => hash('sha256', text, 'hex')

const pad4 = (n: number) => (n + 3) & ~3

export class EmbeddingCache {
  private entries = new Map<string, Float32Array>()
  private used = new Set<string>()
  /** Whether the file on disk already holds exactly what save() would write. */
  private unchanged = false

  private constructor(
    private readonly file: string,
    private readonly identity: Pick<EmbedderIdentity, 'id' | 'model'>,
    private dims: number,
  ) {}

  /** `scope` names the index the cache serves (its output folder). */
  static async open(cacheDir: string, identity: Pick<EmbedderIdentity, 'id' | 'model' | 'dims'>, scope = ''): Promise<EmbeddingCache> {
    const key = textDigest(`${identity.id}\n${identity.model}\n${scope}`).slice(0, 16)
    const cache = new EmbeddingCache(join(cacheDir, 'embeddings', `${key}.bin`), identity, identity.dims)
    const bytes = await readFile(cache.file).catch(() => null)
    // A damaged or foreign file is only a slower run: start empty.
    if (bytes) cache.load(bytes)
    return cache
  }

  private identityBytes(): Buffer {
    return Buffer.from(`${this.identity.id}\n${this.identity.model}`)
  }

  private load(bytes: Buffer): void {
    if (bytes.length < HEADER || bytes.readUInt32LE(0) !== MAGIC) return
    const [dims, count, idLength] = [bytes.readUInt32LE(4), bytes.readUInt32LE(8), bytes.readUInt32LE(12)]
    const digestsAt = HEADER + pad4(idLength)
    const vectorsAt = digestsAt + count * DIGEST_BYTES
    if (bytes.length !== vectorsAt + count * dims * 4) return
    if (!bytes.subarray(HEADER, HEADER + idLength).equals(this.identityBytes())) return
    // Float32 views need 4-byte alignment; a buffer that is not aligned is copied once.
    const aligned = (bytes.byteOffset + vectorsAt) % 4 === 0 ? bytes : Buffer.from(bytes)
    const values = new Float32Array(aligned.buffer, aligned.byteOffset + vectorsAt, count * dims)
    for (let i = 0; i < count; i++) {
      const digest = bytes.toString('hex', digestsAt + i * DIGEST_BYTES, digestsAt + (i + 1) * DIGEST_BYTES)
      this.entries.set(digest, values.subarray(i * dims, (i + 1) * dims))
    }
    this.dims = dims
    this.unchanged = true
  }

  get(digest: string): Float32Array | undefined {
    const v = this.entries.get(digest)
    if (!v || (this.dims && v.length !== this.dims)) return undefined
    this.used.add(digest)
    return v
  }

  set(digest: string, v: Float32Array): void {
    this.unchanged = false
    this.dims = v.length
    this.entries.set(digest, v)
    this.used.add(digest)
  }

  /** Keeps what this run used (entries for deleted chunks go), written atomically, and only when that differs from the file. */
  async save(): Promise<void> {
    const kept = [...this.used].filter((d) => this.entries.get(d)!.length === this.dims).sort()
    if (this.unchanged && kept.length === this.entries.size) return
    const id = this.identityBytes()
    const digestsAt = HEADER + pad4(id.length)
    const vectorsAt = digestsAt + kept.length * DIGEST_BYTES
    const out = Buffer.alloc(vectorsAt + kept.length * this.dims * 4)
    out.writeUInt32LE(MAGIC, 0)
    out.writeUInt32LE(this.dims, 4)
    out.writeUInt32LE(kept.length, 8)
    out.writeUInt32LE(id.length, 12)
    id.copy(out, HEADER)
    kept.forEach((d, i) => {
      out.write(d, digestsAt + i * DIGEST_BYTES, 'hex')
      const v = this.entries.get(d)!
      out.set(new Uint8Array(v.buffer, v.byteOffset, v.byteLength), vectorsAt + i * this.dims * 4)
    })
    await mkdir(join(this.file, '..'), { recursive: true })
    const tmp = `${this.file}.${process.pid}.tmp`
    await writeFile(tmp, out)
    await rename(tmp, this.file)
    this.unchanged = true
  }
}
