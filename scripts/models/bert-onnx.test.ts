import { describe, expect, it } from 'vitest'
import { OnnxEmbedder } from '../../core/embed/onnx.ts'
import { l2normalize } from '../../core/embed/types.ts'
import { tinyBert } from '../onnx/tiny-bert.ts'
import { bertToOnnx, ConversionError, type BertConfig } from './bert-onnx.ts'
import type { SafeTensor } from './safetensors.ts'

const CONFIG: BertConfig = { hidden_size: 8, num_attention_heads: 2, num_hidden_layers: 2, intermediate_size: 12, layer_norm_eps: 1e-12, hidden_act: 'gelu', model_type: 'bert' }
const VOCAB = 17
const MAX_POS = 16

function rand(seed: number): () => number {
  let s = seed >>> 0
  return () => {
    s = (Math.imul(s, 1664525) + 1013904223) >>> 0
    return (s / 2 ** 32 - 0.5) * 0.8
  }
}

/** Random BERT weights named as a sentence-transformers safetensors file names them. */
function weights(): Map<string, SafeTensor> {
  const r = rand(11)
  const m = new Map<string, SafeTensor>()
  const put = (name: string, shape: number[]) => m.set(name, { dtype: 'F32', shape, data: Float32Array.from({ length: shape.reduce((a, b) => a * b, 1) }, r) })
  const D = CONFIG.hidden_size
  const F = CONFIG.intermediate_size
  put('embeddings.word_embeddings.weight', [VOCAB, D])
  put('embeddings.position_embeddings.weight', [MAX_POS, D])
  put('embeddings.token_type_embeddings.weight', [2, D])
  put('embeddings.LayerNorm.weight', [D])
  put('embeddings.LayerNorm.bias', [D])
  for (let l = 0; l < CONFIG.num_hidden_layers; l++) {
    const L = `encoder.layer.${l}`
    for (const k of ['query', 'key', 'value']) put(`${L}.attention.self.${k}.weight`, [D, D]), put(`${L}.attention.self.${k}.bias`, [D])
    put(`${L}.attention.output.dense.weight`, [D, D])
    put(`${L}.attention.output.dense.bias`, [D])
    put(`${L}.attention.output.LayerNorm.weight`, [D])
    put(`${L}.attention.output.LayerNorm.bias`, [D])
    put(`${L}.intermediate.dense.weight`, [F, D])
    put(`${L}.intermediate.dense.bias`, [F])
    put(`${L}.output.dense.weight`, [D, F])
    put(`${L}.output.dense.bias`, [D])
    put(`${L}.output.LayerNorm.weight`, [D])
    put(`${L}.output.LayerNorm.bias`, [D])
  }
  return m
}

/** BERT's forward pass for one unpadded sequence, written out plainly (the textbook definition). */
function reference(w: Map<string, SafeTensor>, ids: number[]): number[][] {
  const D = CONFIG.hidden_size
  const H = CONFIG.num_attention_heads
  const dh = D / H
  const t = (n: string) => w.get(n)!.data
  const linear = (x: number[], n: string) => {
    const W = w.get(`${n}.weight`)!
    const [out, inn] = W.shape as [number, number]
    const b = t(`${n}.bias`)
    return Array.from({ length: out }, (_, o) => x.reduce((s, xi, i) => s + xi * W.data[o * inn + i]!, b[o]!))
  }
  const ln = (x: number[], n: string) => {
    const mu = x.reduce((a, b) => a + b, 0) / x.length
    const v = x.reduce((a, b) => a + (b - mu) ** 2, 0) / x.length
    return x.map((xi, i) => ((xi - mu) / Math.sqrt(v + 1e-12)) * t(`${n}.weight`)[i]! + t(`${n}.bias`)[i]!)
  }
  const erf = (x: number) => {
    // Abramowitz-Stegun 7.1.26 is too coarse for 1e-4; integrate instead.
    let s = 0
    const steps = 2000
    for (let k = 0; k < steps; k++) {
      const u = (x * (k + 0.5)) / steps
      s += Math.exp(-u * u)
    }
    return ((2 / Math.sqrt(Math.PI)) * s * x) / steps
  }
  let xs = ids.map((id, p) => ln(Array.from({ length: D }, (_, d) => t('embeddings.word_embeddings.weight')[id * D + d]! + t('embeddings.position_embeddings.weight')[p * D + d]! + t('embeddings.token_type_embeddings.weight')[d]!), 'embeddings.LayerNorm'))
  for (let l = 0; l < CONFIG.num_hidden_layers; l++) {
    const L = `encoder.layer.${l}`
    const q = xs.map((x) => linear(x, `${L}.attention.self.query`))
    const k = xs.map((x) => linear(x, `${L}.attention.self.key`))
    const v = xs.map((x) => linear(x, `${L}.attention.self.value`))
    const ctx = xs.map((_, i) => {
      const out = new Array<number>(D).fill(0)
      for (let h = 0; h < H; h++) {
        const s = xs.map((_, j) => { let d = 0; for (let e = 0; e < dh; e++) d += q[i]![h * dh + e]! * k[j]![h * dh + e]!; return d / Math.sqrt(dh) })
        const mx = Math.max(...s)
        const ex = s.map((z) => Math.exp(z - mx))
        const sum = ex.reduce((a, b) => a + b, 0)
        xs.forEach((_, j) => { for (let e = 0; e < dh; e++) out[h * dh + e]! += (ex[j]! / sum) * v[j]![h * dh + e]! })
      }
      return out
    })
    const attn = xs.map((x, i) => ln(linear(ctx[i]!, `${L}.attention.output.dense`).map((y, d) => y + x[d]!), `${L}.attention.output.LayerNorm`))
    xs = attn.map((a) => {
      const hmid = linear(a, `${L}.intermediate.dense`).map((z) => 0.5 * z * (1 + erf(z / Math.SQRT2)))
      return ln(linear(hmid, `${L}.output.dense`).map((y, d) => y + a[d]!), `${L}.output.LayerNorm`)
    })
  }
  return xs
}

describe('BERT safetensors -> ONNX', () => {
  const w = weights()
  const tokenizer = tinyBert().tokenizer
  const texts = ['hello world', 'set the cookie, get the cookies!', 'routing']

  it('computes the BERT encoder: mean-pooled output matches a plain reference forward pass', async () => {
    const e = await OnnxEmbedder.create({ model: bertToOnnx(w, CONFIG), tokenizer }, { id: 't', model: 't', dims: 8 }, { batchSize: 3 })
    const { Tokenizer } = await import('../../core/embed/tokenizer.ts')
    const tok = new Tokenizer(tokenizer)
    const got = await e.embed(texts)
    texts.forEach((text, i) => {
      const rows = reference(w, tok.encode(text).ids)
      const mean = l2normalize(Float64Array.from({ length: 8 }, (_, d) => rows.reduce((s, r) => s + r[d]!, 0)))
      for (let d = 0; d < 8; d++) expect(got[i]![d]).toBeCloseTo(mean[d]!, 4)
    })
  })

  it('names the missing tensor and refuses a model that is not BERT', () => {
    const partial = new Map(w)
    partial.delete('encoder.layer.1.output.dense.weight')
    expect(() => bertToOnnx(partial, CONFIG)).toThrow(/no tensor "encoder.layer.1.output.dense.weight"/)
    expect(() => bertToOnnx(w, { ...CONFIG, model_type: 'mpnet' })).toThrow(ConversionError)
  })
})
