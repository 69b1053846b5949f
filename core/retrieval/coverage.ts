/**
 * How much of a question a passage covers, each query term weighted by how
 * rare it is in the docs (BM25's inverse document frequency): a passage that
 * holds "hydration" and "Cloudflare" covers "hydration errors on Cloudflare"
 * better than one that repeats "hydration" many times, though BM25 may score
 * the second higher. Fusion adds it as a third signal (fusion.ts).
 *
 * Document frequencies come from the search's own results (every chunk that
 * matched any query term), so they count a term as the search matched it,
 * prefix and fuzzy matches included, and need nothing beyond the postings
 * the question already loaded.
 */

/** BM25's inverse document frequency of a term found in `df` of `n` documents. */
export function inverseDocumentFrequency(df: number, n: number): number {
  return Math.log(1 + (n - df + 0.5) / (df + 0.5))
}

/**
 * The share of the query terms' weight a set of matched terms holds (0..1).
 * `matchedByHit` holds the terms matched by every document that matched any
 * term, not a top slice: a term's document frequency is the number of hits
 * holding it.
 */
export function coverageOf(queryTerms: readonly string[], matchedByHit: readonly (readonly string[])[], documentCount: number): (matched: readonly string[]) => number {
  // One lookup per matched term: this runs over every hit of every question (1,600 on a large site).
  const position = new Map(queryTerms.map((t, i) => [t, i]))
  const df = new Float64Array(queryTerms.length)
  for (const terms of matchedByHit) {
    for (const t of terms) {
      const i = position.get(t)
      if (i !== undefined) df[i]!++
    }
  }
  const n = Math.max(documentCount, matchedByHit.length)
  const weight = df.map((d) => inverseDocumentFrequency(d, n))
  const total = weight.reduce((a, b) => a + b, 0)
  return (matched) => {
    if (total <= 0) return 0
    let held = 0
    for (const t of new Set(matched)) {
      const i = position.get(t)
      if (i !== undefined) held += weight[i]!
    }
    return held / total
  }
}
