/**
 * Fusing the lexical and dense lists into one ranking. The method and weights
 * are chosen by measurement on the dev sets and written into the manifest, so
 * every runtime fuses the same way.
 *
 * The settings per kind of embedder are in tuning.ts.
 *
 * linear: lexical scores divided by the list's best (BM25 is unbounded and
 * query-dependent), dense cosines as they are (already on a fixed scale), then
 * a weighted sum. A candidate missing from one list gets that channel's exact
 * score when the caller can compute it (every chunk has a vector), else 0.
 * `coverageWeight` adds the share of the question's rarity-weighted terms the
 * passage holds (coverage.ts; 0 for a passage outside the lexical list): BM25
 * alone lets a passage that repeats one of the question's words outrank one
 * that holds all of them.
 * With `sectionOf`, linear fusion scores a window of a long section by its
 * section's best window on each channel: one window may hold the question's
 * words and its neighbour the passage whose meaning matches, and the reader
 * sees one row for the section either way (hybrid.ts keeps one per section).
 * The window shown is the one whose own score is best.
 * rrf: reciprocal rank fusion, kept for comparison in the eval.
 */

export type FusionConfig =
  | { method: 'linear'; lexicalWeight: number; denseWeight: number; coverageWeight?: number }
  | { method: 'rrf'; k: number; lexicalWeight: number; denseWeight: number }

export interface Scored {
  id: string
  score: number
  /** Lexical hits: the share of the question the passage covers (coverage.ts). */
  coverage?: number
}

export interface Fused {
  id: string
  score: number
  channels: { lexical?: number; dense?: number }
}

export function fuse(
  lexical: Scored[],
  dense: Scored[],
  config: FusionConfig,
  denseScoreOf?: (id: string) => number | undefined,
  sectionOf?: (id: string) => string,
): Fused[] {
  const byId = new Map<string, Fused>()
  const entry = (id: string) => {
    let e = byId.get(id)
    if (!e) byId.set(id, (e = { id, score: 0, channels: {} }))
    return e
  }
  if (config.method === 'rrf') {
    lexical.forEach((h, rank) => {
      const e = entry(h.id)
      e.channels.lexical = h.score
      e.score += config.lexicalWeight / (config.k + rank + 1)
    })
    dense.forEach((h, rank) => {
      const e = entry(h.id)
      e.channels.dense = h.score
      e.score += config.denseWeight / (config.k + rank + 1)
    })
    // Stable order: score, then lexical list order, then dense list order (Map insertion order).
    return [...byId.values()].sort((a, b) => b.score - a.score)
  }
  const best = lexical.reduce((m, h) => Math.max(m, h.score), 0)
  const coverage = new Map<string, number>()
  for (const h of lexical) {
    entry(h.id).channels.lexical = h.score
    if (h.coverage !== undefined) coverage.set(h.id, h.coverage)
  }
  for (const h of dense) entry(h.id).channels.dense = h.score
  const entries = [...byId.values()]
  const evidence = entries.map((e): Evidence => {
    if (e.channels.dense === undefined && denseScoreOf) e.channels.dense = denseScoreOf(e.id)
    return {
      lexical: best > 0 ? (e.channels.lexical ?? 0) / best : 0,
      dense: Math.max(0, e.channels.dense ?? 0),
      coverage: coverage.get(e.id) ?? 0,
    }
  })
  const weighted = (v: Evidence) => config.lexicalWeight * v.lexical + config.denseWeight * v.dense + (config.coverageWeight ?? 0) * v.coverage
  const own = evidence.map(weighted)
  const pooled = sectionOf ? bestBySection(entries.map((e) => sectionOf(e.id)), evidence) : evidence
  entries.forEach((e, i) => (e.score = weighted(pooled[i]!)))
  // Stable order: score, then the window's own score (the section's best window first), then lexical list order,
  // then dense list order (Map insertion order).
  const order = entries.map((_, i) => i).sort((a, b) => own[b]! - own[a]!).sort((a, b) => entries[b]!.score - entries[a]!.score)
  return order.map((i) => entries[i]!)
}

interface Evidence {
  lexical: number
  dense: number
  coverage: number
}

/** Each entry's evidence replaced by its section's best on each channel. */
function bestBySection(sections: readonly string[], evidence: readonly Evidence[]): Evidence[] {
  const best = new Map<string, Evidence>()
  sections.forEach((section, i) => {
    const v = evidence[i]!
    const b = best.get(section)
    if (!b) best.set(section, { ...v })
    else {
      b.lexical = Math.max(b.lexical, v.lexical)
      b.dense = Math.max(b.dense, v.dense)
      b.coverage = Math.max(b.coverage, v.coverage)
    }
  })
  return sections.map((section) => best.get(section)!)
}
