/**
 * Follow-up questions are searched for the conversation, not for their own
 * two words: "And on Deno?" after "How do I deploy to Cloudflare Workers?"
 * means deploying on Deno. The question's own words lead; the previous
 * questions' words join at a lower weight, on both channels:
 * - lexical: one weighted query, computed from the question's and the
 *   context's searches: BM25 is a sum over query terms, so the sum is the
 *   question's plus `weight` times the context's, and the lexical index's
 *   reward for matching several query terms (score times matched terms)
 *   counts a context term as `weight` of a term;
 * - dense: the question's vector plus `weight` times the context's vector.
 * A self-contained question after an unrelated one keeps its own ranking,
 * because its own words still carry the larger weight.
 */
import { l2normalize } from '../embed/types.ts'

/** How much the previous questions count against the question's own words (measured on fixtures/eval/followups-*). */
export const CONTEXT_WEIGHT = 0.5

/**
 * How many previous questions take part: the last one. A follow-up to a
 * follow-up ("And on Deno?", then "How do I change the port?") leans on the
 * question just before it; older turns would pull back to topics left behind.
 */
export const CONTEXT_TURNS = 1

/** The previous questions that take part, as one text; '' when there are none. */
export function contextText(context: readonly string[] | undefined, turns = CONTEXT_TURNS): string {
  return (context ?? [])
    .slice(-turns)
    .map((q) => q.trim())
    .filter(Boolean)
    .join('\n')
}

interface Hit {
  ordinal: number
  score: number
  coverage: number
  /** Query terms the chunk matched; the lexical score is (sum over them) x their number. */
  terms: string[]
}

/**
 * The question's hits and the context's hits as one list, best first. A
 * chunk's coverage stays its coverage of the question's own terms
 * (coverage.ts; fusion weighs it), or 0 when only the context found it.
 */
export function withContext(own: readonly Hit[], context: readonly Hit[], weight = CONTEXT_WEIGHT): Hit[] {
  const parts = new Map<number, { own?: Hit; context?: Hit }>()
  for (const h of own) parts.set(h.ordinal, { own: h })
  for (const h of context) parts.set(h.ordinal, { ...parts.get(h.ordinal), context: h })
  const sum = (h: Hit | undefined) => (h && h.terms.length ? h.score / h.terms.length : 0)
  const hits = [...parts.entries()].map(([ordinal, p]): Hit => {
    const ownTerms = p.own?.terms ?? []
    const contextOnly = (p.context?.terms ?? []).filter((t) => !ownTerms.includes(t))
    const matched = ownTerms.length + weight * contextOnly.length
    return {
      ordinal,
      score: (sum(p.own) + weight * sum(p.context)) * matched,
      coverage: p.own?.coverage ?? 0,
      terms: [...ownTerms, ...contextOnly],
    }
  })
  // Ties keep the question's own order first (Map insertion order; sort is stable).
  return hits.sort((a, b) => b.score - a.score)
}

/** The question's vector leaning towards the conversation's. Both are unit length; so is the result. */
export function withContextVector(own: Float32Array, context: Float32Array, weight = CONTEXT_WEIGHT): Float32Array {
  const sum = new Float64Array(own.length)
  for (let i = 0; i < own.length; i++) sum[i] = own[i]! + weight * context[i]!
  return l2normalize(sum)
}
