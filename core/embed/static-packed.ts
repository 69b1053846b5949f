/**
 * The indexer's side of a static model served by word (static-split.ts): the
 * rows pack held whole in memory. A word's row is found in its bucket exactly
 * as the reader finds it, so passages are pooled from the very bytes the
 * index serves, and nothing else of the model (its vocabulary, its table) is
 * read. Kept apart from static-split.ts so the reader's bundle never carries it.
 */
import type { EmbedderIdentity } from '../index/format.ts'
import type { StaticModelDescriptor } from './static-model.ts'
import { bucketOfWord, bucketStarts, entryBytes, findInBucket, type RowsPack } from '../index/static-rows.ts'
import { poolRows, staticIdentity, staticTokens, type StaticRow } from './static.ts'
import type { Embedder } from './types.ts'

export class PackedStaticEmbedder implements Embedder {
  readonly identity: EmbedderIdentity
  private readonly starts: Uint32Array
  private readonly found = new Map<string, StaticRow | null>()

  constructor(
    private readonly descriptor: StaticModelDescriptor,
    private readonly packed: RowsPack,
  ) {
    this.identity = staticIdentity(descriptor)
    this.starts = bucketStarts(packed.counts)
  }

  /** A word's row, or undefined for a word outside the vocabulary. */
  row(word: string): StaticRow | undefined {
    let row = this.found.get(word)
    if (row === undefined) {
      const size = entryBytes(this.descriptor.dims)
      const b = bucketOfWord(word, this.packed.counts.length)
      row = findInBucket(this.packed.pack.subarray(this.starts[b]! * size, this.starts[b + 1]! * size), word, this.descriptor.dims, 'model rows pack') ?? null
      this.found.set(word, row)
    }
    return row ?? undefined
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    const { dims, tokenizer } = this.descriptor
    return texts.map((text) => poolRows(staticTokens(text, tokenizer.pattern), (t) => this.row(t), dims))
  }
}
