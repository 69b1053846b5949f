/**
 * Exports a docpilot static model as a Hugging Face-style ONNX folder
 * (model.onnx + tokenizer.json + 1_Pooling/config.json), so the onnx
 * embedder runs end to end with real weights. The graph looks up each
 * token's int8 row and scale (Gather, Cast, Mul) and returns per-token
 * vectors; the onnx embedder's mask-aware mean pooling and normalization then
 * reproduce the static embedder's vector. Row 0 is [UNK], all zeros, so
 * unknown words add nothing, exactly as in the static embedder.
 *
 *   npx tsx scripts/onnx/export-static.ts [--model models/default-en] --out DIR
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { parseStaticTable, type StaticModelDescriptor } from '../../core/embed/static-model.ts'
import { encodeModel, int64Tensor, ONNX_FLOAT, ONNX_INT64, ONNX_INT8 } from './write.ts'

export const UNK = '[UNK]'

export function exportStaticOnnx(modelDir: string, out: string): { files: string[] } {
  const desc = JSON.parse(readFileSync(join(modelDir, 'model.json'), 'utf8')) as StaticModelDescriptor
  const vocabText = readFileSync(join(modelDir, desc.files.vocab), 'utf8')
  const table = parseStaticTable(desc, vocabText, readFileSync(join(modelDir, desc.files.vectors)))
  const V = table.count + 1
  const D = table.dims
  const rows = new Int8Array(V * D)
  rows.set(table.rows, D)
  const scales = new Float32Array(V)
  scales.set(table.scales, 1)

  const onnx = encodeModel(
    {
      name: `${desc.id}-onnx`,
      nodes: [
        { op: 'Gather', inputs: ['table', 'input_ids'], outputs: ['rows_i8'], attrs: [{ name: 'axis', int: 0 }] },
        { op: 'Cast', inputs: ['rows_i8'], outputs: ['rows_f'], attrs: [{ name: 'to', int: ONNX_FLOAT }] },
        { op: 'Gather', inputs: ['scales', 'input_ids'], outputs: ['row_scale'], attrs: [{ name: 'axis', int: 0 }] },
        { op: 'Unsqueeze', inputs: ['row_scale', 'last_axis'], outputs: ['row_scale3'] },
        { op: 'Mul', inputs: ['rows_f', 'row_scale3'], outputs: ['last_hidden_state'] },
      ],
      initializers: [
        { name: 'table', type: ONNX_INT8, dims: [V, D], data: new Uint8Array(rows.buffer) },
        { name: 'scales', type: ONNX_FLOAT, dims: [V], data: new Uint8Array(scales.buffer) },
        int64Tensor('last_axis', [1], [-1]),
      ],
      inputs: [
        { name: 'input_ids', type: ONNX_INT64, shape: ['batch', 'sequence'] },
        { name: 'attention_mask', type: ONNX_INT64, shape: ['batch', 'sequence'] },
      ],
      outputs: [{ name: 'last_hidden_state', type: ONNX_FLOAT, shape: ['batch', 'sequence', D] }],
    },
    { opset: 17, producer: 'docpilot scripts/onnx/export-static.ts' },
  )

  const vocab: Record<string, number> = { [UNK]: 0 }
  for (const [w, i] of table.index) vocab[w] = i + 1
  const tokenizer = {
    version: '1.0',
    truncation: null,
    padding: null,
    added_tokens: [{ id: 0, content: UNK, single_word: false, lstrip: false, rstrip: false, normalized: false, special: true }],
    normalizer: { type: 'Lowercase' },
    pre_tokenizer: { type: 'Split', pattern: { Regex: '[^\\p{L}\\p{N}]+' }, behavior: 'Removed', invert: false },
    post_processor: null,
    decoder: null,
    model: { type: 'WordLevel', vocab, unk_token: UNK },
  }
  mkdirSync(join(out, '1_Pooling'), { recursive: true })
  writeFileSync(join(out, 'model.onnx'), onnx)
  writeFileSync(join(out, 'tokenizer.json'), JSON.stringify(tokenizer))
  // No positions in a word table: no token limit beyond what a request holds.
  writeFileSync(join(out, 'tokenizer_config.json'), JSON.stringify({ model_max_length: 100000, unk_token: UNK }))
  writeFileSync(join(out, '1_Pooling', 'config.json'), JSON.stringify({ word_embedding_dimension: D, pooling_mode_mean_tokens: true }))
  writeFileSync(join(out, 'config.json'), JSON.stringify({ model_type: 'docpilot-static', hidden_size: D, source: desc.id }))
  return { files: ['model.onnx', 'tokenizer.json', 'tokenizer_config.json', '1_Pooling/config.json', 'config.json'] }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { model: { type: 'string', default: 'models/default-en' }, out: { type: 'string' } } })
  if (!values.out) {
    console.error('usage: npx tsx scripts/onnx/export-static.ts [--model DIR] --out DIR')
    process.exit(2)
  }
  exportStaticOnnx(values.model!, values.out)
  console.log(`wrote ONNX export of ${values.model} to ${values.out}`)
}
