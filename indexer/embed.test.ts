/**
 * Index-time embedding end to end: each embedder kind builds an index that the
 * shared core searcher opens in hybrid mode; the embedding cache keeps
 * unchanged chunks from ever reaching the embedder again; `hf:` models come
 * from a hub-shaped HTTP server once, then from the cache.
 */
import { createHash } from 'node:crypto'
import { cpSync, existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, utimesSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { validateConfig } from '../core/config/validate.ts'
import { cannotEmbed } from '../core/config/refusals.ts'
import { DEFAULT_MODEL_DIR } from '../cli/package-root.ts'
import { loadOnnx } from '../core/embed/load-onnx.ts'
import { openIndex } from '../core/retrieval/search.ts'
import { startFakeProviders, type FakeProviders } from '../fixtures/providers/index.ts'
import { exportStaticOnnx } from '../scripts/onnx/export-static.ts'
import { TINY_MAX_POS, tinyBert } from '../scripts/onnx/tiny-bert.ts'
import { buildIndex } from './build.ts'
import { embedChunks, envEmbedTransport, loadDefaultModel, resolveIndexEmbedder, type IndexEmbedder } from './embed.ts'
import { chunkEmbedText, embedDigest } from './embed-text.ts'
import type { Embedder } from '../core/embed/types.ts'
import type { ChunkRecord } from '../core/index/format.ts'
import { HubError } from './embed-hf.ts'
import { fsPartLoader } from './fs-parts.ts'

const SITE = fileURLToPath(new URL('../fixtures/site/', import.meta.url))
const QUESTION = 'How do I set and get values on the context?'
const tmp = (prefix: string) => mkdtempSync(join(tmpdir(), prefix))
/** Index builds load real models; generous on a machine shared by several people. */
const SLOW = 180_000
const maxDiff = (a: ArrayLike<number>, b: ArrayLike<number>) => Array.from(a).reduce((m, x, i) => Math.max(m, Math.abs(x - b[i]!)), 0)
/** A copy of the default static model in a folder of its own. */
function modelCopy(): string {
  const dir = join(tmp('dp-model-'), 'model')
  cpSync(fileURLToPath(DEFAULT_MODEL_DIR), dir, { recursive: true })
  return dir
}
/** Another valid static table of the same size: every int8 value negated (scales first, one f32 per word, left as they are). */
function negatedTable(table: Buffer): Buffer {
  const { vocabSize } = JSON.parse(readFileSync(join(fileURLToPath(DEFAULT_MODEL_DIR), 'model.json'), 'utf8')) as { vocabSize: number }
  const out = Buffer.from(table)
  const values = new Int8Array(out.buffer, out.byteOffset + vocabSize * 4, out.length - vocabSize * 4)
  for (let i = 0; i < values.length; i++) values[i] = Math.min(127, -values[i]!)
  return out
}

async function build(embed: unknown, opts: { root?: string; env?: Record<string, string>; cacheDir?: string; out?: string } = {}) {
  const out = opts.out ?? join(tmp('dp-embed-'), 'index')
  const result = await buildIndex({
    root: opts.root ?? SITE,
    mode: 'source',
    out,
    config: validateConfig({ embed }, '(test)'),
    docpilotVersion: 'test',
    embed: { env: opts.env ?? {}, configDir: tmpdir(), cacheDir: opts.cacheDir ?? tmp('dp-cache-') },
  })
  return { out, result }
}

describe('embedChunks', () => {
  /** An embedder that says how many texts it was sent; each vector is the text's length, then 1. */
  function countingEmbedder(): { ie: IndexEmbedder; sent: string[] } {
    const sent: string[] = []
    const embedder: Embedder = {
      identity: { id: 'counting', kind: 'hosted', model: 'counting', dims: 2, quantization: 'int8' },
      embed: async (texts) => (sent.push(...texts), texts.map((t) => Float32Array.from([t.length, 1]))),
    }
    return { ie: { embedder, modelFiles: [], why: '' }, sent }
  }
  const chunk = (text: string): ChunkRecord => ({ id: 'a.md#', path: 'a.md', url: '/a', anchor: '', title: 'A', trail: ['A'], text })

  it('looks vectors up by the digests it is given (the page cache keeps them), and sends only the misses', async () => {
    const cacheDir = tmp('dp-embed-digests-')
    const { ie, sent } = countingEmbedder()
    const first = await embedChunks(ie, [chunk('kept')], { cacheDir })
    expect(first.embedded).toBe(1)
    const next = await embedChunks(ie, [chunk('a text whose digest the caller already has'), chunk('new')], {
      cacheDir,
      digests: [embedDigest(chunk('kept')), embedDigest(chunk('new'))],
    })
    expect([next.reused, next.embedded]).toEqual([1, 1])
    // What the codes memo keys each chunk's code by, and which chunks' vectors it cannot have seen.
    expect(next.digests).toEqual([embedDigest(chunk('kept')), embedDigest(chunk('new'))])
    expect(next.embeddedChunks).toEqual([1])
    expect(next.vectors[0]).toEqual(first.vectors[0])
    expect(sent).toEqual([chunkEmbedText(chunk('kept')), chunkEmbedText(chunk('new'))])
  })

  it('embeds a text several chunks hold once, and gives them its one vector: the vectors a later run finds in the cache', async () => {
    const cacheDir = tmp('dp-embed-repeats-')
    let call = 0
    const sent: string[] = []
    // A hosted model need not give one text the same vector twice: here every text sent gets the number of its call.
    const embedder: Embedder = {
      identity: { id: 'drifting', kind: 'hosted', model: 'drifting', dims: 2, quantization: 'int8' },
      embed: async (texts) => (call++, sent.push(...texts), texts.map(() => Float32Array.from([call, 1]))),
    }
    const ie: IndexEmbedder = { embedder, modelFiles: [], why: '' }
    // 70 chunks, more than one request holds: the repeated text's copies sit in different requests' worth of chunks.
    const chunks = [chunk('repeated'), ...Array.from({ length: 68 }, (_, i) => chunk(`text ${i}`)), chunk('repeated')]
    const first = await embedChunks(ie, chunks, { cacheDir })
    expect(sent.filter((t) => t === chunkEmbedText(chunk('repeated')))).toHaveLength(1)
    expect([first.embedded, first.embeddedChunks.length]).toEqual([70, 70])
    expect(first.vectors[69]).toBe(first.vectors[0])
    const again = await embedChunks(ie, chunks, { cacheDir })
    expect(again.embedded).toBe(0)
    expect(again.vectors).toEqual(first.vectors)
    expect(again.rows).toEqual(first.rows)
  })
})

describe('each embedder kind builds an index the core searcher opens in hybrid mode', { timeout: SLOW }, () => {
  it('static: the offline default model when the config names none and no key is set', async () => {
    const { out, result } = await build('auto')
    expect(result.embed?.why).toMatch(/no chat provider key is set, so the offline default model/)
    expect(result.manifest.embedder).toMatchObject({ id: 'docpilot-minilm-tokenlearn-en-v1', kind: 'local', model: 'static:docpilot-minilm-tokenlearn-en-v1', dims: 256, quantization: 'int8' })
    // Model files are content-addressed parts of the index.
    for (const name of Object.values(result.manifest.embedder.files!)) expect(name).toMatch(/^embed\.[0-9a-f]{16}\./)
    expect(result.manifest.retrieval.fusion).toMatchObject({ method: 'linear' })
    expect(result.manifest.retrieval.gate.weights).toBeDefined()
    const index = await openIndex(fsPartLoader(out))
    const r = await index.search(QUESTION)
    expect(r).toMatchObject({ mode: 'hybrid', degraded: false })
    expect(r.results[0]!.channels?.dense).toBeGreaterThan(0)
  })

  it("'auto' says what decided the default model: a head that embeds but whose key is not set, or a head that does not embed", async () => {
    const why = async (chat: object, env: Record<string, string> = {}) =>
      (await resolveIndexEmbedder('auto', { env, chat: validateConfig({ chat }, 't').chat, configDir: '/', cacheDir: tmp('c') }))!.why
    expect(await why({ provider: 'openai' })).toBe("embed 'auto': the chat head (openai) embeds, but OPENAI_API_KEY is not set here, so the offline default model")
    expect(await why({ provider: 'ollama' })).toBe("embed 'auto': the chat head (ollama) embeds, but OLLAMA_URL is not set here, so the offline default model")
    expect(await why({ provider: 'anthropic' }, { ANTHROPIC_API_KEY: 'sk-ant' })).toBe("embed 'auto': the chat head (anthropic) does not embed, so the offline default model")
  })

  it("static: the model's rows pack is kept in the cache; the next build reads it back, and a damaged copy is packed again", async () => {
    const cacheDir = tmp('dp-cache-')
    const first = await build('auto', { cacheDir })
    const rowsDir = join(cacheDir, 'model-rows')
    const cached = readdirSync(rowsDir).filter((f) => f.endsWith('.bin'))
    expect(cached).toHaveLength(1)
    const packName = first.result.manifest.embedder.rows!.pack
    const packBytes = readFileSync(join(first.out, packName))
    expect(readFileSync(join(rowsDir, cached[0]!)).equals(packBytes)).toBe(true)

    // Beside it, the pack's digest (which names it) and the directory as served.
    const stem = join(rowsDir, cached[0]!.replace(/\.bin$/, ''))
    expect(readFileSync(`${stem}.sha256`, 'utf8')).toBe(createHash('sha256').update(packBytes).digest('hex'))
    expect(readFileSync(`${stem}.dir.gz`).equals(readFileSync(join(first.out, first.result.manifest.embedder.rows!.directory)))).toBe(true)

    const second = await build('auto', { cacheDir })
    expect(second.result.manifest.embedder).toEqual(first.result.manifest.embedder)

    writeFileSync(join(rowsDir, cached[0]!), packBytes.subarray(0, 1000))
    writeFileSync(`${stem}.sha256`, 'not a digest')
    const third = await build('auto', { cacheDir })
    expect(third.result.manifest.embedder).toEqual(first.result.manifest.embedder)
    expect(readFileSync(join(third.out, packName)).equals(packBytes)).toBe(true)
    expect(readFileSync(join(rowsDir, cached[0]!)).equals(packBytes)).toBe(true)
    expect(readFileSync(`${stem}.sha256`, 'utf8')).toBe(createHash('sha256').update(packBytes).digest('hex'))
  })

  it("static: a table rewritten in place with its size and times restored (cp -p, a tarball's fixed mtimes) is packed again: the re-index ships what a fresh build ships", async () => {
    const model = modelCopy()
    const vectors = join(model, 'vectors.bin')
    const when = new Date('2026-01-01T00:00:00Z')
    utimesSync(vectors, when, when)
    const cacheDir = tmp('dp-cache-')
    const first = await build({ model }, { cacheDir })
    // The same file (same inode), another valid table of the same size, its modification time put back.
    writeFileSync(vectors, negatedTable(readFileSync(vectors)))
    utimesSync(vectors, when, when)
    const again = await build({ model }, { cacheDir, out: first.out })
    const fresh = await build({ model })
    expect(fresh.result.manifest.embedder.rows).not.toEqual(first.result.manifest.embedder.rows)
    expect(again.result.manifest.embedder).toEqual(fresh.result.manifest.embedder)
    expect(readFileSync(join(again.out, fresh.result.manifest.embedder.rows!.pack)).equals(readFileSync(join(fresh.out, fresh.result.manifest.embedder.rows!.pack)))).toBe(true)

    writeFileSync(vectors, readFileSync(vectors).subarray(0, 4096))
    await expect(build({ model }, { cacheDir })).rejects.toThrow(new RegExp(`${vectors}: has 4096 bytes, expected \\d+`))
  })

  it("static: after the model's table changes, a re-index embeds every chunk again: its vectors are a fresh build's, not the old table's", async () => {
    const model = modelCopy()
    const vectors = join(model, 'vectors.bin')
    const cacheDir = tmp('dp-cache-')
    const first = await build({ model }, { cacheDir })
    const chunks = first.result.manifest.corpus.chunks
    writeFileSync(vectors, negatedTable(readFileSync(vectors)))
    const again = await build({ model }, { cacheDir, out: first.out })
    const fresh = await build({ model })
    expect(fresh.result.manifest.parts.vectors).not.toBe(first.result.manifest.parts.vectors)
    expect(again.result.embed).toMatchObject({ embedded: chunks, reused: 0 })
    expect(again.result.manifest.parts).toEqual(fresh.result.manifest.parts)
    expect(readFileSync(join(again.out, fresh.result.manifest.parts.vectors!)).equals(readFileSync(join(fresh.out, fresh.result.manifest.parts.vectors!)))).toBe(true)
    // Unchanged since: every chunk reused.
    expect((await build({ model }, { cacheDir, out: first.out })).result.embed).toMatchObject({ embedded: 0, reused: chunks })
  })

  it('static: a re-index after one page changed writes the codes a fresh build writes (most of them taken from the codes memo in the cache)', async () => {
    const root = join(tmp('dp-site-'), 'site')
    cpSync(SITE, root, { recursive: true })
    const cacheDir = tmp('dp-cache-')
    const first = await build('default', { root, cacheDir })
    expect(readdirSync(join(cacheDir, 'codes'))).toHaveLength(1)
    writeFileSync(join(root, 'guide/faq.md'), `${readFileSync(join(root, 'guide/faq.md'), 'utf8')}\n\nOne more answer, about caching codes.\n`)
    const again = await build('default', { root, cacheDir, out: first.out })
    const fresh = await build('default', { root })
    expect(again.result.embed).toMatchObject({ embedded: 1 })
    expect(again.result.manifest.parts).toEqual(fresh.result.manifest.parts)
    expect(again.result.manifest.parts.codes).not.toBe(first.result.manifest.parts.codes)
    const codes = fresh.result.manifest.parts.codes!
    expect(readFileSync(join(again.out, codes)).equals(readFileSync(join(fresh.out, codes)))).toBe(true)
  })

  it('onnx: the default model exported as ONNX gives the static vectors through onnxruntime-web', async () => {
    const dir = tmp('dp-onnx-static-')
    exportStaticOnnx(fileURLToPath(DEFAULT_MODEL_DIR), dir)
    const { out, result } = await build({ model: dir })
    expect(result.manifest.embedder).toMatchObject({ kind: 'local', model: expect.stringMatching(/^onnx:/), dims: 256 })
    expect(Object.keys(result.manifest.embedder.files!)).toEqual(expect.arrayContaining(['model.onnx', 'tokenizer.json']))
    const index = await openIndex(fsPartLoader(out))
    expect(await index.search(QUESTION)).toMatchObject({ mode: 'hybrid', degraded: false })
    const onnx = (await resolveIndexEmbedder({ model: dir }, { env: {}, chat: validateConfig({}, 't').chat, configDir: '/', cacheDir: tmp('c') }))!.embedder
    const [a] = await onnx.embed([QUESTION])
    const [b] = await (await loadDefaultModel()).embedder.embed([QUESTION])
    expect(maxDiff(a!, b!)).toBeLessThan(1e-4)
  })

  /** A tiny BERT-shaped model folder; it has 16 positions, so the tokenizer config's limit truncates longer chunks. */
  function tinyBertFolder(prefix: string): { dir: string; model: ReturnType<typeof tinyBert> } {
    const dir = tmp(prefix)
    const model = tinyBert()
    writeFileSync(join(dir, 'model.onnx'), model.onnx)
    writeFileSync(join(dir, 'tokenizer.json'), JSON.stringify(model.tokenizer))
    writeFileSync(join(dir, 'tokenizer_config.json'), JSON.stringify({ model_max_length: TINY_MAX_POS }))
    return { dir, model }
  }

  it('onnx: a tiny BERT-shaped folder (token type ids, attention mask, mean pooling)', async () => {
    const { dir } = tinyBertFolder('dp-onnx-bert-')
    const { out, result } = await build({ model: dir })
    expect(result.manifest.embedder).toMatchObject({ model: expect.stringMatching(/^onnx:/), dims: 8 })
    const r = await (await openIndex(fsPartLoader(out))).search('set the cookie')
    expect(r).toMatchObject({ mode: 'hybrid', degraded: false })
  })

  it("onnx: the folder's prompts travel with the index, so the reader prefixes questions as the indexer prefixed passages", async () => {
    const { dir, model } = tinyBertFolder('dp-onnx-prompts-')
    writeFileSync(join(dir, 'config_sentence_transformers.json'), JSON.stringify({ prompts: { query: 'world ', document: 'cookie ' } }))
    const { out, result } = await build({ model: dir })
    expect(result.manifest.embedder.files).toHaveProperty(['config_sentence_transformers.json'])
    const got = await (await openIndex(fsPartLoader(out))).dense!.queryVector('set the cookie')
    if (!('vector' in got)) throw new Error(got.reason)
    const OnnxEmbedder = await loadOnnx()
    const plain = await OnnxEmbedder.create({ model: model.onnx, tokenizer: model.tokenizer, tokenizerConfig: { model_max_length: TINY_MAX_POS } }, { id: 'plain', model: 'plain', dims: 8 })
    const [prefixed, unprefixed] = await plain.embed(['world set the cookie', 'set the cookie'])
    expect(maxDiff(got.vector, prefixed!)).toBeLessThan(1e-5)
    expect(maxDiff(got.vector, unprefixed!)).toBeGreaterThan(1e-3)
  })

  describe('hosted, against the fake embeddings server', () => {
    let fakes: FakeProviders
    beforeAll(async () => {
      fakes = await startFakeProviders({ embedDims: 64 })
    }, SLOW)
    afterAll(() => fakes.close())
    beforeEach(() => fakes.reset())

    const embedInputs = async () =>
      (await fakes.requests()).filter((r) => r.endpoint === 'embed').map((r) => (r.body as { input: string[] }).input.length)

    it('embeds chunks at index time with the key from the environment and questions at query time', async () => {
      const env = fakes.env()
      const { out, result } = await build('openai', { env })
      expect(result.manifest.embedder).toMatchObject({ id: 'openai:text-embedding-3-small', kind: 'hosted', provider: 'openai', dims: 64 })
      expect(result.manifest.embedder.files).toBeUndefined()
      const sent = await embedInputs()
      expect(sent.reduce((s, n) => s + n, 0)).toBe(result.chunks)
      const index = await openIndex(fsPartLoader(out), { transport: envEmbedTransport(env) })
      expect(await index.search(QUESTION)).toMatchObject({ mode: 'hybrid', degraded: false })
      expect(await embedInputs()).toHaveLength(sent.length + 1)
    })

    it('re-embeds only the chunks whose text changed', async () => {
      const env = fakes.env()
      const root = join(tmp('dp-site-'), 'site')
      cpSync(SITE, root, { recursive: true })
      const cacheDir = tmp('dp-cache-')
      const out = join(tmp('dp-out-'), 'index')
      const first = await build('openai', { root, env, cacheDir, out })
      expect(first.result.embed).toMatchObject({ embedded: first.result.chunks, reused: 0 })

      const page = join(root, 'guide', 'getting-started.md')
      writeFileSync(page, readFileSync(page, 'utf8') + '\n\n## Troubleshooting\n\nRestart the dev server after changing the config.\n')
      await fakes.reset()
      const second = await build('openai', { root, env, cacheDir, out })
      const sent = (await embedInputs()).reduce((s, n) => s + n, 0)
      expect(sent).toBe(second.result.embed!.embedded)
      expect(sent).toBeGreaterThanOrEqual(1)
      expect(sent).toBeLessThanOrEqual(3)
      expect(second.result.embed!.reused).toBe(second.result.chunks - sent)

      await fakes.reset()
      const third = await build('openai', { root, env, cacheDir, out })
      expect(third.result.embed).toMatchObject({ embedded: 0, reused: third.result.chunks })
      expect(await embedInputs()).toEqual([])
    })

    it('fails the build with the provider error instead of writing an index without vectors', async () => {
      await fakes.control({ member: 'openai', endpoint: 'embed', fault: 'unauthorized' })
      await expect(build('openai', { env: fakes.env() })).rejects.toThrow(/openai embeddings answered HTTP 401/)
    })

    it('refuses, for a config built in code (never validated), a provider without embeddings, in the words the schema uses', async () => {
      const ctx = { env: {}, chat: validateConfig({}, '(test)').chat, configDir: tmpdir(), cacheDir: tmp('dp-cache-') }
      await expect(resolveIndexEmbedder('groq', ctx)).rejects.toThrow(`embed: ${cannotEmbed('groq', undefined)!}`)
      await expect(resolveIndexEmbedder({ provider: 'custom' }, ctx)).rejects.toThrow(`embed: ${cannotEmbed('custom', undefined)!}`)
    })

    it('names a base URL variable written without its scheme, not a bare "fetch failed", and never its value', async () => {
      const env = { OLLAMA_URL: 'localhost:11434' }
      const failed = build({ provider: 'ollama', model: 'nomic-embed-text' }, { env }).then(() => undefined, (err: unknown) => err as Error)
      const err = await failed
      expect(err?.message).toMatch(/OLLAMA_URL is not an http\(s\) URL; write it with its scheme, e\.g\. http:\/\/127\.0\.0\.1:11434/)
      expect(err?.message).not.toContain('localhost:11434')
    })
  })
})

describe('a corrupt or missing model file at index time: an error naming the file', { timeout: SLOW }, () => {
  const staticCopy = () => {
    const dir = tmp('dp-model-')
    cpSync(fileURLToPath(DEFAULT_MODEL_DIR), dir, { recursive: true })
    return dir
  }
  it('a static folder without vectors.bin', async () => {
    const dir = staticCopy()
    rmSync(join(dir, 'vectors.bin'))
    await expect(build({ model: dir })).rejects.toThrow(new RegExp(`model file ${join(dir, 'vectors.bin')} is missing; a docpilot static model folder holds model.json, vocab.txt and vectors.bin`))
  })
  it('a truncated vectors.bin', async () => {
    const dir = staticCopy()
    writeFileSync(join(dir, 'vectors.bin'), readFileSync(join(dir, 'vectors.bin')).subarray(0, 4096))
    await expect(build({ model: dir })).rejects.toThrow(new RegExp(`${join(dir, 'vectors.bin')}: has 4096 bytes, expected \\d+`))
  })
  it('a folder that holds no model, or none at all: refused before any page is read', async () => {
    const empty = tmp('dp-model-')
    for (const dir of [empty, join(empty, 'missing')]) {
      const read: string[] = []
      const out = join(tmp('dp-embed-'), 'index')
      const run = buildIndex({
        root: SITE,
        mode: 'source',
        out,
        config: validateConfig({ embed: { model: dir } }, '(test)'),
        docpilotVersion: 'test',
        embed: { env: {}, configDir: tmpdir(), cacheDir: tmp('dp-cache-') },
        onCollect: (_done, _total, file) => read.push(file),
      })
      await expect(run).rejects.toThrow(`embed.model: ${dir} is not a model folder. It needs model.json (a docpilot static model) or model.onnx`)
      expect(read, dir).toEqual([])
      expect(existsSync(out)).toBe(false)
    }
  })
  it('an ONNX folder whose model.onnx is not a model', async () => {
    const dir = tmp('dp-model-')
    exportStaticOnnx(fileURLToPath(DEFAULT_MODEL_DIR), dir)
    writeFileSync(join(dir, 'model.onnx'), 'not a model')
    await expect(build({ model: dir })).rejects.toThrow(new RegExp(`${join(dir, 'model.onnx')} could not be loaded as an ONNX model`))
  })
})

describe("embed: 'hf:<org>/<name>'", { timeout: SLOW }, () => {
  let server: Server
  let endpoint: string
  /** A port nothing listens on: what an offline machine looks like to fetch. */
  let closed: string
  const served: string[] = []
  const model = tinyBert()
  const files: Record<string, Uint8Array | string> = {
    'onnx/model.onnx': model.onnx,
    'tokenizer.json': JSON.stringify(model.tokenizer),
    'tokenizer_config.json': JSON.stringify({ model_max_length: TINY_MAX_POS }),
    '1_Pooling/config.json': JSON.stringify({ pooling_mode_mean_tokens: true }),
  }
  beforeAll(async () => {
    // Laid out like the hub: /<org>/<name>/resolve/main/<file>, 404 for what the repo lacks.
    server = createServer((req, res) => {
      served.push(req.url!)
      const m = /^\/acme\/tiny-bert\/resolve\/main\/(.+)$/.exec(req.url ?? '')
      const body = m ? files[m[1]!] : undefined
      if (body === undefined) return res.writeHead(404).end('Entry not found')
      res.writeHead(200, { 'content-type': 'application/octet-stream' }).end(body)
    })
    await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
    endpoint = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
    const probe = createServer()
    await new Promise<void>((r) => probe.listen(0, '127.0.0.1', r))
    closed = `http://127.0.0.1:${(probe.address() as AddressInfo).port}`
    await new Promise<void>((r) => probe.close(() => r()))
  }, SLOW)
  afterAll(() => new Promise<void>((r) => server.close(() => r())))

  it('downloads the model once into the cache, then builds from the cache without the network', async () => {
    const cacheDir = tmp('dp-hf-')
    const first = await build('hf:acme/tiny-bert', { env: { HF_ENDPOINT: endpoint }, cacheDir })
    expect(first.result.manifest.embedder).toMatchObject({ id: 'hf:acme/tiny-bert', model: 'onnx:hf:acme/tiny-bert', dims: 8 })
    expect(first.result.manifest.embedder.files).toHaveProperty(['1_Pooling/config.json'])
    expect(served).toContain('/acme/tiny-bert/resolve/main/onnx/model.onnx')
    served.length = 0
    const again = await build('hf:acme/tiny-bert', { env: { HF_ENDPOINT: closed }, cacheDir })
    expect(served).toEqual([])
    expect(again.result.manifest.embedder.files).toEqual(first.result.manifest.embedder.files)
  })

  it('offline, says exactly how to provide the folder', async () => {
    const cacheDir = tmp('dp-hf-')
    const err = await build('hf:acme/tiny-bert', { env: { HF_ENDPOINT: closed }, cacheDir }).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(HubError)
    const message = (err as Error).message
    expect(message).toMatch(/embed: 'hf:acme\/tiny-bert' could not be downloaded from http:\/\/127\.0\.0\.1:\d+ \(ECONNREFUSED\)/)
    expect(message).toMatch(/embed: \{ model: '<that folder>' \}/)
    expect(message).toContain(join(cacheDir, 'hf', 'acme', 'tiny-bert'))
    expect(message).toContain('https://huggingface.co/acme/tiny-bert')
  })

  it('names a repo that has no ONNX model', async () => {
    await expect(build('hf:acme/missing', { env: { HF_ENDPOINT: endpoint } })).rejects.toThrow(/the repo has no onnx\/model\.onnx or model\.onnx/)
  })
})
