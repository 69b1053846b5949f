/**
 * A static model's table as an index serves it: one packed file of
 * fixed-size entries grouped in buckets by a hash of the word, and a small
 * directory of bucket sizes, so a reader fetches the directory once and then
 * each word's bucket alone (the reader: core/embed/static-split.ts).
 *
 * Entry bytes (little-endian): u32 fingerprint (a second hash of the word:
 * tells the words of a bucket apart, and a word outside the vocabulary from
 * all of them), u32 rank (row number), f32 scale, i8 x dims values. Buckets
 * follow each other in bucket order. Directory: u8 entry count per bucket,
 * gzip-compressed.
 */
import { gunzipSync } from 'fflate'
import { EmbedError } from '../embed/types.ts'
import type { StaticRow } from '../embed/static.ts'
import type { QuantizedRows } from './quantized.ts'

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
  const pack = new Uint8Array(words.length * entryBytes(table.dims))
  if (table.dims % 4 === 0 && table.rows.byteOffset % 4 === 0) fillByWords(pack, order, prints, table)
  else fillByBytes(pack, order, prints, table)
  return { pack, counts }
}

/**
 * The entries, 4-byte word by word: the whole pack (17 MB for the default
 * model, made at a first build with a fresh cache) in about two thirds of the
 * CPU of fillByBytes. Entries and rows are then 4-byte aligned; words are
 * written in host order, little-endian on every platform docpilot runs on
 * (as quantized.ts assumes).
 */
function fillByWords(pack: Uint8Array, order: Uint32Array, prints: Uint32Array, { dims, rows, scales }: QuantizedRows): void {
  const entryWords = entryBytes(dims) / 4
  const rowWords = dims / 4
  const u32 = new Uint32Array(pack.buffer, pack.byteOffset, pack.byteLength / 4)
  const f32 = new Float32Array(pack.buffer, pack.byteOffset, pack.byteLength / 4)
  const values = new Uint32Array(rows.buffer, rows.byteOffset, rows.byteLength / 4)
  for (let e = 0, at = 0; e < order.length; e++, at += entryWords) {
    const w = order[e]!
    u32[at] = prints[e]!
    u32[at + 1] = w
    f32[at + 2] = scales[w]!
    for (let d = 0, from = w * rowWords; d < rowWords; d++) u32[at + 3 + d] = values[from + d]!
  }
}

/** The entries for any dimension count. */
function fillByBytes(pack: Uint8Array, order: Uint32Array, prints: Uint32Array, { dims, rows, scales }: QuantizedRows): void {
  const size = entryBytes(dims)
  const values = new Uint8Array(rows.buffer, rows.byteOffset, rows.byteLength)
  const view = new DataView(pack.buffer, pack.byteOffset, pack.byteLength)
  for (let e = 0, at = 0; e < order.length; e++, at += size) {
    const w = order[e]!
    view.setUint32(at, prints[e]!, true)
    view.setUint32(at + 4, w, true)
    view.setFloat32(at + 8, scales[w]!, true)
    pack.set(values.subarray(w * dims, (w + 1) * dims), at + 12)
  }
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
