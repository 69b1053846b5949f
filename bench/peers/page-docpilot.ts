/**
 * Bench page for docpilot: the shared searcher (core/retrieval/search.ts)
 * over a fetch-based PartLoader reading the index from `/docpilot/`, so the
 * page downloads what the widget's retrieval would (the manifest, then parts
 * as search needs them). `?mode=lexical` searches lexical-only.
 */
import { httpPartLoader } from '../../core/index/http-parts.ts'
import { openIndex, type DocIndex } from '../../core/retrieval/search.ts'
import { startPage, type PageEngine } from './page-engine.ts'

const base = new URL('/docpilot/', location.href)
const params = new URLSearchParams(location.search)
const lexicalOnly = params.get('mode') === 'lexical'
// A cold visit (`?q=`) that lost its dense channel, to a read given up say, is not the figure measured: it fails, and the bench retries it.
const coldVisit = params.has('q')

// The widget worker's reads (widget/worker/parts.ts), without its IndexedDB cache: a cold visit has nothing cached.
const loader = httpPartLoader(base.href, fetch, { rangeInit: { cache: 'no-store' } })

let index: Promise<DocIndex> | undefined

const engine: PageEngine = {
  async search(q, k, queryVector) {
    const idx = await (index ??= openIndex(loader, { warm: !lexicalOnly }))
    const res = await idx.search(q, {
      k,
      lexicalOnly,
      ...(queryVector && !lexicalOnly ? { queryVector: Float32Array.from(queryVector) } : {}),
    })
    if (coldVisit && res.degraded) throw new Error(`docpilot bench: search degraded: ${res.degradedReason ?? 'no reason given'}`)
    return res.results.map((p) => ({ path: p.path, trail: p.trail }))
  },
}
startPage(engine)
