/**
 * The `static` embedder: word vectors pooled in plain TypeScript. Rows already
 * carry their SIF weight and have the common component removed (see
 * scripts/build-default-model.ts), so a text's vector is the normalized sum of
 * its known words' rows. Unknown words contribute nothing.
 */
import type { EmbedderIdentity } from '../index-format.ts'
import { parseStaticTable, type StaticModelDescriptor, type StaticTable } from './static-model.ts'
import { l2normalize, type Embedder } from './types.ts'

export function staticTokens(text: string, pattern: string): string[] {
  return text.toLowerCase().match(new RegExp(pattern, 'gu')) ?? []
}

export class StaticEmbedder implements Embedder {
  readonly identity: EmbedderIdentity
  private readonly table: StaticTable

  constructor(
    readonly descriptor: StaticModelDescriptor,
    vocabText: string,
    vectors: Uint8Array,
    files?: Record<string, string>,
    /** What errors call the vocabulary and vectors files (default: the index parts in `files`, else the descriptor's names). */
    names?: { vocab: string; vectors: string },
  ) {
    this.table = parseStaticTable(descriptor, vocabText, vectors, names ?? (files?.['vocab.txt'] && files['vectors.bin'] ? { vocab: files['vocab.txt'], vectors: files['vectors.bin'] } : descriptor.files))
    this.identity = {
      id: descriptor.id,
      kind: 'local',
      model: `static:${descriptor.id}`,
      dims: descriptor.dims,
      quantization: 'int8',
      ...(files ? { files } : {}),
    }
  }

  embedOne(text: string): Float32Array {
    const { dims, scales, rows, index } = this.table
    const sum = new Float64Array(dims)
    for (const tok of staticTokens(text, this.descriptor.tokenizer.pattern)) {
      const i = index.get(tok)
      if (i === undefined) continue
      const s = scales[i]!
      const base = i * dims
      for (let d = 0; d < dims; d++) sum[d] = sum[d]! + rows[base + d]! * s
    }
    return l2normalize(sum)
  }

  async embed(texts: string[]): Promise<Float32Array[]> {
    return texts.map((t) => this.embedOne(t))
  }
}
