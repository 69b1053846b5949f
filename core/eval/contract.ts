/**
 * The retrieval contract for tools (DESIGN.md): one JSON line per question.
 * `docpilot query` prints it and `docpilot eval` scores it, so both go
 * through this one function. Keep the shape stable.
 */
import type { SearchResult } from '../retrieval/search.ts'
import type { QueryOutput } from './score.ts'

export interface ContractLine extends QueryOutput {
  results: Array<{ path: string; anchor: string; url: string; title: string; trail: string[]; score: number }>
}

const round = (n: number) => Math.round(n * 10_000) / 10_000

export function toContractLine(id: string, result: SearchResult): ContractLine {
  return {
    id,
    mode: result.mode,
    gate: { pass: result.gate.pass, score: round(result.gate.score) },
    results: result.results.map((p) => ({
      path: p.path,
      anchor: p.anchor,
      url: p.anchor ? `${p.url}#${p.anchor}` : p.url,
      title: p.title,
      trail: p.trail,
      score: round(p.score),
    })),
  }
}
