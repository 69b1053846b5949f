/**
 * The indexer's side of a static model served by word (static-split.ts): the
 * rows pack held whole in memory, or read bucket by bucket through a reader
 * (core stays free of file reads). A word's row is found in its bucket
 * exactly as the reader finds it, so passages are pooled from the very bytes the
 * index serves, and nothing else of the model (its vocabulary, its table) is
 * read. Kept apart from static-split.ts so the reader's bundle never carries it.
 */
import type { EmbedderIdentity } from '../index/format.ts'
import type { StaticModelDescriptor } from './static-model.ts'
import { bucketOfWord, bucketStarts, entryBytes, findInBucket, type RowsPack } from '../index/static-rows.ts'
import { RowPool } from './row-pool.ts'
import { staticIdentity, staticTokens, type StaticRow } from './static.ts'
import type { Embedder } from './types.ts'

/**
 * The pack's bytes start..end (end exclusive), read when a word's bucket is
 * first needed: lets the indexer read only the buckets of the few texts it
 * embeds (a re-index) from the cached pack's file instead of all of it.
 */
export interface RowsReader {
  counts: Uint8Array
  read(start: number, end: number): Uint8Array
}

export class PackedStaticEmbedder implements Embedder {
  readonly identity: EmbedderIdentity
  private readonly starts: Uint32Array
  private readonly pool: RowPool
  private readonly rows: RowsReader

  constructor(
    private readonly descriptor: StaticModelDescriptor,
    rows: RowsPack | RowsReader,
  ) {
    this.identity = staticIdentity(descriptor)
    this.rows = 'pack' in rows ? { counts: rows.counts, read: (start, end) => rows.pack.subarray(start, end) } : rows
    this.starts = bucketStarts(rows.counts)
    // The pool looks each word up once.
    this.pool = new RowPool((word) => this.row(word), descriptor.dims)
  }

  /** A word's row, or undefined for a word outside the vocabulary. */
  row(word: string): StaticRow | undefined {
    const size = entryBytes(this.descriptor.dims)
    const b = bucketOfWord(word, this.rows.counts.length)
    return findInBucket(this.rows.read(this.starts[b]! * size, this.starts[b + 1]! * size), word, this.descriptor.dims, 'model rows pack')
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    return texts.map((text) => this.pool.pool(staticTokens(text, this.descriptor.tokenizer.pattern)))
  }
}
