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
 * The files' layout, and their encoder and decoders: core/index/static-rows.ts.
 */
import type { EmbedderIdentity, StaticRowsLayout } from '../index/format.ts'
import { readRange, type PartLoader } from '../index/parts.ts'
import { bucketOfWord, bucketStarts, decodeDirectory, entryBytes, findInBucket } from '../index/static-rows.ts'
import type { StaticModelDescriptor } from './static-model.ts'
import { poolRows } from './row-pool.ts'
import { staticIdentity, staticTokens, type StaticRow } from './static.ts'
import { EmbedError, type Embedder } from './types.ts'

/**
 * Bucket starts, decoded once per directory bytes: readers served one copy
 * of the parts (the indexer's fetch-cost sample) share them; rows() only
 * reads them.
 */
const startsOfDirectory = new WeakMap<Uint8Array, Uint32Array>()
function startsOf(bytes: Uint8Array, buckets: number, name: string): Uint32Array {
  let starts = startsOfDirectory.get(bytes)
  if (!starts) startsOfDirectory.set(bytes, (starts = bucketStarts(decodeDirectory(bytes, buckets, name))))
  return starts
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
      this.directory = this.read(() => this.loader.bytes(directory), directory).then((b) => startsOf(b, buckets, directory))
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
