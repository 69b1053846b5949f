/**
 * The static index that `docpilot index` writes and the browser and CLI read.
 * `manifest.json` names every other part by a content-addressed file name
 * (the name carries a digest, so parts are cacheable forever).
 */
import type { MemberId } from '../providers/table.ts'
import type { FusionConfig } from '../retrieval/fusion.ts'
import type { GateConfig } from '../retrieval/gate.ts'
import type { LexicalSettings } from '../retrieval/lexical.ts'

/** The one file of an index that is not content-addressed: written last, it names all the others. */
export const MANIFEST_FILE = 'manifest.json'

/** Bumped on any incompatible change; readers refuse other versions with a clear message. */
export const FORMAT_VERSION = 3

/** Fields the lexical index covers, in the order its postings number them. */
export const LEXICAL_FIELDS = ['text', 'title', 'trail', 'path', 'anchor'] as const
export type LexicalField = (typeof LEXICAL_FIELDS)[number]

/**
 * A set of numbered files in one folder, each named by its number and a tag
 * of its own content: file i is `${dir}/${i}.${tags[i]}${ext}`. A changed
 * shard gets a new name (every file is cacheable forever), and an unchanged
 * one keeps its name from build to build, so a re-index after one page
 * changed writes that page's shards and leaves the others where they are.
 */
export interface ShardSet {
  dir: string
  count: number
  ext: string
  /** Per shard, the start of its content digest (hex). */
  tags: string[]
  /** Items per shard, where the reader computes which shard holds an item (text shards: chunks). */
  per?: number
  /** Sorted shards (lexical postings): the first key of each, so a reader finds a key's shard from the manifest. */
  firsts?: string[]
}

/** Hex digits of a shard's content digest in its name: enough that a changed shard never keeps its name. */
export const SHARD_TAG_LENGTH = 12

export function shardFile(set: ShardSet, i: number): string {
  if (!Number.isInteger(i) || i < 0 || i >= set.count) throw new RangeError(`shard ${i} is outside ${set.dir} (0..${set.count - 1})`)
  return `${set.dir}/${i}.${set.tags[i]}${set.ext}`
}

export function isShardSet(value: unknown): value is ShardSet {
  const v = value as Partial<ShardSet> | null
  return (
    !!v &&
    typeof v === 'object' &&
    typeof v.dir === 'string' &&
    typeof v.count === 'number' &&
    typeof v.ext === 'string' &&
    Array.isArray(v.tags) &&
    v.tags.length === v.count &&
    v.tags.every((t) => typeof t === 'string' && /^[0-9a-f]+$/.test(t))
  )
}

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

/**
 * How a reader finds a static model's row for a word without fetching the
 * model: the word's hash names its bucket, the directory where the bucket
 * lies in the packed rows file (core/index/static-rows.ts).
 */
export interface StaticRowsLayout {
  /** The packed rows, read one bucket at a time. */
  pack: string
  /** Entries per bucket (u8 each, gzip), fetched once. */
  directory: string
  buckets: number
  /** Word -> bucket: FNV-1a (32 bit) of the word's UTF-16 code units, modulo `buckets`. */
  hash: 'fnv1a32'
  /** The model's tokenizer: lower-case, then every match of the pattern is a word. */
  tokenizer: { lowercase: true; pattern: string }
}

export interface EmbedderIdentity {
  /** Stable name the browser is bound to, e.g. 'docpilot-minilm-static-en-v1' or 'openai:text-embedding-3-small'. */
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
  /** Local static embedders: the rows, served by word (core/embed/static-split.ts). */
  rows?: StaticRowsLayout
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

/** Content-addressed file names of the other parts, or shard sets. */
export interface IndexParts {
  /** The lexical index's head: its dictionary and document statistics (core/index/postings.ts). */
  lexical: string
  /** The lexical postings, split by term; `firsts` lets a reader find a term's shard from the manifest alone. */
  postings: ShardSet
  /** The chunks' full records (index/parts.ts TextShard), `per` chunks to a shard. */
  texts: ShardSet & { per: number }
  /** The dense channel (an index with an embedder): the passage vectors' codes and their exact rows. */
  codes?: string
  vectors?: string
  /** The gate's word list, when its ranks come from a list (`retrieval.ranks.source: 'list'`). */
  ranks?: string
}

/** The fusion of a lexical-only index: none (it is written as `{}`). */
export interface NoFusion {
  method?: never
}

export interface Manifest {
  format: typeof FORMAT_VERSION
  docpilot: string
  createdAt: string
  corpus: { digest: string; files: number; chunks: number }
  embedder: EmbedderIdentity
  parts: IndexParts
  /** Settings that make browser and CLI search identically. */
  lexical: LexicalSettings
  retrieval: {
    /** How the two channels are combined, chosen for this embedder; `{}` in a lexical-only index. */
    fusion: FusionConfig | NoFusion
    /** The refusal gate's floor, weights and thresholds, chosen for this embedder. */
    gate: GateConfig
    /**
     * Where the gate finds each question word's rank in general English, and
     * how many words are ranked: the first `words` lines of `parts.ranks` (a
     * frequency-ordered word list), or, with `source: 'model'`, the rows of
     * the embedder's own frequency-ordered vocabulary (no part of its own).
     */
    ranks?: { words: number; source?: 'list' | 'model' }
  }
  chat: {
    chain: PublicChainMember[]
    /** Per-day rationing of the chain as the index was built (the index summary prints it). */
    rationing?: { enabled: boolean; dailyLimit?: number; note?: string }
    /** The owner's answer settings (chat.maxTokens, temperature, timeouts) the panel's turns use. */
    settings?: PublicChatSettings
  }
  /** What the empty panel offers: the owner's `panel.suggestions`, or questions derived from headings. Absent in older indexes. */
  panel?: { suggestions: string[] }
  /** Present when the owner enabled insights: the panel sends each settled turn to /ai/events (the question only when `questions`). */
  insights?: { questions: boolean }
}

/** Whether a file name is one of the embedding model's files (named files, or the rows folder). */
export function partOfModel(identity: EmbedderIdentity): (name: string) => boolean {
  const files = new Set([...Object.values(identity.files ?? {}), ...(identity.rows ? [identity.rows.pack, identity.rows.directory] : [])])
  return (name) => files.has(name)
}

/**
 * Whether a file name belongs to this manifest's index: a named part, a
 * model file, or one of its shards. A cache keeps what
 * a new index still uses and drops the rest.
 */
export function partOfIndex(manifest: Manifest): (name: string) => boolean {
  const files = new Set<string>()
  const add = (value: string | ShardSet | undefined) => {
    if (typeof value === 'string') files.add(value)
    else if (value) for (let i = 0; i < value.count; i++) files.add(shardFile(value, i))
  }
  for (const value of Object.values(manifest.parts)) add(value)
  for (const value of Object.values(manifest.embedder.files ?? {})) add(value)
  add(manifest.embedder.rows?.pack)
  add(manifest.embedder.rows?.directory)
  return (name) => files.has(name)
}
