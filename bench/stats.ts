/** Sampling, order statistics and figure formatting for bench samples. */

/** Per-call wall times of `fn` over the questions, `passes` passes after one warm-up pass. */
export async function timePasses(passes: number, questions: readonly string[], fn: (q: string) => unknown): Promise<number[]> {
  for (const q of questions) await fn(q)
  const samples: number[] = []
  for (let r = 0; r < passes; r++) {
    for (const q of questions) {
      const t0 = performance.now()
      await fn(q)
      samples.push(performance.now() - t0)
    }
  }
  return samples
}

export { median, p95, quantile } from '../core/stats.ts'

/** "0.42x" style docpilot/peer ratio; '—' when either side has no figure. */
export function ratio(docpilot: number, peer: number): string {
  if (!Number.isFinite(docpilot) || !Number.isFinite(peer) || peer === 0) return '—'
  return `${(docpilot / peer).toFixed(2)}x`
}

export function kb(bytes: number): string {
  return `${(bytes / 1024).toFixed(1)} KB`
}

/** A duration: 2 decimals under 100 ms, whole ms under 10 s, then seconds. */
export function ms(n: number): string {
  if (!Number.isFinite(n)) return '—'
  if (n >= 10_000) return `${(n / 1000).toFixed(1)} s`
  return n >= 100 ? `${Math.round(n)} ms` : `${n.toFixed(2)} ms`
}
