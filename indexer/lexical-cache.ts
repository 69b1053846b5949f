/**
 * Each chunk's lexical counts (ChunkTerms) kept between index runs, keyed by
 * the digest of the chunk fields the lexical index reads, so a re-index
 * tokenizes and stems only the chunks that changed. The cache file is keyed
 * by the lexical settings, the docpilot version and the index it serves; only
 * the chunks a run used are written back, and only when the run changed them.
 *
 * The file is read as it lies, without parsing text: u32 words (this
 * machine's byte order: the cache never leaves it)
 * [format, chunks, term table bytes, body words], then each chunk's 32-byte
 * digest, the term table (terms joined by '\n', zero-padded to 4 bytes), then
 * the body: per chunk its word count, then per field its length, its number
 * of terms and (term number, frequency) pairs; last, the CRC-32 of all the
 * words before it, so bytes changed in place (a frequency, a term number)
 * count every chunk again instead of reaching the index. The table is
 * renumbered to the terms the kept chunks use once over a quarter of it is
 * unused (the terms of chunks edited or removed since), so a kept cache does
 * not grow without bound.
 */
import { hash } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { crc32 } from 'node:zlib'
import type { ChunkRecord } from '../core/index/format.ts'
import { countNumberedPostings, type ChunkTerms, type CountedLexicalIndex, type LexicalSettings } from '../core/retrieval/lexical.ts'
import { cacheFile, replaceFile } from './cache-file.ts'
import { embedDigest } from './embed-text.ts'

/** Bumped when the layout, the key or what is counted changes. */
const FORMAT = 3
const HEADER_WORDS = 4
const DIGEST_BYTES = 32

/**
 * The key of a chunk's counts (base64): the digest of the fields the lexical
 * index reads, each prefixed by its length so no two chunks read alike. The
 * text enters through the chunk's embedDigest, the digest of its heading
 * trail (or title) and text that the build takes anyway: with the trail and
 * title spelled out here, that digest fixes the text, so the text (most of
 * the bytes) is not hashed a second time.
 */
const chunkKey = (c: ChunkRecord, embedded: string): string =>
  hash('sha256', `${c.path.length}:${c.path}${c.anchor.length}:${c.anchor}${c.title.length}:${c.title}${c.trail.map((t) => `${t.length}:${t}`).join('')}|${embedded}`, 'base64')

export class LexicalCache {
  /** Chunk digest (base64) -> its record in the body, as read. */
  private readonly records = new Map<string, Uint32Array>()
  /** Term numbers of the table: the file's terms, then any this run adds. */
  private readonly terms: string[] = []
  private readonly numbers = new Map<string, number>()
  /** Chunk digest (base64) -> record, for the chunks this run used, in order. */
  private readonly used = new Map<string, Uint32Array>()
  /** Which term numbers the records this run used name (1 = named), and how many. */
  private named = new Uint8Array(1024)
  private namedTerms = 0
  private changed = false

  private readonly fields: number

  private constructor(
    private readonly file: string,
    private readonly settings: LexicalSettings,
  ) {
    this.fields = settings.fields.length
  }

  static async open(cacheDir: string, settings: LexicalSettings, version: string, scope: string): Promise<LexicalCache> {
    const cache = new LexicalCache(cacheFile(cacheDir, 'lexical', JSON.stringify([FORMAT, version, scope, settings]), '.bin'), settings)
    const bytes = await readFile(cache.file).catch(() => null)
    if (bytes) {
      try {
        cache.load(bytes)
      } catch {
        // A damaged cache only means counting every chunk again.
        cache.records.clear()
        cache.terms.length = 0
        cache.numbers.clear()
      }
    }
    return cache
  }

  private load(bytes: Buffer): void {
    // Word-aligned for the u32 view (a Buffer may sit at any offset of a shared pool).
    const aligned = bytes.byteOffset % 4 ? Uint8Array.from(bytes) : bytes
    const all = new Uint32Array(aligned.buffer, aligned.byteOffset, Math.floor(aligned.byteLength / 4))
    if (all.length <= HEADER_WORDS || aligned.byteLength % 4 || crc32(aligned.subarray(0, aligned.byteLength - 4)) !== all[all.length - 1]) throw new Error('lexical cache damaged')
    const words = all.subarray(0, all.length - 1)
    const [format, chunks, tableBytes, bodyWords] = words
    if (format !== FORMAT || chunks === undefined || tableBytes === undefined || bodyWords === undefined) throw new Error('not a lexical cache')
    const tableAt = HEADER_WORDS * 4 + chunks * DIGEST_BYTES
    const bodyAt = (tableAt + tableBytes + 3) >> 2
    if (bodyAt + bodyWords !== words.length) throw new Error('lexical cache has the wrong length')
    const table = Buffer.from(aligned.buffer, aligned.byteOffset + tableAt, tableBytes).toString('utf8')
    if (table) for (const term of table.split('\n')) this.number(term)
    let at = bodyAt
    for (let i = 0; i < chunks; i++) {
      const size = words[at]!
      const digest = Buffer.from(aligned.buffer, aligned.byteOffset + HEADER_WORDS * 4 + i * DIGEST_BYTES, DIGEST_BYTES)
      this.records.set(digest.toString('base64'), words.subarray(at + 1, at + 1 + size))
      at += 1 + size
    }
    if (at !== words.length) throw new Error('lexical cache records overrun')
  }

