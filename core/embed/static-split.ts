/**
 * A static model served split by token. A static model is a lookup table, so
 * a question needs only its own words' rows: the indexer writes the table as
 * shards keyed by a hash of the word, and a reader fetches the shards of the
 * question's words (a few KB instead of the whole table), keeps them, and
 * pools exactly as the whole-table embedder does, so vectors are identical.
 *
 * Works for any docpilot-static-v1 model (any dims, any vocabulary) whose
 * tokenizer needs no vocabulary: a word's shard is computed from the word.
 *
 * Shard bytes (little-endian; stored raw, as int8 rows do not compress,
 * though a gzip-compressed shard reads too):
 *   u32 entries, then per entry: u32 rank (row number), f32 scale,
 *   i8 x dims values, u8 byte length, UTF-8 word.
 * Entries keep vocabulary order, so a row's rank arrives with it.
 */
import { gunzipSync } from 'fflate'
import { shardFile, type EmbedderIdentity, type ShardSet, type StaticRowsLayout } from '../index-format.ts'
import type { StaticModelDescriptor, StaticTable } from './static-model.ts'
import { poolRows, staticIdentity, staticTokens, type StaticRow } from './static.ts'
import { EmbedError, type Embedder } from './types.ts'

/** Words per shard by default: about 1.2 KB per shard for 100 dims, so a question costs a few KB. */
export const DEFAULT_WORDS_PER_SHARD = 12

export function fnv1a32(word: string): number {
  let h = 0x811c9dc5
  for (let i = 0; i < word.length; i++) {
    h ^= word.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return h >>> 0
}

export const shardOfWord = (word: string, count: number) => fnv1a32(word) % count

const encoder = new TextEncoder()
const decoder = new TextDecoder()

/** The table's rows as shard files (uncompressed), `wordsPerShard` words each on average. */
export function encodeRowShards(table: StaticTable, words: readonly string[], wordsPerShard = DEFAULT_WORDS_PER_SHARD): Uint8Array[] {
  const count = Math.max(1, Math.ceil(words.length / wordsPerShard))
  const members: number[][] = Array.from({ length: count }, () => [])
  words.forEach((w, i) => members[shardOfWord(w, count)]!.push(i))
  const { dims, rows, scales } = table
  return members.map((ids) => {
    const utf8 = ids.map((i) => encoder.encode(words[i]!))
    const size = 4 + ids.reduce((s, _, j) => s + 8 + dims + 1 + utf8[j]!.length, 0)
    const out = new Uint8Array(size)
    const view = new DataView(out.buffer)
    view.setUint32(0, ids.length, true)
    let at = 4
    ids.forEach((i, j) => {
      const word = utf8[j]!
      if (word.length > 255) throw new Error(`static model word ${i} is longer than 255 bytes`)
      view.setUint32(at, i, true)
      view.setFloat32(at + 4, scales[i]!, true)
      out.set(new Uint8Array(rows.buffer, rows.byteOffset + i * dims, dims), at + 8)
      at += 8 + dims
      out[at++] = word.length
      out.set(word, at)
      at += word.length
    })
    return out
  })
}

/** One shard's words and rows. Throws on a file that does not parse as `dims`-wide rows. */
export function decodeRowShard(bytes: Uint8Array, dims: number, what: string): Map<string, StaticRow> {
  const raw = bytes.length > 2 && bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes) : bytes
  const view = new DataView(raw.buffer, raw.byteOffset, raw.byteLength)
  const values = new Int8Array(raw.buffer, raw.byteOffset, raw.byteLength)
  const rows = new Map<string, StaticRow>()
  const fail = () => new EmbedError(`model rows file ${what} is damaged (does not hold ${dims}-wide rows); rebuild the index`, 'bad_model')
  if (raw.length < 4) throw fail()
  const entries = view.getUint32(0, true)
  let at = 4
  for (let e = 0; e < entries; e++) {
    if (at + 8 + dims + 1 > raw.length) throw fail()
    const rank = view.getUint32(at, true)
    const scale = view.getFloat32(at + 4, true)
    const offset = at + 8
    at += 8 + dims
    const length = raw[at++]!
    if (at + length > raw.length) throw fail()
    rows.set(decoder.decode(raw.subarray(at, at + length)), { rank, scale, values, offset })
    at += length
  }
  if (at !== raw.length) throw fail()
  return rows
}

/** Fetches a rows file by name. */
export type RowShardFetcher = (name: string) => Promise<Uint8Array>

/**
 * The reader's side: a static embedder that fetches the rows of a text's own
 * words. Shards are fetched once and kept (a failed fetch is retried by the
 * next text).
 */
export class SplitStaticEmbedder implements Embedder {
  readonly identity: EmbedderIdentity
  private readonly shards = new Map<number, Promise<Map<string, StaticRow>>>()

  constructor(
    identity: EmbedderIdentity,
    private readonly layout: StaticRowsLayout,
    private readonly fetchShard: RowShardFetcher,
  ) {
    if (layout.hash !== 'fnv1a32') throw new EmbedError(`model rows hashed with "${String(layout.hash)}", which this docpilot does not know; rebuild the index`, 'bad_model')
    this.identity = identity
  }

  private shard(i: number): Promise<Map<string, StaticRow>> {
    let p = this.shards.get(i)
    if (!p) {
      const name = shardFile(this.layout.shards, i)
      p = this.fetchShard(name).then((bytes) => decodeRowShard(bytes, this.identity.dims, name))
      p.catch(() => this.shards.delete(i))
      this.shards.set(i, p)
    }
    return p
  }

  /** The rows of the text's words (fetching what is missing); a word outside the vocabulary is absent. */
  async rows(text: string): Promise<Map<string, StaticRow>> {
    const tokens = staticTokens(text, this.layout.tokenizer.pattern)
    const needed = [...new Set(tokens.map((t) => shardOfWord(t, this.layout.shards.count)))]
    const loaded = await Promise.all(needed.map((i) => this.shard(i)))
    const found = new Map<string, StaticRow>()
    for (const t of tokens) {
      for (const shard of loaded) {
        const row = shard.get(t)
        if (row) found.set(t, row)
      }
    }
    return found
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    return Promise.all(
      texts.map(async (text) => {
        const rows = await this.rows(text)
        return poolRows(staticTokens(text, this.layout.tokenizer.pattern), (t) => rows.get(t), this.identity.dims)
      }),
    )
  }
}

/** The identity and layout an index records for a static model split into `count` shards in `dir`. */
export function splitIdentity(descriptor: StaticModelDescriptor, shards: ShardSet, files: Record<string, string>): EmbedderIdentity {
  return staticIdentity(descriptor, { files, rows: { shards, hash: 'fnv1a32', tokenizer: descriptor.tokenizer } })
}
