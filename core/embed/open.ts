/**
 * Builds the index's one embedder from the identity its manifest names. The
 * model files (a static model's rows, by word) come through the index's
 * PartLoader (content-addressed copies in the index folder), so the browser
 * and the CLI load the very same bytes.
 * Nothing here ever falls back to another embedder: an identity this code
 * does not know is an error, and a load failure is reported to the caller,
 * which degrades to lexical-only.
 */
import type { EmbedderIdentity } from '../index/format.ts'
import type { Transport } from '../ladder/attempt.ts'
import { isMemberId, providerSpec } from '../providers/table.ts'
import type { PartLoader } from '../index/parts.ts'
import { HostedEmbedder } from './hosted.ts'
import { loadOnnx } from './load-onnx.ts'
import { ONNX_OPTIONAL_FILES } from './onnx-folder.ts'
import { SplitStaticEmbedder } from './static-split.ts'
import { EmbedError, type Embedder } from './types.ts'

export type EmbedderRuntime = 'none' | 'static' | 'onnx' | 'hosted'

/** Which code runs an identity; throws a clear error for one this docpilot does not know. */
export function embedderRuntime(identity: EmbedderIdentity | undefined): EmbedderRuntime {
  const fix = 'Rebuild the index with `docpilot index` using this docpilot version, or upgrade the docpilot that reads it.'
  if (!identity || typeof identity !== 'object') throw new EmbedError(`manifest.json names no embedder. ${fix}`, 'unknown_embedder')
  const named = `embedder "${identity.id}" (kind "${identity.kind}", model "${identity.model}")`
  if (identity.kind === 'none') return 'none'
  if (identity.kind === 'hosted') {
    if (!identity.provider || !isMemberId(identity.provider) || !providerSpec(identity.provider).embeds) {
      throw new EmbedError(`manifest.json names ${named} on provider "${identity.provider ?? ''}", which has no embeddings API this docpilot can call. ${fix}`, 'unknown_embedder')
    }
    return 'hosted'
  }
  if (identity.kind === 'local') {
    if (identity.model.startsWith('static:')) return 'static'
    if (identity.model.startsWith('onnx:')) return 'onnx'
  }
  throw new EmbedError(`manifest.json names ${named}, which this docpilot does not know. ${fix}`, 'unknown_embedder')
}

export interface OpenEmbedderDeps {
  loader: PartLoader
  /** How hosted embedders reach their provider (browser: the same-origin /ai route). */
  transport?: Transport
}

function filePart(identity: EmbedderIdentity, name: string, optional = false): string | undefined {
  const part = identity.files?.[name]
  if (!part && !optional) throw new EmbedError(`manifest.json: embedder "${identity.id}" lists no "${name}" file`, 'bad_model')
  return part
}

const text = (b: Uint8Array) => new TextDecoder().decode(b)

export async function openEmbedder(identity: EmbedderIdentity, deps: OpenEmbedderDeps): Promise<Embedder | null> {
  const runtime = embedderRuntime(identity)
  if (runtime === 'none') return null
  if (runtime === 'hosted') {
    if (!deps.transport) throw new EmbedError(`embedder "${identity.id}" is hosted and this reader has no route to ${identity.provider}`, 'unreachable')
    return new HostedEmbedder(identity, deps.transport)
  }
  const read = async (name: string, optional = false): Promise<Uint8Array | undefined> => {
    const part = filePart(identity, name, optional)
    if (!part) return undefined
    try {
      return await deps.loader.bytes(part)
    } catch (err) {
      throw new EmbedError(`model file ${part} unreachable: ${err instanceof Error ? err.message : String(err)}`, 'unreachable', { cause: err })
    }
  }
  if (runtime === 'static') {
    // Rows come by word: a question fetches only its own words' rows, never the whole table.
    const layout = identity.rows
    if (!layout) throw new EmbedError(`manifest.json: static embedder "${identity.id}" lists no rows. Rebuild the index with \`docpilot index\`.`, 'bad_model')
    return new SplitStaticEmbedder(identity, layout, deps.loader)
  }
  // Loaded only for onnx indexes: keeps onnxruntime out of static and hosted readers.
  const OnnxEmbedder = await loadOnnx()
  const [model, tokenizer, tokenizerConfig, pooling, sentenceBert, sentenceTransformers] = await Promise.all([
    read('model.onnx'),
    read('tokenizer.json'),
    ...ONNX_OPTIONAL_FILES.map((f) => read(f, true)),
  ])
  return OnnxEmbedder.create(
    {
      modelName: filePart(identity, 'model.onnx'),
      model: model!,
      tokenizer: JSON.parse(text(tokenizer!)),
      ...(tokenizerConfig ? { tokenizerConfig: JSON.parse(text(tokenizerConfig)) } : {}),
      ...(pooling ? { pooling: JSON.parse(text(pooling)) } : {}),
      ...(sentenceBert ? { sentenceBert: JSON.parse(text(sentenceBert)) } : {}),
      ...(sentenceTransformers ? { sentenceTransformers: JSON.parse(text(sentenceTransformers)) } : {}),
    },
    identity,
  )
}
