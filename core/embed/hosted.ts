/**
 * The `hosted` embedder: a provider's embeddings API. In the browser the
 * transport is the same-origin `/ai/<member>` route (the proxy holds the key);
 * at index time it is the provider's base URL with the key from the
 * environment (D's `directTransport`). Three wire shapes cover the table:
 * OpenAI-compatible, Gemini (batched) and Ollama embeddings, at the paths core/protocols names.
 */
import type { EmbedderIdentity } from '../index/format.ts'
import type { Transport } from '../ladder/attempt.ts'
import { memberRoute } from '../chain/resolve.ts'
import { callPath, protocolOf } from '../protocols/index.ts'
import { providerSpec, type MemberId } from '../providers/table.ts'
import { EmbedError, l2normalize, type EmbedOptions, type Embedder } from './types.ts'

/** Texts per request: inside every listed provider's batch limit. */
const BATCH = 64

interface WireCall {
  path: string
  body: unknown
  parse(json: unknown): number[][]
}

function wireCall(provider: MemberId, model: string, texts: string[], purpose: EmbedOptions['purpose']): WireCall {
  const protocol = protocolOf(providerSpec(provider).protocol)
  if (protocol.id === 'gemini') {
    const id = model.replace(/^models\//, '')
    const taskType = purpose === 'query' ? 'RETRIEVAL_QUERY' : 'RETRIEVAL_DOCUMENT'
    return {
      path: callPath(protocol, 'embed', id),
      body: { requests: texts.map((text) => ({ model: `models/${id}`, content: { parts: [{ text }] }, taskType })) },
      parse: (j) => (j as { embeddings: { values: number[] }[] }).embeddings.map((e) => e.values),
    }
  }
  if (protocol.id === 'ollama') {
    return {
      path: callPath(protocol, 'embed', model),
      body: { model, input: texts },
      parse: (j) => (j as { embeddings: number[][] }).embeddings,
    }
  }
  if (protocol.id === 'openai') {
    return {
      path: callPath(protocol, 'embed', model),
      body: { model, input: texts },
      parse: (j) =>
        [...(j as { data: { index: number; embedding: number[] }[] }).data].sort((a, b) => a.index - b.index).map((d) => d.embedding),
    }
  }
  throw new EmbedError(`provider "${provider}" has no embeddings API docpilot can call`, 'unknown_embedder')
}

export class HostedEmbedder implements Embedder {
  readonly identity: EmbedderIdentity

  constructor(
    identity: Pick<EmbedderIdentity, 'provider' | 'model' | 'dims'> & { id?: string },
    private readonly transport: Transport,
  ) {
    if (!identity.provider) throw new EmbedError('a hosted embedder needs a provider', 'unknown_embedder')
    const spec = providerSpec(identity.provider)
    if (!spec.embeds) throw new EmbedError(`provider "${identity.provider}" does not offer embeddings`, 'unknown_embedder')
    this.identity = {
      id: identity.id ?? `${identity.provider}:${identity.model}`,
      kind: 'hosted',
      model: identity.model,
      dims: identity.dims,
      quantization: 'int8',
      provider: identity.provider,
    }
  }

  async embed(texts: string[], opts: EmbedOptions = {}): Promise<Float32Array[]> {
    const out: Float32Array[] = []
    for (let i = 0; i < texts.length; i += BATCH) out.push(...(await this.batch(texts.slice(i, i + BATCH), opts)))
    return out
  }

  private async batch(texts: string[], opts: EmbedOptions): Promise<Float32Array[]> {
    const provider = this.identity.provider!
    const call = wireCall(provider, this.identity.model, texts, opts.purpose)
    const member = { provider, models: [this.identity.model], tier: 'billed' as const, route: memberRoute(provider), freePool: false }
    let res: Response
    try {
      res = await this.transport(member, {
        method: 'POST',
        path: call.path,
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(call.body),
        signal: opts.signal ?? new AbortController().signal,
      })
    } catch (err) {
      throw new EmbedError(`${provider} embeddings unreachable: ${err instanceof Error ? err.message : String(err)}`, 'unreachable', { cause: err })
    }
    if (!res.ok) {
      const detail = (await res.text().catch(() => '')).slice(0, 200)
      throw new EmbedError(`${provider} embeddings answered HTTP ${res.status}${detail ? `: ${detail}` : ''}`, res.status === 429 ? 'rate_limited' : 'http')
    }
    let vectors: number[][]
    try {
      vectors = call.parse(await res.json())
    } catch (err) {
      throw new EmbedError(`${provider} embeddings sent a body docpilot cannot read`, 'bad_response', { cause: err })
    }
    if (vectors.length !== texts.length) {
      throw new EmbedError(`${provider} embeddings returned ${vectors.length} vectors for ${texts.length} texts`, 'bad_response')
    }
    return vectors.map((v) => {
      if (this.identity.dims && v.length !== this.identity.dims) {
        throw new EmbedError(`${provider} ${this.identity.model} returned ${v.length} dims; the index was built with ${this.identity.dims}`, 'bad_response')
      }
      return l2normalize(Float64Array.from(v))
    })
  }
}
