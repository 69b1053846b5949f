/**
 * Chunk vectors cached between index runs, keyed by the digest of the exact
 * text embedded, one file per embedder and index (scope), so two indexes built
 * from one cache folder do not evict each other's entries. An unchanged chunk
 * is never sent to the embedder again (for a hosted embedder: never billed again).
 */
import { createHash } from 'node:crypto'
import { mkdir, readFile, rename, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import type { EmbedderIdentity } from '../core/index/format.ts'

interface CacheFile {
  embedder: string
  model: string
  dims: number
  /** text digest -> float32 little-endian, base64 */
  vectors: Record<string, string>
}

export const textDigest = (text: string) => createHash('sha256').update(text).digest('hex')

export class EmbeddingCache {
  private entries = new Map<string, string>()
  private used = new Set<string>()

  private constructor(
    private readonly file: string,
    private readonly identity: Pick<EmbedderIdentity, 'id' | 'model'>,
    private dims: number,
  ) {}

  /** `scope` names the index the cache serves (its output folder). */
  static async open(cacheDir: string, identity: Pick<EmbedderIdentity, 'id' | 'model' | 'dims'>, scope = ''): Promise<EmbeddingCache> {
    const key = textDigest(`${identity.id}\n${identity.model}\n${scope}`).slice(0, 16)
    const file = join(cacheDir, 'embeddings', `${key}.json`)
    const cache = new EmbeddingCache(file, identity, identity.dims)
    const raw = await readFile(file, 'utf8').catch(() => null)
    if (raw) {
      try {
        const parsed = JSON.parse(raw) as CacheFile
        if (parsed.embedder === identity.id && parsed.model === identity.model) {
          cache.dims = parsed.dims
          for (const [k, v] of Object.entries(parsed.vectors)) cache.entries.set(k, v)
        }
      } catch {
        // A damaged cache is only a slower run: start empty.
      }
    }
    return cache
  }

  get(digest: string): Float32Array | undefined {
    const b64 = this.entries.get(digest)
    if (!b64) return undefined
    const bytes = Buffer.from(b64, 'base64')
    const v = new Float32Array(bytes.buffer.slice(bytes.byteOffset, bytes.byteOffset + bytes.byteLength))
    if (this.dims && v.length !== this.dims) return undefined
    this.used.add(digest)
    return v
  }

  set(digest: string, v: Float32Array): void {
    this.dims = v.length
    this.entries.set(digest, Buffer.from(v.buffer, v.byteOffset, v.byteLength).toString('base64'))
    this.used.add(digest)
  }

  /** Keeps what this run used (entries for deleted chunks go), written atomically. */
  async save(): Promise<void> {
    const vectors: Record<string, string> = {}
    for (const d of [...this.used].sort()) vectors[d] = this.entries.get(d)!
    const body: CacheFile = { embedder: this.identity.id, model: this.identity.model, dims: this.dims, vectors }
    await mkdir(join(this.file, '..'), { recursive: true })
    const tmp = `${this.file}.${process.pid}.tmp`
    await writeFile(tmp, JSON.stringify(body))
    await rename(tmp, this.file)
  }
}
