import { mkdtempSync, readFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { sharedPath } from '../../fixtures/shared-data.ts'
import { exportStaticOnnx } from '../../scripts/onnx/export-static.ts'
import { reference, tinyBert } from '../../scripts/onnx/tiny-bert.ts'
import { DEFAULT_MODEL_DIR } from '../../cli/package-root.ts'
import { OnnxEmbedder } from './onnx.ts'
import { promptPrefixes } from './onnx-folder.ts'
import { StaticEmbedder } from './static.ts'
import { Tokenizer } from './tokenizer.ts'
import { l2normalize } from './types.ts'

const identity = { id: 'test', model: 'test', dims: 8 }
const maxDiff = (a: ArrayLike<number>, b: ArrayLike<number>) => Array.from(a).reduce((m, x, i) => Math.max(m, Math.abs(x - b[i]!)), 0)

describe('WordPiece tokenizer (tokenizer.json)', () => {
  const tok = new Tokenizer(tinyBert().tokenizer)
  it('lower-cases, splits punctuation, matches sub-words and adds [CLS]/[SEP]', () => {
    // [CLS] hello , rout ##ing cookie ##s ! [UNK] [SEP]
    expect(tok.encode('Hello, Routing Cookies! zebra').ids).toEqual([2, 4, 13, 7, 8, 10, 11, 14, 1, 3])
  })
  it("splits off ASCII symbols and Unicode punctuation, but keeps other Unicode symbols in the word, as BERT does", () => {
    // [CLS] hello [UNK] world [SEP]: "├──" is one unknown word, not three; "$" and "…" split off as punctuation
    expect(tok.encode('hello ├── world').ids).toEqual([2, 4, 1, 5, 3])
    expect(tok.encode('hello$world').ids).toEqual([2, 4, 1, 5, 3])
    expect(tok.encode('hello…world').ids).toEqual([2, 4, 1, 5, 3])
  })
  it("takes sentence-transformers' max_seq_length over the tokenizer file's own truncation", () => {
    const json = { ...(tinyBert().tokenizer as object), truncation: { max_length: 4 } }
    expect(new Tokenizer(json).encode('hello world route cookie').ids).toEqual([2, 4, 5, 3])
    expect(new Tokenizer(json, {}, 512, 6).encode('hello world route cookie').ids).toEqual([2, 4, 5, 6, 10, 3])
  })
  it('truncates to the token limit and keeps the special tokens', () => {
    const short = new Tokenizer(tinyBert().tokenizer, {}, 4)
    expect(short.encode('hello world route cookie').ids).toEqual([2, 4, 5, 3])
  })
})

describe('onnx embedder on a tiny BERT-shaped model', () => {
  const model = tinyBert()
  const texts = ['hello', 'set the cookie, get the cookies!', 'routing world']

  it('mean-pools real tokens only and L2-normalizes, matching a plain TypeScript reference', async () => {
    const e = await OnnxEmbedder.create({ model: model.onnx, tokenizer: model.tokenizer }, identity)
    const tok = new Tokenizer(model.tokenizer)
    const vecs = await e.embed(texts)
    vecs.forEach((v, i) => {
      const rows = reference(model, tok.encode(texts[i]!).ids)
      const mean = Float64Array.from({ length: 8 }, (_, d) => rows.reduce((s, r) => s + r[d]!, 0))
      expect(maxDiff(v, l2normalize(mean))).toBeLessThan(1e-5)
    })
  })

  it('gives the same vector batched with padding as alone (the mask reaches the model)', async () => {
    const e = await OnnxEmbedder.create({ model: model.onnx, tokenizer: model.tokenizer }, identity, { batchSize: 3 })
    const batched = await e.embed(texts)
    for (let i = 0; i < texts.length; i++) {
      const [alone] = await e.embed([texts[i]!])
      expect(maxDiff(batched[i]!, alone!)).toBeLessThan(1e-5)
    }
  })

  it('uses the [CLS] vector when the pooling config says so', async () => {
    const e = await OnnxEmbedder.create({ model: model.onnx, tokenizer: model.tokenizer, pooling: { pooling_mode_cls_token: true } }, identity)
    const [v] = await e.embed(['hello world'])
    const rows = reference(model, new Tokenizer(model.tokenizer).encode('hello world').ids)
    expect(maxDiff(v!, l2normalize(rows[0]!))).toBeLessThan(1e-5)
  })

  it("prefixes questions and passages with the folder's prompts (sentence-transformers' config)", async () => {
    const sentenceTransformers = { prompts: { query: 'world ', document: 'cookie ' } }
    const prompted = await OnnxEmbedder.create({ model: model.onnx, tokenizer: model.tokenizer, sentenceTransformers }, identity)
    const plain = await OnnxEmbedder.create({ model: model.onnx, tokenizer: model.tokenizer }, identity)
    const [asQuestion] = await prompted.embed(['hello'], { purpose: 'query' })
    const [asPassage] = await prompted.embed(['hello'], { purpose: 'document' })
    const [worldHello, cookieHello, hello] = await plain.embed(['world hello', 'cookie hello', 'hello'])
    expect(maxDiff(asQuestion!, worldHello!)).toBeLessThan(1e-6)
    expect(maxDiff(asPassage!, cookieHello!)).toBeLessThan(1e-6)
    expect(maxDiff(asQuestion!, hello!)).toBeGreaterThan(1e-3)
  })

  it('rejects a file that is not an ONNX model', async () => {
    await expect(OnnxEmbedder.create({ model: new Uint8Array([1, 2, 3]), tokenizer: model.tokenizer }, identity)).rejects.toThrow(/model.onnx could not be loaded/)
  })
})

describe("a folder's prompts", () => {
  it("reads sentence-transformers' query and document prompts, 'passage' standing for 'document'", () => {
    expect(promptPrefixes({ prompts: { query: 'query: ', passage: 'passage: ' } })).toEqual({ query: 'query: ', document: 'passage: ' })
    expect(promptPrefixes({ prompts: { query: 'Represent this sentence: ', document: '' } })).toEqual({ query: 'Represent this sentence: ' })
    expect(promptPrefixes(undefined)).toEqual({})
  })
})

describe('the offline default model exported as ONNX', () => {
  it('produces the static embedder vectors through onnxruntime-web', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'dp-onnx-'))
    exportStaticOnnx(DEFAULT_MODEL_DIR.pathname, dir)
    const read = (n: string) => readFileSync(new URL(n, DEFAULT_MODEL_DIR))
    const stat = new StaticEmbedder(JSON.parse(read('model.json').toString()), read('vocab.txt').toString(), read('vectors.bin'))
    const onnx = await OnnxEmbedder.create(
      {
        model: readFileSync(join(dir, 'model.onnx')),
        tokenizer: JSON.parse(readFileSync(join(dir, 'tokenizer.json'), 'utf8')),
        tokenizerConfig: JSON.parse(readFileSync(join(dir, 'tokenizer_config.json'), 'utf8')),
      },
      { id: 'x', model: 'x', dims: 256 },
    )
    const questions = readFileSync(sharedPath('eval/hono-dev.jsonl'), 'utf8').trim().split('\n').map((l) => (JSON.parse(l) as { q: string }).q)
    const a = await stat.embed(questions)
    const b = await onnx.embed(questions)
    const worst = Math.max(...a.map((v, i) => maxDiff(v, b[i]!)))
    expect(worst).toBeLessThan(1e-5)
  })
})
