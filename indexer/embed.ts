/**
 * Index-time embedding: pick the index's one embedder from `embed` in the
 * config, embed every chunk (reusing cached vectors for unchanged text), and
 * produce the parts the index carries for it: the int8 chunk vectors and, for
 * a local embedder, its model files, all content-addressed.
 *
 *   embed: false              lexical-only, declared (no vectors, nothing logged later)
 *   embed: 'default'          the offline static English model shipped with docpilot
 *   embed: 'auto' (default)   the chat chain's head when it embeds and its key is set, else 'default'
 *   embed: 'openai' | { provider, model? }   a provider's embeddings API, called directly with its key
 *   embed: { model: '<dir>' } a local folder: a docpilot static model, or an HF-style ONNX folder
 *   embed: 'hf:<org>/<name>'  an ONNX model from the hub, downloaded once into the cache
 */
import { readFile } from 'node:fs/promises'
import { basename, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { autoEmbedMember } from '../core/chain/embed.ts'
import { badBaseUrl, memberAvailable, neededVariable, resolveChain, type Env, type ResolvedChain } from '../core/chain/resolve.ts'
import type { ChatConfig, EmbedConfig } from '../core/config/schema.ts'
import { cannotEmbed } from '../core/config/refusals.ts'
import { HostedEmbedder } from '../core/embed/hosted.ts'
import { loadOnnx } from '../core/embed/load-onnx.ts'
import { ONNX_OPTIONAL_FILES } from '../core/embed/onnx-folder.ts'
import { DEFAULT_MODEL_DIR } from '../cli/package-root.ts'
import { STATIC_MODEL_FORMAT } from '../core/embed/static-model.ts'
import type { Embedder } from '../core/embed/types.ts'
import type { ChunkRecord, EmbedderIdentity } from '../core/index/format.ts'
import { splitIdentity } from '../core/embed/static-split.ts'
import type { Transport } from '../core/ladder/attempt.ts'
import { directTransport } from '../core/ladder/transport.ts'
import { providerSpec, type MemberId } from '../core/providers/table.ts'
import { memoizedVectorCodes } from './code-memo.ts'
import { EmbeddingCache, type CachedEmbedder } from './embed-cache.ts'
import { chunkEmbedText, embedDigest } from './embed-text.ts'
import { ensureHubModel } from './embed-hf.ts'
import { EmbedConfigError } from './model-files.ts'
import { openStaticFolder, type ServedRows, type StaticFolder } from './static-folder.ts'
import { sha256 } from './sha256.ts'
import { isFile } from './stat.ts'

export interface EmbedContext {
  env: Env
  chat: ChatConfig
  /** Relative `embed.model` folders resolve against this (the config file's folder). */
  configDir: string
  /** Embedding cache and hub downloads. */
  cacheDir: string
  fetch?: typeof fetch
  /** The chat chain already resolved from `chat` and `env` (the build writes it too); resolved here when absent. */
  chain?: ResolvedChain
}

export interface IndexEmbedder {
  embedder: Embedder
  /** Files the index must carry whole so readers can rebuild the embedder (local embedders only). */
  modelFiles: { name: string; bytes: Uint8Array }[]
  /** A static model, which the index also carries as its rows by word. */
  static?: StaticFolder
  /** Why this embedder, in words, for the index summary. */
  why: string
  /** Set when embed 'auto' chose a hosted embedder: why, in words, and how to build offline instead (autoEmbedFailure). */
  auto?: { because: string; offline: string }
}

/**
 * A hosted embedder 'auto' chose failed: the run stops (the index must hold the
 * embedder the proxy serves; switching models silently would be wrong), and the
 * message says which embedder, why it was chosen, that no index was written, and
 * how to build offline instead.
 */
export function autoEmbedFailure(err: Error, ie: IndexEmbedder, written: string): string {
  const { model, provider } = ie.embedder.identity
  return (
    `${err.message}\n` +
    `embed 'auto' picked ${provider} embeddings (${model}) because ${ie.auto!.because}; an index is built with the embedder the proxy will serve, ` +
    `so docpilot stops rather than switch models. ${written}\n` +
    `To build offline instead, ${ie.auto!.offline}.`
  )
}

export { EmbedConfigError }


/** A docpilot static model folder; `cacheDir` keeps its rows pack between runs. */
export async function loadStaticModel(dir: string, why: string, cacheDir?: string): Promise<IndexEmbedder> {
  const folder = await openStaticFolder(dir, cacheDir)
  return { embedder: folder.embedder, modelFiles: [{ name: 'model.json', bytes: folder.descriptorBytes }], static: folder, why }
}

export const loadDefaultModel = (cacheDir?: string) => loadStaticModel(fileURLToPath(DEFAULT_MODEL_DIR), 'the offline default model', cacheDir)

/** An ONNX folder's model file: model.onnx, else onnx/model.onnx (as in a Hugging Face repo); undefined when it has neither, or no tokenizer.json. */
async function onnxModelPath(dir: string): Promise<string | undefined> {
  const modelPath = (await isFile(join(dir, 'model.onnx'))) ? join(dir, 'model.onnx') : join(dir, 'onnx', 'model.onnx')
  return (await isFile(modelPath)) && (await isFile(join(dir, 'tokenizer.json'))) ? modelPath : undefined
}

const notModelFolder = (dir: string) =>
  new EmbedConfigError(
    `embed.model: ${dir} is not a model folder. It needs model.json (a docpilot static model) or model.onnx (or onnx/model.onnx) ` +
      `with tokenizer.json, as in a Hugging Face sentence-transformers repo.`,
  )

/**
 * Before any page is read: a local model folder (`embed: { model }`) holds a
 * model, so a wrong path stops the run at once rather than after the parse.
 * What the files hold is checked when the model is loaded.
 */
export async function checkModelFolder(embed: EmbedConfig, configDir: string): Promise<void> {
  if (typeof embed !== 'object' || !embed || 'provider' in embed) return
  const dir = resolve(configDir, embed.model)
  if (!(await isFile(join(dir, 'model.json'))) && !(await onnxModelPath(dir))) throw notModelFolder(dir)
}

async function loadOnnxFolder(dir: string, name: string, why: string): Promise<IndexEmbedder> {
  const modelPath = await onnxModelPath(dir)
  if (!modelPath) throw notModelFolder(dir)
  const files: IndexEmbedder['modelFiles'] = [
    { name: 'model.onnx', bytes: await readFile(modelPath) },
    { name: 'tokenizer.json', bytes: await readFile(join(dir, 'tokenizer.json')) },
  ]
  for (const opt of ONNX_OPTIONAL_FILES) {
    if (await isFile(join(dir, opt))) files.push({ name: opt, bytes: await readFile(join(dir, opt)) })
  }
  const OnnxEmbedder = await loadOnnx()
  const text = (n: string) => {
    try {
      return JSON.parse(new TextDecoder().decode(files.find((f) => f.name === n)!.bytes))
    } catch (err) {
      throw new EmbedConfigError(`model file ${join(dir, n)} is not JSON (${err instanceof Error ? err.message : String(err)})`)
    }
  }
  const has = (n: string) => files.some((f) => f.name === n)
  const embedder = await OnnxEmbedder.create(
    {
      modelName: modelPath,
      model: files[0]!.bytes,
      tokenizer: text('tokenizer.json'),
      ...(has('tokenizer_config.json') ? { tokenizerConfig: text('tokenizer_config.json') } : {}),
      ...(has('1_Pooling/config.json') ? { pooling: text('1_Pooling/config.json') } : {}),
      ...(has('sentence_bert_config.json') ? { sentenceBert: text('sentence_bert_config.json') } : {}),
      ...(has('config_sentence_transformers.json') ? { sentenceTransformers: text('config_sentence_transformers.json') } : {}),
    },
    // dims are known after the first vector; 0 until then.
    { id: name, model: `onnx:${name}`, dims: 0 },
  )
  return { embedder, modelFiles: files, why }
}

function hostedFor(provider: MemberId, model: string | undefined, ctx: EmbedContext, resolved?: ResolvedChain, why = ''): IndexEmbedder {
  const spec = providerSpec(provider)
  const refused = cannotEmbed(provider, model)
  if (refused) throw new EmbedConfigError(`embed: ${refused}`)
  // cannotEmbed refuses a provider with neither.
  const chosen = (model ?? spec.defaultEmbedModel)!
  if (!memberAvailable(spec, ctx.env)) {
    throw new EmbedConfigError(`embed: "${provider}" needs ${neededVariable(spec)} in the environment at index time (it embeds every chunk).`)
  }
  const badUrl = badBaseUrl(spec, ctx.env)
  if (badUrl) throw new EmbedConfigError(`embed: "${provider}": ${badUrl}`)
  const transport = resolved ? directTransport(resolved, ctx.env, ctx.fetch ? { fetch: ctx.fetch } : {}) : providerTransport(provider, ctx.env, ctx.fetch)
  const embedder = new HostedEmbedder({ provider, model: chosen, dims: 0 }, transport)
  return { embedder, modelFiles: [], why: why || `${provider} embeddings (${chosen})` }
}

/** The variable a hosted member needs at index time (its key; an own server's base URL), when the environment lacks it. */
function missingVariable(provider: MemberId, env: Env): string | undefined {
  const spec = providerSpec(provider)
  if (memberAvailable(spec, env)) return undefined
  return neededVariable(spec) ?? 'its key'
}

/** Calls one provider directly: its base URL and key from the environment. */
function providerTransport(provider: MemberId, env: Env, fetchImpl?: typeof fetch): Transport {
  const spec = providerSpec(provider)
  const chain: ResolvedChain = {
    members: [
      {
        provider,
        models: [],
        tier: 'billed',
        freePool: false,
        baseUrl: env[spec.baseUrlEnv]?.trim() || spec.defaultBaseUrl || null,
        ...(spec.keyEnv ? { keyEnv: spec.keyEnv } : {}),
        baseUrlEnv: spec.baseUrlEnv,
      },
    ],
    head: provider,
    rationing: { enabled: false } as ResolvedChain['rationing'],
  }
  return directTransport(chain, env, fetchImpl ? { fetch: fetchImpl } : {})
}

/**
 * How the CLI embeds questions for an index with a hosted embedder: straight to
 * the provider the manifest names, with the key from the environment (the
 * browser goes through the proxy's same-origin route instead).
 */
export function envEmbedTransport(env: Env, fetchImpl?: typeof fetch): Transport {
  return (member, req) => providerTransport(member.provider, env, fetchImpl)(member, req)
}

/** The index's embedder for this config, or null for declared lexical-only. */
export async function resolveIndexEmbedder(embed: EmbedConfig, ctx: EmbedContext): Promise<IndexEmbedder | null> {
  if (embed === false) return null
  if (embed === 'default') return loadDefaultModel(ctx.cacheDir)
  if (embed === 'auto') {
    let resolved: ResolvedChain | null = ctx.chain ?? null
    if (!resolved) {
      try {
        resolved = resolveChain(ctx.chat, ctx.env)
      } catch {
        resolved = null
      }
    }
    const head = resolved ? autoEmbedMember(resolved) : null
    const missing = head ? missingVariable(head.provider, ctx.env) : undefined
    if (head && resolved && !missing) {
      const variable = neededVariable(providerSpec(head.provider))!
      // Without the variable, a chain the config does not name would lose its head too: only embed: 'default' keeps it.
      const named = Boolean(ctx.chat.provider) || Array.isArray(ctx.chat.chain)
      const auto = {
        because: `the chat head (${head.provider}) embeds and ${variable} is set`,
        offline: `set embed: 'default' in docpilot.config.ts (the offline default model)${named ? `, or unset ${variable} for this run` : ''}`,
      }
      return { ...hostedFor(head.provider, head.model, ctx, resolved, `embed 'auto' follows the chat head: ${head.provider} embeddings (${head.model})`), auto }
    }
    const d = await loadDefaultModel(ctx.cacheDir)
    const reason = !resolved?.head
      ? 'no chat provider key is set'
      : missing
        ? `the chat head (${resolved.head}) embeds, but ${missing} is not set here`
        : `the chat head (${resolved.head}) does not embed`
    return { ...d, why: `embed 'auto': ${reason}, so the offline default model` }
  }
  if (typeof embed === 'string' && embed.startsWith('hf:')) {
    const repo = embed.slice(3)
    const dir = await ensureHubModel(repo, { cacheDir: ctx.cacheDir, endpoint: ctx.env.HF_ENDPOINT, ...(ctx.fetch ? { fetch: ctx.fetch } : {}) })
    return loadOnnxFolder(dir, embed, `${embed} (cached in ${dir})`)
  }
  if (typeof embed === 'string') return hostedFor(embed as MemberId, undefined, ctx)
  if ('provider' in embed) return hostedFor(embed.provider, embed.model, ctx)
  const dir = resolve(ctx.configDir, embed.model)
  if (await isFile(join(dir, 'model.json'))) {
    const desc = JSON.parse(await readFile(join(dir, 'model.json'), 'utf8')) as { format?: string }
    if (desc.format === STATIC_MODEL_FORMAT) return loadStaticModel(dir, `the static model in ${dir}`, ctx.cacheDir)
  }
  return loadOnnxFolder(dir, `local:${basename(dir)}`, `the ONNX model in ${dir}`)
}

export interface EmbedRunResult {
  identity: EmbedderIdentity
  vectors: Float32Array[]
  /** The vectors file: every chunk's exact row, in chunk order (core/index/vectors.ts), copied from the cache. */
  rows: Uint8Array
  embedded: number
  reused: number
  /** Each chunk's embedDigest, in chunk order: its vector's key in the embedding cache. */
  digests: readonly string[]
  /** The chunks (by position) this run embedded; the others' vectors came from the cache. */
  embeddedChunks: readonly number[]
}

const BATCH = 64

export async function embedChunks(
  ie: IndexEmbedder,
  chunks: readonly ChunkRecord[],
  opts: {
    cacheDir: string
    scope?: string
    onProgress?: (done: number, total: number) => void
    /** Each chunk's embedDigest, in chunk order, when the caller has them (collect.ts keeps them with each page). */
    digests?: readonly string[]
  },
): Promise<EmbedRunResult> {
  const identity = ie.embedder.identity
  const cache = await EmbeddingCache.open(opts.cacheDir, await cachedEmbedder(ie), opts.scope)
  const digests = opts.digests?.length === chunks.length ? opts.digests : chunks.map(embedDigest)
  const vectors: Float32Array[] = []
  // The chunks of each text the cache lacks. A text two chunks hold is embedded once and both get its vector, as
  // a later run finds them in the cache (a hosted model need not give one text the same vector twice: each copy's
  // own would leave this run's vectors differing from what the cache keeps for the next).
  const todo = new Map<string, number[]>()
  const embeddedChunks: number[] = []
  for (let i = 0; i < digests.length; i++) {
    const v = cache.get(digests[i]!)
    if (v) vectors[i] = v
    else {
      embeddedChunks.push(i)
      const same = todo.get(digests[i]!)
      if (same) same.push(i)
      else todo.set(digests[i]!, [i])
    }
  }
  const texts = [...todo.values()]
  let done = chunks.length - embeddedChunks.length
  opts.onProgress?.(done, chunks.length)
  try {
    for (let b = 0; b < texts.length; b += BATCH) {
      const batch = texts.slice(b, b + BATCH)
      const out = await ie.embedder.embed(batch.map(([i]) => chunkEmbedText(chunks[i!]!)), { purpose: 'document' })
      batch.forEach((same, j) => {
        for (const i of same) vectors[i] = out[j]!
        cache.set(digests[same[0]!]!, out[j]!)
        done += same.length
      })
      opts.onProgress?.(done, chunks.length)
    }
  } finally {
    // What was embedded before a failure is kept for the next run.
    await cache.save()
  }
  const dims = vectors[0]?.length ?? identity.dims
  if (vectors.some((v) => v.length !== dims)) throw new Error(`embedder "${identity.id}" returned vectors of different lengths`)
  return {
    identity: { ...identity, dims },
    vectors,
    rows: cache.rows(digests),
    embedded: embeddedChunks.length,
    reused: chunks.length - embeddedChunks.length,
    digests,
    embeddedChunks,
  }
}

/** The embedder as the caches made from its vectors know it: its identity and its model's content. */
const cachedEmbedder = async (ie: IndexEmbedder): Promise<CachedEmbedder> => ({ ...ie.embedder.identity, content: await modelContent(ie) })

/**
 * A part file of the dense channel: its bytes, or, for a static model's rows
 * pack (17 MB, kept in the cache) that this run does not hold, its size and
 * how to read it. `file`: the cache's copy, named by its content, which the
 * write links when the previous index has no copy, and reads only when it
 * cannot link either.
 */
export type DenseFile = { name: string; bytes: Uint8Array; file?: string } | { name: string; size: number; read: () => Uint8Array; file?: string }

export const denseFileSize = (f: DenseFile): number => ('bytes' in f ? f.bytes.byteLength : f.size)
export const denseFileBytes = (f: DenseFile): Uint8Array => ('bytes' in f ? f.bytes : f.read())

export interface DenseParts {
  identity: EmbedderIdentity
  /** Content-addressed part files to write next to the other parts. */
  files: DenseFile[]
  /** The passage vectors' codes (fetched whole) and exact rows (read per candidate), see core/index/vectors.ts. */
  codesPart: string
  vectorsPart: string
}

const digest16 = (b: Uint8Array) => sha256(b).slice(0, 16)

/**
 * The vectors part and the model files, named by their content. `cache` is where the codes of the
 * vectors are kept between runs, as embedChunks keeps the vectors (a static model's rows pack is kept
 * in the cache folder too).
 */
export async function denseParts(ie: IndexEmbedder, run: EmbedRunResult, cache: { cacheDir: string; scope?: string }): Promise<DenseParts> {
  const { codes } = await memoizedVectorCodes({
    cacheDir: cache.cacheDir,
    scope: cache.scope ?? '',
    embedder: await cachedEmbedder(ie),
    vectors: run.vectors,
    dims: run.identity.dims,
    digests: run.digests,
    embedded: run.embeddedChunks,
  })
  const codesPart = `codes.${digest16(codes)}.bits`
  const vectorsPart = `vectors.${digest16(run.rows)}.i8`
  const files: DenseFile[] = [
    { name: codesPart, bytes: codes },
    { name: vectorsPart, bytes: run.rows },
  ]
  const map = modelFileNames(ie)
  for (const f of ie.modelFiles) files.push({ name: map[f.name]!, bytes: f.bytes })
  let identity: EmbedderIdentity = { ...run.identity, quantization: 'int8', ...(ie.modelFiles.length ? { files: map } : {}) }
  if (ie.static) {
    const rows = staticRowFiles(await ie.static.rows())
    files.push(...rows.files)
    identity = splitIdentity(ie.static.descriptor, rows.rows, map)
  }
  return { identity, files, codesPart, vectorsPart }
}

const fileNames = new WeakMap<IndexEmbedder, Record<string, string>>()

/** The index's name for each model file, by its content (hashed once per embedder: an ONNX model can be 100 MB). */
function modelFileNames(ie: IndexEmbedder): Record<string, string> {
  let map = fileNames.get(ie)
  if (!map) {
    map = Object.fromEntries(ie.modelFiles.map((f) => [f.name, `embed.${digest16(f.bytes)}.${f.name.replace(/\//g, '-')}`]))
    fileNames.set(ie, map)
  }
  return map
}

/**
 * What the vectors depend on beyond the embedder's id and model, from the
 * digests the index records anyway (a warm re-index reads the rows pack's
 * from the cache): the model files and a static model's rows. Empty for a
 * hosted model, whose content only its provider knows.
 */
export async function modelContent(ie: IndexEmbedder): Promise<string> {
  const files = Object.entries(modelFileNames(ie)).map(([file, part]) => `${file}=${part}`)
  if (ie.static) files.push(`rows=${(await ie.static.rows()).packDigest}`)
  return files.join(' ')
}

/** A static model's rows as one packed file and its directory of bucket sizes, named by their content. */
function staticRowFiles(served: ServedRows): { rows: { pack: string; directory: string; buckets: number }; files: DenseFile[] } {
  const pack = `embed-rows.${served.packDigest.slice(0, 16)}.bin`
  const directory = `embed-rows.${digest16(served.directory)}.dir.gz`
  return {
    rows: { pack, directory, buckets: served.counts.length },
    files: [
      {
        name: pack,
        ...(served.held ? { bytes: served.pack() } : { size: served.packBytes, read: served.pack }),
        ...(served.file ? { file: served.file } : {}),
      },
      { name: directory, bytes: served.directory },
    ],
  }
}
