/** Messages between the panel and the retrieval worker. */
import type { Manifest } from '../../core/index/format.ts'
import type { SearchResult } from '../../core/retrieval/search.ts'

export type WorkerRequest =
  | { id: number; type: 'open'; indexUrl: string; proxyBase: string }
  /** `context`: the conversation's earlier questions, oldest first (a follow-up is searched for the conversation). */
  | { id: number; type: 'search'; q: string; k?: number; lexicalOnly?: boolean; context?: string[] }
  /** The question's vector from the index's embedder alone (cross-runtime checks, benchmarks). */
  | { id: number; type: 'embed'; q: string }
  | { id: number; type: 'stats' }

export interface WorkerStats {
  fetchedBytes: number
  cachedHits: number
}

export type WorkerReply =
  | { id: number; ok: true; type: 'open'; manifest: Manifest }
  | { id: number; ok: true; type: 'search'; result: SearchResult }
  | { id: number; ok: true; type: 'embed'; vector: number[] | null; reason?: string; ms: number }
  | { id: number; ok: true; type: 'stats'; stats: WorkerStats }
  | { id: number; ok: false; error: string }
