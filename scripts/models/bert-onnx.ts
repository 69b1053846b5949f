/**
 * Converts a BERT-family sentence encoder's weights (safetensors, as in a
 * sentence-transformers repo: MiniLM, bge, e5, gte) into an ONNX graph that
 * onnxruntime-web runs, with no Python and no torch. The graph is the
 * standard post-LayerNorm BERT encoder:
 *
 *   embeddings: word + token type + position, LayerNorm
 *   each layer: multi-head self-attention (padding masked out), residual,
 *               LayerNorm; feed-forward with exact (erf) GELU, residual, LayerNorm
 *
 * Inputs input_ids / attention_mask / token_type_ids [batch, sequence];
 * output last_hidden_state [batch, sequence, hidden]; pooling stays in
 * docpilot's onnx embedder. Written with scripts/onnx/write.ts.
 */
import { encodeModel, floatTensor, int64Tensor, ONNX_FLOAT, ONNX_INT64, type Node, type Tensor } from '../onnx/write.ts'
import type { SafeTensor } from './safetensors.ts'

export interface BertConfig {
  hidden_size: number
  num_attention_heads: number
  num_hidden_layers: number
  intermediate_size: number
  layer_norm_eps?: number
  hidden_act?: string
  model_type?: string
}

export class ConversionError extends Error {
  override name = 'ConversionError'
}

/** PyTorch Linear weights are [out, in]; MatMul wants [in, out]. */
function transposed(t: SafeTensor): Float32Array {
  const [rows, cols] = t.shape as [number, number]
  const out = new Float32Array(rows * cols)
  for (let r = 0; r < rows; r++) for (let c = 0; c < cols; c++) out[c * rows + r] = t.data[r * cols + c]!
  return out
}

