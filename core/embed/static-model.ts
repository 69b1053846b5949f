/**
 * The static (word-vector) model format shared by the build script, the
 * indexer and every runtime. A static model is a table of int8 rows with one
 * float32 scale per row; frequency (SIF) weights and the common-component
 * removal are folded into the rows at build time, so pooling at run time is
 * a plain sum followed by L2 normalization.
 */
import { decodeQuantized, type QuantizedRows } from '../index/quantized.ts'

export const STATIC_MODEL_FORMAT = 'docpilot-static-v1'

export interface StaticModelDescriptor {
  format: typeof STATIC_MODEL_FORMAT
  /** Stable embedder id the index is bound to. */
  id: string
  dims: number
  vocabSize: number
  /** Part name -> file name inside the model folder. */
  files: { vocab: string; vectors: string }
  tokenizer: { lowercase: true; pattern: string }
  /** Free-form provenance (source package, licence, build parameters). */
  provenance?: Record<string, unknown>
}

/** Token pattern: runs of letters and digits (Unicode), matched after lower-casing. */
export const STATIC_TOKEN_PATTERN = '[\\p{L}\\p{N}]+'

export interface StaticTable extends QuantizedRows {
  index: Map<string, number>
}

/** `names` say which files errors point at (paths, or the index parts the bytes came from). */
export function parseStaticTable(desc: StaticModelDescriptor, vocabText: string, vectors: Uint8Array, names: { vocab: string; vectors: string } = desc.files): StaticTable {
  const words = staticWords(desc, vocabText, names.vocab)
  const table = staticRows(desc, vectors, names.vectors)
  const index = new Map<string, number>()
  words.forEach((w, i) => index.set(w, i))
  return { ...table, index }
}

/** The vocabulary's words in row order, checked against the descriptor; `name` is what errors call the file. */
export function staticWords(desc: StaticModelDescriptor, vocabText: string, name = desc.files.vocab): string[] {
  const words = vocabText.split('\n')
  if (words.length > 0 && words[words.length - 1] === '') words.pop()
  if (words.length !== desc.vocabSize) {
    throw new Error(`static model "${desc.id}": ${name} has ${words.length} words, model.json says ${desc.vocabSize} (corrupt or from another model)`)
  }
  return words
}

/** The table's rows, checked against the descriptor; `name` is what errors call the file. */
export function staticRows(desc: StaticModelDescriptor, vectors: Uint8Array, name = desc.files.vectors): QuantizedRows {
  return decodeQuantized(vectors, desc.vocabSize, desc.dims, `static model "${desc.id}": ${name}`)
}
