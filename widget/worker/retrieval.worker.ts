/// <reference lib="webworker" />
/**
 * The retrieval worker: stages 1-4 of a turn (embed, retrieve on both
 * channels, fuse, gate) over the static index, using the same core searcher
 * as the CLI. Index parts, the embedding model's files included, are cached
 * in IndexedDB by the part loader, keyed by their content-addressed names.
 *
 * Nothing loads before the reader shows intent: 'open' fetches the manifest,
 * the lexical index's head, the passage vectors' codes and the model's
 * directory; a question then fetches only its own postings, model rows,
 * candidate vectors and result texts.
 */
import { partOfIndex, type Manifest } from '../../core/index/format.ts'
import { routeTransport } from '../../core/ladder/transport.ts'
import { readManifest } from '../../core/index/read-manifest.ts'
import { openIndex, type DocIndex } from '../../core/retrieval/search.ts'
import { answer } from './answer.ts'
import { BrowserPartLoader } from './parts.ts'
import type { WorkerReply, WorkerRequest } from './protocol.ts'

declare const self: DedicatedWorkerGlobalScope

let loader: BrowserPartLoader | undefined
let opened: Promise<{ manifest: Manifest; index: DocIndex }> | undefined

async function open(indexUrl: string, proxyBase: string): Promise<{ manifest: Manifest; index: DocIndex }> {
  loader = new BrowserPartLoader(indexUrl)
  const manifest = await readManifest(loader)
  await loader.bind(manifest.corpus.digest, partOfIndex(manifest))
  // A hosted embedder embeds questions through the proxy's same-origin /ai/<member> route.
  const transport = routeTransport({ origin: proxyBase || self.location.origin })
  // Opening also starts fetching what the first hybrid question needs (vector codes, the model's directory).
  const index = await openIndex(loader, { transport })
  return { manifest, index }
}

async function handle(request: WorkerRequest): Promise<WorkerReply> {
  switch (request.type) {
    case 'open': {
      opened ??= open(request.indexUrl, request.proxyBase)
      opened.catch(() => (opened = undefined))
      const { manifest } = await opened
      return { id: request.id, ok: true, type: 'open', manifest }
    }
    case 'search': {
      if (!opened) throw new Error('docpilot: search before the index was opened')
      const { index } = await opened
      const result = await index.search(request.q, {
        ...(request.k ? { k: request.k } : {}),
        ...(request.lexicalOnly ? { lexicalOnly: true } : {}),
        ...(request.context ? { context: request.context } : {}),
      })
      return { id: request.id, ok: true, type: 'search', result }
    }
    case 'embed': {
      if (!opened) throw new Error('docpilot: embed before the index was opened')
      const { index } = await opened
      if (!index.dense) return { id: request.id, ok: true, type: 'embed', vector: null, reason: 'the index declared lexical-only', ms: 0 }
      const started = performance.now()
      const q = await index.dense.queryVector(request.q)
      const ms = performance.now() - started
      if ('reason' in q) return { id: request.id, ok: true, type: 'embed', vector: null, reason: q.reason, ms }
      return { id: request.id, ok: true, type: 'embed', vector: Array.from(q.vector), ms }
    }
    case 'stats':
      return { id: request.id, ok: true, type: 'stats', stats: { ...(loader?.stats ?? { fetchedBytes: 0, cachedHits: 0 }) } }
  }
}

self.addEventListener('message', (event: MessageEvent<WorkerRequest>) => {
  void answer(event.data, handle, (reply) => self.postMessage(reply))
})
