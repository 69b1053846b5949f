/**
 * The static index that `docpilot index` writes and the browser and CLI read.
 * `manifest.json` names every other part by a content-addressed file name
 * (the name carries a digest, so parts are cacheable forever).
 */
import type { MemberId } from './providers/table.ts'

/** Bumped on any incompatible change; readers refuse other versions with a clear message. */
export const FORMAT_VERSION = 1

export interface ChunkRecord {
  /** Stable id, unique within the index. */
  id: string
  /** Source file path relative to the docs dir, POSIX separators. */
  path: string
  /** Page URL without the anchor. */
  url: string
  /** Heading id on the page; '' for text before the first split heading. */
  anchor: string
  /** Page title (H1 or frontmatter title). */
  title: string
  /** Heading trail from the page title down to the chunk's heading, inline markup stripped. */
  trail: string[]
  /** Chunk text (code kept). */
  text: string
}

export type EmbedderKind = 'local' | 'hosted' | 'none'

export interface EmbedderIdentity {
  /** Stable name the browser is bound to, e.g. 'docpilot-static-en-v1' or 'openai:text-embedding-3-small'. */
  id: string
  kind: EmbedderKind
  model: string
  dims: number
  /** e.g. 'int8' */
  quantization: string
  /** Hosted embedders: the member whose same-origin route embeds queries. */
  provider?: MemberId
  /** Local embedders: part name -> content-addressed file name. */
  files?: Record<string, string>
}

/** One member of the resolved chat chain as the browser sees it: never a key. */
export interface PublicChainMember {
  provider: MemberId
  /** Ordered models to try inside this member (the free pool has several). */
  models: string[]
  tier: 'billed' | 'free' | 'own'
  /** Same-origin route the panel posts to, e.g. '/ai/openai/chat/completions'. */
  route: string
  /** The free pool is walked model by model inside this member. */
  freePool: boolean
}

/** What the panel needs of the chat config to run a turn; no key, no upstream. */
export interface PublicChatSettings {
  maxTokens: number
  temperature: number
  /** Per member: to the first byte, and between deltas. */
  timeouts: { firstByteMs: number; idleMs: number }
}

export interface Manifest {
  format: typeof FORMAT_VERSION
  docpilot: string
  createdAt: string
  corpus: { digest: string; files: number; chunks: number }
  embedder: EmbedderIdentity
  /** Content-addressed file names of the other parts. */
  parts: Record<string, string | string[]>
  /** Settings that make browser and CLI search identically. */
  lexical: Record<string, unknown>
  retrieval: {
    fusion: Record<string, unknown>
    /** weights: how the hybrid gate score mixes the lexical and dense signals. */
    gate: { threshold: number; lexicalThreshold: number; weights?: { lexical: number; dense: number } }
  }
  chat: {
    chain: PublicChainMember[]
    /** Set when a mixed chain turned per-day rationing off. */
    rationing?: { enabled: boolean; dailyLimit?: number; note?: string }
    /** The owner's answer settings (chat.maxTokens, temperature, timeouts) the panel's turns use. */
    settings?: PublicChatSettings
  }
  /** What the empty panel offers: the owner's `panel.suggestions`, or questions derived from headings. Absent in older indexes. */
  panel?: { suggestions: string[] }
}
