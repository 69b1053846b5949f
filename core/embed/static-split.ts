/**
 * A static model served by word. A static model is a lookup table, so a
 * question needs only its own words' rows. The indexer writes the table as
 * one packed file of fixed-size entries grouped in buckets by a hash of the
 * word, and a small directory of bucket sizes. A reader fetches the
 * directory once, then for each word of a question reads that word's bucket
 * alone (an HTTP range request of a few hundred bytes), and pools exactly as
 * the whole-table embedder does, so vectors are identical. The index gains
 * two files, not thousands.
 *
 * Works for any docpilot-static-v1 model (any dims, any vocabulary) whose
 * tokenizer needs no vocabulary.
 *
 * Entry bytes (little-endian): u32 fingerprint (a second hash of the word:
 * tells the words of a bucket apart, and a word outside the vocabulary from
 * all of them), u32 rank (row number), f32 scale, i8 x dims values. Buckets
 * follow each other in bucket order. Directory: u8 entry count per bucket,
 * gzip-compressed.
 */
import { gunzipSync } from 'fflate'
import type { EmbedderIdentity, StaticRowsLayout } from '../index/format.ts'
import { readRange, type PartLoader } from '../index/parts.ts'
import type { QuantizedRows } from './quantize.ts'
import type { StaticModelDescriptor } from './static-model.ts'
import { poolRows, staticIdentity, staticTokens, type StaticRow } from './static.ts'
import { EmbedError, type Embedder } from './types.ts'

/**
 * Words per bucket on average. Two keeps a word's read near two entries while
 * the directory (read once) stays about 12 KB for 60,000 words.
 */
export const WORDS_PER_BUCKET = 2

/** FNV-1a (32 bit) over the word's UTF-16 code units, from a given offset basis. */
export function fnv1a32(word: string, basis = 0x811c9dc5): number {
  let h = basis
  for (let i = 0; i < word.length; i++) {
    h ^= word.charCodeAt(i)
    h = Math.imul(h, 0x01000193)
  }
  return h >>> 0
}

const fingerprint = (word: string) => fnv1a32(word, 0x050c5d1f)
export const bucketOfWord = (word: string, buckets: number) => fnv1a32(word) % buckets
export const entryBytes = (dims: number) => 12 + dims

export interface RowsPack {
  pack: Uint8Array
  /** Entries per bucket. */
  counts: Uint8Array
}

/** Groups every word's row by bucket and writes the entries. Pure: the same model gives the same bytes. */
export function encodeRowsPack(table: QuantizedRows, words: readonly string[], perBucket = WORDS_PER_BUCKET): RowsPack {
  const buckets = Math.max(1, Math.ceil(words.length / perBucket))
  const bucketOf = new Uint32Array(words.length)
  const sizes = new Uint32Array(buckets)
  for (let w = 0; w < words.length; w++) sizes[(bucketOf[w] = bucketOfWord(words[w]!, buckets))]!++
  // Entries in bucket order, a bucket's words in row order (a stable counting sort).
  const starts = new Uint32Array(buckets + 1)
  for (let b = 0; b < buckets; b++) starts[b + 1] = starts[b]! + sizes[b]!
  const order = new Uint32Array(words.length)
  const fill = starts.slice(0, buckets)
  for (let w = 0; w < words.length; w++) order[fill[bucketOf[w]!]!++] = w
  const prints = order.map((w) => fingerprint(words[w]!))
  const counts = new Uint8Array(buckets)
  for (let b = 0; b < buckets; b++) {
    if (sizes[b]! > 255) throw new Error(`model rows bucket ${b} holds ${sizes[b]} words; at most 255 fit`)
    counts[b] = sizes[b]!
    for (let i = starts[b]!; i < starts[b + 1]!; i++) {
      for (let j = starts[b]!; j < i; j++) if (prints[i] === prints[j]) throw new Error(`two words of model rows bucket ${b} share a fingerprint`)
    }
  }
  const { dims, rows, scales } = table
  const size = entryBytes(dims)
  const values = new Uint8Array(rows.buffer, rows.byteOffset, rows.byteLength)
  const pack = new Uint8Array(words.length * size)
  const view = new DataView(pack.buffer)
  for (let e = 0, at = 0; e < order.length; e++, at += size) {
    const w = order[e]!
    view.setUint32(at, prints[e]!, true)
    view.setUint32(at + 4, w, true)
    view.setFloat32(at + 8, scales[w]!, true)
    pack.set(values.subarray(w * dims, (w + 1) * dims), at + 12)
  }
  return { pack, counts }
}

/** Where each bucket starts, in entries, from the directory's counts (one more than buckets: the end). */
export function bucketStarts(counts: Uint8Array): Uint32Array {
  const starts = new Uint32Array(counts.length + 1)
  for (let b = 0; b < counts.length; b++) starts[b + 1] = starts[b]! + counts[b]!
  return starts
}

export function decodeDirectory(bytes: Uint8Array, buckets: number, what: string): Uint8Array {
  const raw = bytes.length > 2 && bytes[0] === 0x1f && bytes[1] === 0x8b ? gunzipSync(bytes) : bytes
  if (raw.length !== buckets) throw new EmbedError(`model rows file ${what} is damaged (${raw.length} bytes, expected ${buckets}); rebuild the index`, 'bad_model')
  return raw
}

