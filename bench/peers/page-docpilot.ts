/**
 * Bench page for docpilot: the shared searcher (core/retrieval/search.ts)
 * over a fetch-based PartLoader reading the index from `/docpilot/`, so the
 * page downloads what the widget's retrieval would (the manifest, then parts
 * as search needs them). `?mode=lexical` searches lexical-only.
 */
import type { PartLoader } from '../../core/retrieval/parts.ts'
import { openIndex, type DocIndex } from '../../core/retrieval/search.ts'
import { startPage, type PageEngine } from './page-engine.ts'

const base = new URL('/docpilot/', location.href)
const lexicalOnly = new URLSearchParams(location.search).get('mode') === 'lexical'

async function fetchBytes(name: string): Promise<Uint8Array> {
  const res = await fetch(new URL(name, base))
  if (!res.ok) throw new Error(`docpilot bench: ${name} answered HTTP ${res.status}`)
  return new Uint8Array(await res.arrayBuffer())
}

const loader: PartLoader = {
  bytes: fetchBytes,
  async range(name, start, end) {
    // As the widget's worker reads ranges (widget/worker/parts.ts): past the HTTP cache, which queues ranges of one file.
    const res = await fetch(new URL(name, base), { headers: { range: `bytes=${start}-${end - 1}` }, cache: 'no-store' })
    if (res.status !== 206) throw new Error(`docpilot bench: ${name} answered HTTP ${res.status} to a range request`)
    return new Uint8Array(await res.arrayBuffer())
  },
  async json<T>(name: string) {
    return JSON.parse(new TextDecoder().decode(await fetchBytes(name))) as T
  },
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
    return res.results.map((p) => ({ path: p.path, trail: p.trail }))
  },
}
startPage(engine)
