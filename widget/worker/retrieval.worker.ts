/// <reference lib="webworker" />
/**
 * The retrieval worker: stages 1-4 of a turn (embed, retrieve on both
 * channels, fuse, gate) over the static index, using the same core searcher
 * as the CLI. Index parts are cached in IndexedDB by the part loader.
 */
import type { Manifest } from '../../core/index-format.ts'
import { openIndex, type DocIndex } from '../../core/retrieval/search.ts'
import { BrowserPartLoader } from './parts.ts'
import type { WorkerReply, WorkerRequest } from './protocol.ts'

declare const self: DedicatedWorkerGlobalScope

let loader: BrowserPartLoader | undefined
let opened: Promise<{ manifest: Manifest; index: DocIndex }> | undefined

async function open(indexUrl: string, proxyBase: string): Promise<{ manifest: Manifest; index: DocIndex }> {
  loader = new BrowserPartLoader(indexUrl)
  const manifest = await loader.json<Manifest>('manifest.json')
  await loader.bind(manifest.corpus.digest)
  void proxyBase // hosted query embedders reach their member through the proxy (see embedder wiring)
  const index = await openIndex(loader)
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
      const result = await index.search(request.q, request.k ? { k: request.k } : {})
      return { id: request.id, ok: true, type: 'search', result }
    }
    case 'stats':
      return { id: request.id, ok: true, type: 'stats', stats: { ...(loader?.stats ?? { fetchedBytes: 0, cachedHits: 0 }) } }
  }
}

self.addEventListener('message', (event: MessageEvent<WorkerRequest>) => {
  handle(event.data).then(
    (reply) => self.postMessage(reply),
    (error: unknown) =>
      self.postMessage({
        id: event.data.id,
        ok: false,
        error: error instanceof Error ? error.message : String(error),
      } satisfies WorkerReply),
  )
})