export function bertToOnnx(weights: Map<string, SafeTensor>, config: BertConfig, name = 'bert'): Uint8Array {
  if (config.model_type && config.model_type !== 'bert') throw new ConversionError(`config.json: model_type "${config.model_type}" is not "bert"`)
  if (config.hidden_act && config.hidden_act !== 'gelu') throw new ConversionError(`config.json: hidden_act "${config.hidden_act}" is not "gelu"`)
  const D = config.hidden_size
  const H = config.num_attention_heads
  if (D % H !== 0) throw new ConversionError(`config.json: hidden_size ${D} is not a multiple of num_attention_heads ${H}`)
  const eps = config.layer_norm_eps ?? 1e-12
  // Repos saved from BertModel have no "bert." prefix; from BertFor* they do.
  const prefix = weights.has('embeddings.word_embeddings.weight') ? '' : 'bert.'
  const w = (key: string): SafeTensor => {
    const t = weights.get(prefix + key)
    if (!t) throw new ConversionError(`model.safetensors has no tensor "${prefix + key}" (is this a BERT encoder?)`)
    return t
  }

  const nodes: Node[] = []
  const inits: Tensor[] = []
  const add = (op: string, inputs: string[], output: string, attrs?: Node['attrs']) => {
    nodes.push({ op, inputs, outputs: [output], ...(attrs ? { attrs } : {}) })
    return output
  }
  const init = (n: string, t: SafeTensor, transpose = false) => {
    inits.push(floatTensor(n, transpose ? [t.shape[1]!, t.shape[0]!] : t.shape, transpose ? transposed(t) : t.data))
    return n
  }
  const layerNorm = (x: string, key: string, out: string) =>
    add('LayerNormalization', [x, init(`${key}.weight`, w(`${key}.weight`)), init(`${key}.bias`, w(`${key}.bias`))], out, [
      { name: 'axis', int: -1 },
      { name: 'epsilon', float: eps },
    ])
  const linear = (x: string, key: string, out: string) =>
    add('Add', [add('MatMul', [x, init(`${key}.weight`, w(`${key}.weight`), true)], `${out}.mm`), init(`${key}.bias`, w(`${key}.bias`))], out)

  inits.push(
    int64Tensor('zero', [], [0]),
    int64Tensor('one', [], [1]),
    int64Tensor('mask_axes', [2], [1, 2]),
    int64Tensor('heads_shape', [4], [0, 0, H, D / H]),
    int64Tensor('hidden_shape', [3], [0, 0, D]),
    floatTensor('f_one', [], [1]),
    floatTensor('f_half', [], [0.5]),
    floatTensor('f_sqrt2', [], [Math.SQRT2]),
    floatTensor('f_neg', [], [-10000]),
    floatTensor('f_scale', [], [1 / Math.sqrt(D / H)]),
  )

  // Embeddings.
  const we = add('Gather', [init('word', w('embeddings.word_embeddings.weight')), 'input_ids'], 'we')
  const te = add('Gather', [init('type', w('embeddings.token_type_embeddings.weight')), 'token_type_ids'], 'te')
  const seq = add('Gather', [add('Shape', ['input_ids'], 'ids_shape'), 'one'], 'seq_len', [{ name: 'axis', int: 0 }])
  const pe = add('Gather', [init('pos', w('embeddings.position_embeddings.weight')), add('Range', ['zero', seq, 'one'], 'pos_ids')], 'pe')
  let x = layerNorm(add('Add', [add('Add', [we, te], 'wt'), pe], 'emb_sum'), 'embeddings.LayerNorm', 'emb')

  // Padding positions get -10000 before the softmax: exp() of that is 0 in float32.
  const maskf = add('Cast', ['attention_mask'], 'maskf', [{ name: 'to', int: ONNX_FLOAT }])
  const maskAdd = add('Unsqueeze', [add('Mul', [add('Sub', ['f_one', maskf], 'mask_inv'), 'f_neg'], 'mask_neg'), 'mask_axes'], 'mask_add')

  for (let i = 0; i < config.num_hidden_layers; i++) {
    const L = `encoder.layer.${i}`
    const heads = (key: string, perm: number[]) =>
      add('Transpose', [add('Reshape', [linear(x, `${L}.attention.self.${key}`, `${L}.${key}`), 'heads_shape'], `${L}.${key}.heads`)], `${L}.${key}.t`, [{ name: 'perm', ints: perm }])
    const q = heads('query', [0, 2, 1, 3])
    const k = heads('key', [0, 2, 3, 1])
    const v = heads('value', [0, 2, 1, 3])
    const scores = add('Add', [add('Mul', [add('MatMul', [q, k], `${L}.qk`), 'f_scale'], `${L}.qk_scaled`), maskAdd], `${L}.scores`)
    const probs = add('Softmax', [scores], `${L}.probs`, [{ name: 'axis', int: -1 }])
    const ctx = add('Reshape', [add('Transpose', [add('MatMul', [probs, v], `${L}.ctx_heads`)], `${L}.ctx_t`, [{ name: 'perm', ints: [0, 2, 1, 3] }]), 'hidden_shape'], `${L}.ctx`)
    const attn = layerNorm(add('Add', [linear(ctx, `${L}.attention.output.dense`, `${L}.attn_out`), x], `${L}.attn_res`), `${L}.attention.output.LayerNorm`, `${L}.attn`)
    const h = linear(attn, `${L}.intermediate.dense`, `${L}.ff_in`)
    // Exact GELU: 0.5 * h * (1 + erf(h / sqrt 2)).
    const gelu = add('Mul', [add('Mul', [h, 'f_half'], `${L}.half`), add('Add', ['f_one', add('Erf', [add('Div', [h, 'f_sqrt2'], `${L}.scaled`)], `${L}.erf`)], `${L}.erf1`)], `${L}.gelu`)
    const out = linear(gelu, `${L}.output.dense`, `${L}.ff_out`)
    x = layerNorm(add('Add', [out, attn], `${L}.ff_res`), `${L}.output.LayerNorm`, i === config.num_hidden_layers - 1 ? 'last_hidden_state' : `${L}.out`)
  }

  return encodeModel(
    {
      name,
      nodes,
      initializers: inits,
      inputs: [
        { name: 'input_ids', type: ONNX_INT64, shape: ['batch', 'sequence'] },
        { name: 'attention_mask', type: ONNX_INT64, shape: ['batch', 'sequence'] },
        { name: 'token_type_ids', type: ONNX_INT64, shape: ['batch', 'sequence'] },
      ],
      outputs: [{ name: 'last_hidden_state', type: ONNX_FLOAT, shape: ['batch', 'sequence', D] }],
    },
    { opset: 17, producer: 'docpilot scripts/models/bert-onnx.ts' },
  )
}
