/**
 * Bench page for docpilot: the shared searcher (core/retrieval/search.ts)
 * over a fetch-based PartLoader reading the index from `/docpilot/`, so the
 * page downloads what the widget's retrieval would (the manifest, then parts
 * as search needs them). `?mode=lexical` searches lexical-only.
 */
import { fetchPart } from '../../core/retrieval/fetch-part.ts'
import type { PartLoader } from '../../core/retrieval/parts.ts'
import { openIndex, type DocIndex } from '../../core/retrieval/search.ts'
import { startPage, type PageEngine } from './page-engine.ts'

const base = new URL('/docpilot/', location.href)
const params = new URLSearchParams(location.search)
const lexicalOnly = params.get('mode') === 'lexical'
// A cold visit (`?q=`) that lost its dense channel, to a read given up say, is not the figure measured: it fails, and the bench retries it.
const coldVisit = params.has('q')

const url = (name: string) => new URL(name, base).href

// The widget worker's reads (widget/worker/parts.ts), without its IndexedDB cache: a cold visit has nothing cached.
const loader: PartLoader = {
  bytes: (name) => fetchPart(fetch, url(name), {}, name),
  // Past the HTTP cache, which queues ranges of one file behind each other.
  range: (name, start, end) => fetchPart(fetch, url(name), { range: { start, end }, init: { cache: 'no-store' } }, name),
}

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
