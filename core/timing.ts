/** Milliseconds since `start` (a `performance.now()` reading), to a hundredth: how receipts record attempt and stage times. */
export function msSince(start: number): number {
  return Math.round((performance.now() - start) * 100) / 100
}
