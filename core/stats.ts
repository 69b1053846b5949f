/** Order statistics shared by the benchmarks and the index summary. */

/** Nearest rank, so a reported quantile is a value that was measured. */
export function quantile(samples: readonly number[], q: number): number {
  if (!samples.length) return NaN
  const sorted = [...samples].sort((a, b) => a - b)
  return sorted[Math.min(sorted.length - 1, Math.max(0, Math.ceil(q * sorted.length) - 1))]!
}

export const median = (s: readonly number[]) => quantile(s, 0.5)
export const p95 = (s: readonly number[]) => quantile(s, 0.95)
