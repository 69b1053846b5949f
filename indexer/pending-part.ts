/**
 * An index part on its way into a new index folder (write.ts): its name, its
 * content, or, for a part the previous index already holds as it is, where
 * it lies there.
 */
import { createHash } from 'node:crypto'
import { sha256 } from './sha256.ts'
import { SHARD_TAG_LENGTH, shardFile, type ShardSet } from '../core/index/format.ts'

export interface PendingPart {
  name: string
  /** JSON parts are stored gzip-compressed. */
  gzipped: boolean
  /**
   * What identifies the content (PartRecord): the digest of a JSON part; the
   * name of a binary part, which its maker names by its content.
   */
  content: string
  /** Size of the content, uncompressed. */
  raw: number
  /** The content; absent for a part the previous index holds (`kept`), or one read only when needed (`read`). */
  plain?: Uint8Array
  /** Reads the content of a large binary part its maker holds on disk (a static model's rows pack), when it must be written or compared. */
  read?: () => Uint8Array
  /** The part's name in the previous index, when it is kept from there unmade. */
  kept?: string
}

export function pendingJson(name: string, json: string, content: string): PendingPart {
  const plain = Buffer.from(json)
  return { name, plain, raw: plain.length, gzipped: true, content }
}

export const pendingBinary = (name: string, bytes: Uint8Array): PendingPart => ({ name, plain: bytes, raw: bytes.length, gzipped: false, content: name })

/** A binary part named by its content whose bytes are read only if the previous index has no copy to link. */
export const pendingBinaryRead = (name: string, raw: number, read: () => Uint8Array): PendingPart => ({ name, raw, read, gzipped: false, content: name })

/** The part's content, read now if its maker left it on disk. */
export const plainOf = (part: PendingPart): Uint8Array => (part.plain ??= part.read!())

export function jsonPart(kind: string, value: unknown): PendingPart {
  const json = JSON.stringify(value)
  const content = sha256(json)
  return pendingJson(`${kind}.${content.slice(0, 16)}.json.gz`, json, content)
}

/** A shard made this run (its JSON), or one the previous index holds as it is (its digest, size and name there). */
export type ShardSource = { json: string } | { digest: string; raw: number; kept: string }

/**
 * Numbered gzip JSON parts in one folder, each named by its own digest (see
 * ShardSet); `digest` is the digest of them all, `digests` each shard's.
 */
export function jsonShards<Extra extends Pick<ShardSet, 'per' | 'firsts'>>(
  kind: string,
  shards: readonly ShardSource[],
  extra: Extra,
): { set: ShardSet & Extra; parts: PendingPart[]; digest: string; digests: string[] } {
  const digests = shards.map((s) => ('json' in s ? sha256(s.json) : s.digest))
  const all = createHash('sha256')
  for (const d of digests) all.update(d)
  const whole = all.digest('hex')
  const set = { dir: kind, count: shards.length, ext: '.json.gz', tags: digests.map((d) => d.slice(0, SHARD_TAG_LENGTH)), ...extra }
  const parts = shards.map((s, i): PendingPart => {
    const name = shardFile(set, i)
    return 'json' in s ? pendingJson(name, s.json, digests[i]!) : { name, gzipped: true, content: s.digest, raw: s.raw, kept: s.kept }
  })
  return { set, parts, digest: whole, digests }
}
