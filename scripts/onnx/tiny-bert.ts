/**
 * Generates a tiny BERT-shaped encoder for tests: WordPiece tokenizer.json
 * with [CLS]/[SEP]/[PAD]/[UNK], inputs input_ids / attention_mask /
 * token_type_ids, output last_hidden_state [batch, sequence, hidden].
 * Each token's vector mixes in a mask-weighted mean of the sequence (a crude
 * stand-in for attention), so feeding the wrong mask changes real tokens'
 * outputs, which is what a pooling-and-masks test must be able to catch.
 * `reference` recomputes the same function in plain TypeScript.
 */
import { encodeModel, floatTensor, int64Tensor, ONNX_FLOAT, ONNX_INT64 } from './write.ts'

export const TINY_VOCAB = ['[PAD]', '[UNK]', '[CLS]', '[SEP]', 'hello', 'world', 'route', 'rout', '##ing', '##er', 'cookie', '##s', 'the', ',', '!', 'set', 'get']
export const TINY_HIDDEN = 8
export const TINY_MAX_POS = 16

function rand(seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0
    return s / 2 ** 32 - 0.5
  }
}

export interface TinyBert {
  onnx: Uint8Array
  tokenizer: unknown
  weights: { word: Float32Array; type: Float32Array; pos: Float32Array; w: Float32Array }
}

export function tinyBert(seed = 7): TinyBert {
  const r = rand(seed)
  const H = TINY_HIDDEN
  const word = Float32Array.from({ length: TINY_VOCAB.length * H }, r)
  const type = Float32Array.from({ length: 2 * H }, r)
  const pos = Float32Array.from({ length: TINY_MAX_POS * H }, r)
  const w = Float32Array.from({ length: H * H }, r)
  const onnx = encodeModel({
    name: 'tiny-bert',
    nodes: [
      { op: 'Gather', inputs: ['word', 'input_ids'], outputs: ['we'] },
      { op: 'Gather', inputs: ['type', 'token_type_ids'], outputs: ['te'] },
      { op: 'Shape', inputs: ['input_ids'], outputs: ['shape'] },
      { op: 'Gather', inputs: ['shape', 'one'], outputs: ['seq_len'], attrs: [{ name: 'axis', int: 0 }] },
      { op: 'Range', inputs: ['zero', 'seq_len', 'one'], outputs: ['pos_ids'] },
      { op: 'Gather', inputs: ['pos', 'pos_ids'], outputs: ['pe'] },
      { op: 'Add', inputs: ['we', 'te'], outputs: ['wt'] },
      { op: 'Add', inputs: ['wt', 'pe'], outputs: ['emb'] },
      { op: 'Cast', inputs: ['attention_mask'], outputs: ['maskf'], attrs: [{ name: 'to', int: ONNX_FLOAT }] },
      { op: 'Unsqueeze', inputs: ['maskf', 'last_axis'], outputs: ['mask3'] },
      { op: 'Mul', inputs: ['emb', 'mask3'], outputs: ['masked'] },
      { op: 'ReduceSum', inputs: ['masked', 'seq_axis'], outputs: ['ctx_sum'], attrs: [{ name: 'keepdims', int: 1 }] },
      { op: 'ReduceSum', inputs: ['mask3', 'seq_axis'], outputs: ['ctx_n'], attrs: [{ name: 'keepdims', int: 1 }] },
      { op: 'Div', inputs: ['ctx_sum', 'ctx_n'], outputs: ['ctx'] },
      { op: 'Add', inputs: ['emb', 'ctx'], outputs: ['mixed'] },
      { op: 'MatMul', inputs: ['mixed', 'w'], outputs: ['proj'] },
      { op: 'Tanh', inputs: ['proj'], outputs: ['last_hidden_state'] },
    ],
    initializers: [
      floatTensor('word', [TINY_VOCAB.length, H], word),
      floatTensor('type', [2, H], type),
      floatTensor('pos', [TINY_MAX_POS, H], pos),
      floatTensor('w', [H, H], w),
      { ...int64Tensor('zero', [], [0]) },
      { ...int64Tensor('one', [], [1]) },
      int64Tensor('last_axis', [1], [-1]),
      int64Tensor('seq_axis', [1], [1]),
    ],
    inputs: [
      { name: 'input_ids', type: ONNX_INT64, shape: ['batch', 'sequence'] },
      { name: 'attention_mask', type: ONNX_INT64, shape: ['batch', 'sequence'] },
      { name: 'token_type_ids', type: ONNX_INT64, shape: ['batch', 'sequence'] },
    ],
    outputs: [{ name: 'last_hidden_state', type: ONNX_FLOAT, shape: ['batch', 'sequence', H] }],
  })
  const vocab = Object.fromEntries(TINY_VOCAB.map((t, i) => [t, i]))
  const tokenizer = {
    version: '1.0',
    truncation: null,
    padding: null,
    normalizer: { type: 'BertNormalizer', clean_text: true, handle_chinese_chars: true, strip_accents: null, lowercase: true },
    pre_tokenizer: { type: 'BertPreTokenizer' },
    post_processor: {
      type: 'TemplateProcessing',
      single: [{ SpecialToken: { id: '[CLS]', type_id: 0 } }, { Sequence: { id: 'A', type_id: 0 } }, { SpecialToken: { id: '[SEP]', type_id: 0 } }],
      special_tokens: { '[CLS]': { id: '[CLS]', ids: [2], tokens: ['[CLS]'] }, '[SEP]': { id: '[SEP]', ids: [3], tokens: ['[SEP]'] } },
    },
    model: { type: 'WordPiece', unk_token: '[UNK]', continuing_subword_prefix: '##', max_input_chars_per_word: 100, vocab },
  }
  return { onnx, tokenizer, weights: { word, type, pos, w } }
}

/** The encoder's per-token output for one unpadded sequence, in plain TypeScript. */
export function reference(t: TinyBert, ids: number[]): Float64Array[] {
  const H = TINY_HIDDEN
  const { word, type, pos, w } = t.weights
  const emb = ids.map((id, p) => Float64Array.from({ length: H }, (_, d) => word[id * H + d]! + type[d]! + pos[p * H + d]!))
  const ctx = Float64Array.from({ length: H }, (_, d) => emb.reduce((s, e) => s + e[d]!, 0) / emb.length)
  return emb.map((e) =>
    Float64Array.from({ length: H }, (_, j) => {
      let s = 0
      for (let d = 0; d < H; d++) s += (e[d]! + ctx[d]!) * w[d * H + j]!
      return Math.tanh(s)
    }),
  )
}
