/**
 * The static (word-vector) model format shared by the build script, the
 * indexer and every runtime. A static model is a table of int8 rows with one
 * float32 scale per row; frequency (SIF) weights and the common-component
 * removal are folded into the rows at build time, so pooling at run time is
 * a plain sum followed by L2 normalization.
 */

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

/** Layout of vectors.bin: float32 scales (vocabSize), then int8 rows (vocabSize x dims), little-endian. */
export function vectorsByteLength(vocabSize: number, dims: number): number {
  return vocabSize * 4 + vocabSize * dims
}

export interface StaticTable {
  dims: number
  scales: Float32Array
  rows: Int8Array
  index: Map<string, number>
}

export function parseStaticTable(desc: StaticModelDescriptor, vocabText: string, vectors: Uint8Array): StaticTable {
  const words = vocabText.split('\n')
  if (words.length > 0 && words[words.length - 1] === '') words.pop()
  if (words.length !== desc.vocabSize) {
    throw new Error(`static model "${desc.id}": vocabulary has ${words.length} words, descriptor says ${desc.vocabSize}`)
  }
  const expected = vectorsByteLength(desc.vocabSize, desc.dims)
  if (vectors.byteLength !== expected) {
    throw new Error(`static model "${desc.id}": vectors file has ${vectors.byteLength} bytes, expected ${expected}`)
  }
  // Copy so the typed views are aligned whatever buffer the bytes came in.
  const buf = vectors.slice().buffer
  const scales = new Float32Array(buf, 0, desc.vocabSize)
  const rows = new Int8Array(buf, desc.vocabSize * 4, desc.vocabSize * desc.dims)
  const index = new Map<string, number>()
  words.forEach((w, i) => index.set(w, i))
  return { dims: desc.dims, scales, rows, index }
}
