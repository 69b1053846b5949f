/**
 * The embedder interface. An index has exactly one embedder, named in its
 * manifest; every runtime builds that same embedder from the identity, and a
 * query is never embedded by anything else.
 */
import type { EmbedderIdentity } from '../index/format.ts'

/** Retrieval models may embed questions and passages differently (e5 prefixes, Gemini task types). */
export type EmbedPurpose = 'query' | 'document'

export interface EmbedOptions {
  purpose?: EmbedPurpose
  signal?: AbortSignal
}

export interface Embedder {
  /** Written into the manifest at index time; checked against it at query time. */
  readonly identity: EmbedderIdentity
  /** One L2-normalized vector per text, same order. */
  embed(texts: string[], opts?: EmbedOptions): Promise<Float32Array[]>
  /** Fetches what every question will need before the first one (a split static model's directory); failures surface later. */
  warm?(): Promise<unknown>
  /**
   * Ranks (1 = most common) of lower-cased words in the model's
   * frequency-ordered vocabulary, counting its first `ranked` rows only;
   * undefined for any other word. Only a split static model has it: it reads
   * them from the rows the question's embedding reads.
   */
  ranksOf?(words: readonly string[], ranked: number): Promise<Array<number | undefined>>
}

/** A typed failure so search can tell "the embedder is unreachable" from a bug. */
export class EmbedError extends Error {
  constructor(
    message: string,
    /** rate_limited: the service (or the docpilot proxy, for this reader) answered 429, so asking again at once buys the same answer. */
    readonly code: 'unreachable' | 'http' | 'rate_limited' | 'bad_response' | 'unknown_embedder' | 'bad_model' | 'timeout',
    options?: { cause?: unknown },
  ) {
    super(message, options)
    this.name = 'EmbedError'
  }
}

export function l2normalize(v: Float32Array | Float64Array): Float32Array {
  let sum = 0
  for (let i = 0; i < v.length; i++) sum += v[i]! * v[i]!
  const out = new Float32Array(v.length)
  if (sum === 0) return out
  const inv = 1 / Math.sqrt(sum)
  for (let i = 0; i < v.length; i++) out[i] = v[i]! * inv
  return out
}