/** A word's row from its bucket's bytes, or undefined for a word outside the vocabulary. */
export function findInBucket(bytes: Uint8Array, word: string, dims: number, what: string): StaticRow | undefined {
  const size = entryBytes(dims)
  if (bytes.length % size !== 0) throw new EmbedError(`model rows file ${what} is damaged (a bucket of ${bytes.length} bytes, entries are ${size}); rebuild the index`, 'bad_model')
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength)
  const print = fingerprint(word)
  for (let at = 0; at < bytes.length; at += size) {
    if (view.getUint32(at, true) !== print) continue
    return { rank: view.getUint32(at + 4, true), scale: view.getFloat32(at + 8, true), values: new Int8Array(bytes.buffer, bytes.byteOffset + at + 12, dims), offset: 0 }
  }
  return undefined
}

/**
 * The reader's side: a static embedder that reads the slots of a text's own
 * words through the index's part loader. Seeds are fetched once; each word's
 * row once (a failed read is retried by the next text).
 */
export class SplitStaticEmbedder implements Embedder {
  readonly identity: EmbedderIdentity
  private directory: Promise<Uint32Array> | undefined
  private readonly rowsByWord = new Map<string, Promise<StaticRow | undefined>>()

  constructor(
    identity: EmbedderIdentity,
    private readonly layout: StaticRowsLayout,
    private readonly loader: PartLoader,
  ) {
    if (layout.hash !== 'fnv1a32') throw new EmbedError(`model rows placed by "${String(layout.hash)}", which this docpilot does not know; rebuild the index`, 'bad_model')
    this.identity = identity
  }

  /** Starts fetching the directory (the panel does when the reader shows intent). */
  warm(): Promise<unknown> {
    return this.starts().catch(() => {})
  }

  private starts(): Promise<Uint32Array> {
    if (!this.directory) {
      const { directory, buckets } = this.layout
      this.directory = this.read(() => this.loader.bytes(directory), directory).then((b) => bucketStarts(decodeDirectory(b, buckets, directory)))
      this.directory.catch(() => (this.directory = undefined))
    }
    return this.directory
  }

  private async read(get: () => Promise<Uint8Array>, name: string): Promise<Uint8Array> {
    try {
      return await get()
    } catch (err) {
      throw new EmbedError(`model rows ${name} unreachable: ${err instanceof Error ? err.message : String(err)}`, 'unreachable', { cause: err })
    }
  }

  private row(word: string, starts: Uint32Array): Promise<StaticRow | undefined> {
    let p = this.rowsByWord.get(word)
    if (!p) {
      const { pack, buckets } = this.layout
      const size = entryBytes(this.identity.dims)
      const b = bucketOfWord(word, buckets)
      const [first, end] = [starts[b]!, starts[b + 1]!]
      p =
        first === end
          ? Promise.resolve(undefined)
          : this.read(() => readRange(this.loader, pack, first * size, end * size), pack).then((bytes) => {
              if (bytes.length !== (end - first) * size) {
                throw new EmbedError(`model rows file ${pack} is damaged (${bytes.length} bytes where a bucket of ${(end - first) * size} should be); rebuild the index`, 'bad_model')
              }
              return findInBucket(bytes, word, this.identity.dims, pack)
            })
      p.catch(() => this.rowsByWord.delete(word))
      this.rowsByWord.set(word, p)
    }
    return p
  }

  /** The rows of the text's words (fetching what is missing); a word outside the vocabulary is absent. */
  async rows(text: string): Promise<Map<string, StaticRow>> {
    const starts = await this.starts()
    const words = [...new Set(staticTokens(text, this.layout.tokenizer.pattern))]
    const rows = await Promise.all(words.map((w) => this.row(w, starts)))
    const found = new Map<string, StaticRow>()
    words.forEach((w, i) => rows[i] && found.set(w, rows[i]))
    return found
  }

  /**
   * Ranks (1 = most common) of lower-cased words, for the gate's rarity
   * weights, read from the same buckets the question's embedding reads (no
   * extra fetch): a word's rank is its row number + 1 when its row is among
   * the vocabulary's first `ranked` rows (a frequency-ordered vocabulary,
   * model.json's `provenance.frequencyRanked`); undefined for any other word.
   */
  async ranksOf(words: readonly string[], ranked: number): Promise<Array<number | undefined>> {
    const starts = await this.starts()
    const rows = await Promise.all(words.map((w) => this.row(w, starts)))
    return rows.map((r) => (r && r.rank < ranked ? r.rank + 1 : undefined))
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

/** The identity an index records for a static model served as a rows pack and its directory. */
export function splitIdentity(descriptor: StaticModelDescriptor, rows: Omit<StaticRowsLayout, 'hash' | 'tokenizer'>, files: Record<string, string>): EmbedderIdentity {
  return staticIdentity(descriptor, { files, rows: { ...rows, hash: 'fnv1a32', tokenizer: descriptor.tokenizer } })
}