  private number(term: string): number {
    let n = this.numbers.get(term)
    if (n === undefined) {
      n = this.terms.push(term) - 1
      this.numbers.set(term, n)
    }
    return n
  }

  /**
   * The lexical index of `chunks` (countNumberedPostings), each chunk's counts
   * read back from an earlier run's record, or counted by `count` and kept.
   * `embedDigests`: each chunk's embedDigest, in chunk order, when the caller
   * has them (else they are taken here).
   */
  countPostings(chunks: readonly ChunkRecord[], count: (chunk: ChunkRecord) => ChunkTerms, embedDigests?: readonly string[]): CountedLexicalIndex {
    const embedded = embedDigests?.length === chunks.length ? embedDigests : undefined
    return countNumberedPostings(chunks.length, this.settings, this.terms, (doc) => {
      const chunk = chunks[doc]!
      return this.recordOf(chunk, embedded?.[doc] ?? embedDigest(chunk), count)
    })
  }

  private recordOf(chunk: ChunkRecord, embedded: string, count: (chunk: ChunkRecord) => ChunkTerms): Uint32Array {
    const key = chunkKey(chunk, embedded)
    const cached = this.records.get(key) ?? this.used.get(key)
    let record = cached && this.fits(cached) ? cached : undefined
    if (!record) {
      record = this.encode(count(chunk))
      this.changed = true
    }
    this.used.set(key, record)
    return record
  }

  /** Whether a record fits these settings' fields and names only terms of the table (which it marks as named). */
  private fits(record: Uint32Array): boolean {
    let at = 0
    for (let f = 0; f < this.fields; f++) {
      const n = record[at + 1]
      at += 2
      if (n === undefined || at + 2 * n > record.length) return false
      for (let i = 0; i < n; i++, at += 2) {
        const number = record[at]!
        if (number >= this.terms.length) return false
        this.name(number)
      }
    }
    return at === record.length
  }

  private encode(counted: ChunkTerms): Uint32Array {
    let size = 0
    for (let f = 0; f < this.fields; f++) size += 2 + 2 * counted.terms[f]!.length
    const record = new Uint32Array(size)
    let at = 0
    for (let f = 0; f < this.fields; f++) {
      const terms = counted.terms[f]!
      const counts = counted.counts[f]!
      record[at++] = counted.lengths[f]!
      record[at++] = terms.length
      for (let i = 0; i < terms.length; i++) {
        const number = this.number(terms[i]!)
        this.name(number)
        record[at++] = number
        record[at++] = counts[i]!
      }
    }
    return record
  }

  private name(number: number): void {
    if (number >= this.named.length) {
      const grown = new Uint8Array(Math.max(2 * this.named.length, number + 1))
      grown.set(this.named)
      this.named = grown
    }
    if (this.named[number]) return
    this.named[number] = 1
    this.namedTerms++
  }

  /** The new number of each term this run's records name (-1: none), when over a quarter of the table is unused; else undefined. */
  private renumbering(): Int32Array | undefined {
    if (this.terms.length - this.namedTerms <= this.terms.length / 4) return undefined
    const numbers = new Int32Array(this.terms.length).fill(-1)
    let next = 0
    for (let n = 0; n < this.terms.length; n++) if (this.named[n]) numbers[n] = next++
    return numbers
  }

  /** Writes the chunks this run used, when it counted any or left some out (atomically: a crash leaves the previous file). */
  async save(): Promise<void> {
    if (!this.changed && this.used.size === this.records.size) return
    const renumbered = this.renumbering()
    const table = Buffer.from((renumbered ? this.terms.filter((_, n) => renumbered[n]! >= 0) : this.terms).join('\n'))
    const keys = [...this.used.keys()]
    const records = [...this.used.values()]
    const bodyWords = records.reduce((sum, record) => sum + 1 + record.length, 0)
    const tableAt = HEADER_WORDS * 4 + keys.length * DIGEST_BYTES
    const bodyAt = (tableAt + table.length + 3) >> 2
    const words = new Uint32Array(bodyAt + bodyWords + 1)
    const bytes = Buffer.from(words.buffer)
    words.set([FORMAT, keys.length, table.length, bodyWords])
    keys.forEach((key, i) => bytes.write(key, HEADER_WORDS * 4 + i * DIGEST_BYTES, DIGEST_BYTES, 'base64'))
    bytes.set(table, tableAt)
    let at = bodyAt
    for (const record of records) {
      words[at] = record.length
      words.set(record, at + 1)
      if (renumbered) this.renumber(words.subarray(at + 1, at + 1 + record.length), renumbered)
      at += 1 + record.length
    }
    words[at] = crc32(bytes.subarray(0, 4 * at))
    await replaceFile(this.file, bytes)
  }

  /** `record`'s term numbers, in place, as `numbers` maps them. */
  private renumber(record: Uint32Array, numbers: Int32Array): void {
    let at = 0
    for (let f = 0; f < this.fields; f++) {
      const n = record[at + 1]!
      at += 2
      for (let i = 0; i < n; i++, at += 2) record[at] = numbers[record[at]!]!
    }
  }
}
