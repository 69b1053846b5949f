/**
 * The `onnx` embedder: a Hugging Face-style folder (model.onnx, tokenizer.json,
 * optional tokenizer_config.json and 1_Pooling/config.json) run by
 * onnxruntime-web. The same code runs in Node (the CLI) and in the browser's
 * worker; only where the wasm files come from differs (`ort.env.wasm.wasmPaths`,
 * set by the host before the first session).
 *
 * Pooling: attention-mask mean over the token vectors (or the [CLS] vector when
 * the folder's pooling config says so), then L2 normalization.
 *
 * Prompts: the folder's (see onnx-folder.ts), unless options name others.
 */
import * as ort from 'onnxruntime-web'
import type { EmbedderIdentity } from '../index/format.ts'
import { promptPrefixes, type OnnxFolder, type Prefixes } from './onnx-folder.ts'
import { Tokenizer } from './tokenizer.ts'
import { EmbedError, l2normalize, type EmbedOptions, type Embedder } from './types.ts'

export type { OnnxFolder } from './onnx-folder.ts'

export interface OnnxOptions {
  /** Texts per session run (default 16). */
  batchSize?: number
  /** Token limit below the model's own (default: sentence_bert_config.json's, else the tokenizer's, at most 512). */
  maxTokens?: number
  /** Retrieval prefixes, over the folder's prompts (e5: 'query: ' / 'passage: '). */
  prefixes?: Prefixes
}

export class OnnxEmbedder implements Embedder {
  private queue: Promise<unknown> = Promise.resolve()

  private constructor(
    readonly identity: EmbedderIdentity,
    private readonly session: ort.InferenceSession,
    private readonly tokenizer: Tokenizer,
    private readonly pooling: 'mean' | 'cls',
    private readonly opts: OnnxOptions,
  ) {}

  static async create(folder: OnnxFolder, identity: Omit<EmbedderIdentity, 'kind' | 'quantization'> & { quantization?: string }, opts: OnnxOptions = {}): Promise<OnnxEmbedder> {
    let session: ort.InferenceSession
    try {
      session = await ort.InferenceSession.create(folder.model)
    } catch (err) {
      throw new EmbedError(`${folder.modelName ?? 'model.onnx'} could not be loaded as an ONNX model (corrupt or truncated?): ${err instanceof Error ? err.message : String(err)}`, 'bad_model', { cause: err })
    }
    if (!session.inputNames.includes('input_ids')) {
      throw new EmbedError(`model.onnx takes inputs [${session.inputNames.join(', ')}]; an encoder with "input_ids" is expected`, 'bad_model')
    }
    const tokenizer = new Tokenizer(folder.tokenizer, folder.tokenizerConfig, opts.maxTokens ?? 512, folder.sentenceBert?.max_seq_length)
    const pooling = folder.pooling?.pooling_mode_cls_token && !folder.pooling.pooling_mode_mean_tokens ? 'cls' : 'mean'
    const prefixes = opts.prefixes ?? promptPrefixes(folder.sentenceTransformers)
    return new OnnxEmbedder({ quantization: 'int8', ...identity, kind: 'local' }, session, tokenizer, pooling, { ...opts, prefixes })
  }

  async embed(texts: string[], opts: EmbedOptions = {}): Promise<Float32Array[]> {
    const prefix = (opts.purpose === 'query' ? this.opts.prefixes?.query : this.opts.prefixes?.document) ?? ''
    const batch = this.opts.batchSize ?? 16
    const out: Float32Array[] = []
    for (let i = 0; i < texts.length; i += batch) {
      opts.signal?.throwIfAborted()
      const encoded = texts.slice(i, i + batch).map((t) => this.tokenizer.encode(prefix + t).ids)
      // One session run at a time: runs on a session must not overlap.
      const run = this.queue.then(() => this.run(encoded))
      this.queue = run.catch(() => undefined)
      out.push(...(await run))
    }
    return out
  }

  private async run(batch: number[][]): Promise<Float32Array[]> {
    const B = batch.length
    const T = Math.max(1, ...batch.map((ids) => ids.length))
    const ids = new BigInt64Array(B * T).fill(BigInt(this.tokenizer.padId))
    const mask = new BigInt64Array(B * T)
    batch.forEach((row, b) =>
      row.forEach((id, t) => {
        ids[b * T + t] = BigInt(id)
        mask[b * T + t] = 1n
      }),
    )
    const feeds: Record<string, ort.Tensor> = {}
    for (const name of this.session.inputNames) {
      if (name === 'input_ids') feeds[name] = new ort.Tensor('int64', ids, [B, T])
      else if (name === 'attention_mask') feeds[name] = new ort.Tensor('int64', mask, [B, T])
      else if (name === 'token_type_ids') feeds[name] = new ort.Tensor('int64', new BigInt64Array(B * T), [B, T])
      else throw new EmbedError(`model.onnx wants input "${name}", which docpilot does not know how to fill`, 'bad_model')
    }
    const results = await this.session.run(feeds)
    const outName = this.session.outputNames.includes('last_hidden_state') ? 'last_hidden_state' : this.session.outputNames[0]!
    const output = results[outName]!
    const data = output.data as Float32Array
    if (output.dims.length === 2) {
      // Already pooled by the graph (sentence_embedding outputs).
      const D = output.dims[1]!
      return batch.map((_, b) => l2normalize(data.subarray(b * D, (b + 1) * D)))
    }
    const D = output.dims[2]!
    return batch.map((row, b) => {
      const sum = new Float64Array(D)
      const n = this.pooling === 'cls' ? Math.min(1, row.length) : row.length
      for (let t = 0; t < n; t++) {
        const base = (b * T + t) * D
        for (let d = 0; d < D; d++) sum[d] = sum[d]! + data[base + d]!
      }
      return l2normalize(sum)
    })
  }
}
