/**
 * What every engine's bench page exposes on `window.benchEngine`, so one
 * Chromium driver measures them all the same way. A search resolves when the
 * top-k passages are ready to show (text or excerpt in hand), which is what a
 * reader waits for.
 */
export interface PageHit {
  /** Peers that know only a URL (Pagefind): `/docs/x#anchor`. */
  href?: string
  /** Engines that carry the source location themselves. */
  path?: string
  trail?: string[]
}

export interface PageEngine {
  search(q: string, k: number, queryVector?: number[]): Promise<PageHit[]>
}

declare global {
  interface Window {
    benchEngine?: PageEngine
  }
}
