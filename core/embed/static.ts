/**
 * The `static` embedder: word vectors pooled in plain TypeScript. Rows already
 * carry their SIF weight and have the common component removed (see
 * scripts/build-default-model.ts), so a text's vector is the normalized sum of
 * its known words' rows. Unknown words contribute nothing.
 */
import type { EmbedderIdentity } from '../index/format.ts'
import { parseStaticTable, type StaticModelDescriptor, type StaticTable } from './static-model.ts'
import { RowPool } from './row-pool.ts'
import type { Embedder } from './types.ts'

export function staticTokens(text: string, pattern: string): string[] {
  return text.toLowerCase().match(new RegExp(pattern, 'gu')) ?? []
}

/** One word's row: int8 values at `offset` in `values` (dims of them), and its scale. */
export interface StaticRow {
  /** Row number in the model's vocabulary (its frequency rank when the vocabulary is frequency-ordered). */
  rank: number
  scale: number
  values: Int8Array
  offset: number
}

/** The identity an index names for a static model. */
export function staticIdentity(descriptor: StaticModelDescriptor, extra: Partial<EmbedderIdentity> = {}): EmbedderIdentity {
  return { id: descriptor.id, kind: 'local', model: `static:${descriptor.id}`, dims: descriptor.dims, quantization: 'int8', ...extra }
}

/** The whole table in memory: what the indexer embeds passages with. */
export class StaticEmbedder implements Embedder {
  readonly identity: EmbedderIdentity
  readonly table: StaticTable
  private readonly pool: RowPool

  constructor(
    readonly descriptor: StaticModelDescriptor,
    vocabText: string,
    vectors: Uint8Array,
    files?: Record<string, string>,
    /** What errors call the vocabulary and vectors files (default: the index parts in `files`, else the descriptor's names). */
    names?: { vocab: string; vectors: string },
  ) {
    this.table = parseStaticTable(descriptor, vocabText, vectors, names ?? (files?.['vocab.txt'] && files['vectors.bin'] ? { vocab: files['vocab.txt'], vectors: files['vectors.bin'] } : descriptor.files))
    this.identity = staticIdentity(descriptor, files ? { files } : {})
    this.pool = new RowPool((word) => this.row(word), this.table.dims)
  }

  /** A word's row, or undefined for a word outside the vocabulary. */
  row(token: string): StaticRow | undefined {
    const i = this.table.index.get(token)
    return i === undefined ? undefined : { rank: i, scale: this.table.scales[i]!, values: this.table.rows, offset: i * this.table.dims }
  }

  embedOne(text: string): Float32Array {
    return this.pool.pool(staticTokens(text, this.descriptor.tokenizer.pattern))
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    return texts.map((t) => this.embedOne(t))
  }
}
