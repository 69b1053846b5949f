/**
 * What every engine's bench page exposes on `window.benchEngine`, so one
 * Chromium driver measures them all the same way. A search resolves when the
 * top-k passages are ready to show (text or excerpt in hand), which is what a
 * reader waits for.
 *
 * A page opened with `?q=QUERY` (and `&v=[vector]` for Orama hybrid) also runs that query as soon as its script
 * loads (a cold visit: nothing fetched ahead), draws the first hit into the
 * page and, once that frame is painted, records `window.benchFirst`: the time
 * since navigation started, on the page's own clock.
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

/** A cold visit's outcome: ms from navigation start to the first hit painted (no hit: `hits` 0). */
export interface FirstPaint {
  ms: number
  hits: number
  error?: string
}

declare global {
  interface Window {
    benchEngine?: PageEngine
    benchFirst?: FirstPaint
  }
}

const nextFrame = () => new Promise<void>((resolve) => requestAnimationFrame(() => resolve()))

/** Publishes the engine and, for `?q=`, runs the cold-visit query at once. */
export function startPage(engine: PageEngine): void {
  window.benchEngine = engine
  const params = new URLSearchParams(location.search)
  const q = params.get('q')
  if (q === null) return
  // `?v=[...]`: the question's vector, for a peer that searches docpilot's vectors but has no embedder of its own.
  const v = params.get('v')
  engine.search(q, 1, v ? (JSON.parse(v) as number[]) : undefined).then(
    async (hits) => {
      const first = hits[0]
      if (first) {
        const row = document.createElement('p')
        row.textContent = first.trail?.join(' › ') ?? first.href ?? first.path ?? ''
        document.querySelector('main')!.append(row)
        // Two frames: the one that lays the row out and the one that has painted it.
        await nextFrame()
        await nextFrame()
      }
      window.benchFirst = { ms: performance.now(), hits: hits.length }
    },
    (err: unknown) => (window.benchFirst = { ms: performance.now(), hits: 0, error: String(err) }),
  )
}
