/**
 * The searcher every runtime shares: open an index through a PartLoader,
 * then rank passages for a question. Stages: channels produce ranked lists,
 * the lists are combined, the gate scores the evidence, and only then are
 * the winning chunks' texts loaded (a shard at a time, cached).
 */
import { shardFile, type ChunkRecord, type Manifest, type ShardSet } from '../index/format.ts'
import { readManifest } from '../index/read-manifest.ts'
import { contextText, withContext } from './conversation.ts'
import { cooccurrenceSignal, subjectSignal, vocabularySignal, type GateVerdict } from './gate.ts'
import { openWordRanks, questionWords } from './rarity.ts'
import { FUSION_CANDIDATES, openDenseChannel, rankHybrid, type DenseChannel, type DenseOptions } from './hybrid.ts'
import { queryTermsFor, termExpansion, type LexicalSettings } from './lexical.ts'
import { openSplitLexicalIndex, type SplitLexicalIndex } from './lexical-split.ts'
import { shardOfTerm, type LexicalHead, type PostingsShard } from '../index/postings.ts'
import { decodeTextShard, readJsonPart, type PartLoader, type TextShard } from '../index/parts.ts'

export interface SearchOptions {
  /** How many passages to return (default 8). */
  k?: number
  /** Skip the dense channel even when the index has one. */
  lexicalOnly?: boolean
  queryVector?: Float32Array
  /** Earlier questions of the conversation, oldest first: a follow-up is searched for the conversation (conversation.ts). */
  context?: readonly string[]
}

export interface Passage extends ChunkRecord {
  score: number
  channels?: { lexical?: number; dense?: number }
}

export interface SearchResult {
  mode: 'hybrid' | 'lexical'
  degraded: boolean
  degradedReason?: string
  gate: GateVerdict
  results: Passage[]
}

export interface DocIndex {
  readonly manifest: Manifest
  /** Number of chunks in the index. */
  readonly size: number
  /** The dense channel (null: the index declared lexical-only): warm it, or embed a question on its own. */
  readonly dense: DenseChannel | null
  /** The lexical channel, once its head has arrived: its dictionary answers "does this word occur in the docs" without a fetch. */
  lexical(): Promise<SplitLexicalIndex>
  search(question: string, opts?: SearchOptions): Promise<SearchResult>
  /** Full chunk records by index position, texts loaded on demand. */
  chunks(ordinals: number[]): Promise<ChunkRecord[]>
}

export const DEFAULT_K = 8

/** A loader of numbered parts that fetches each once (a failed fetch is forgotten, so the next search retries). */
function cachedShards<T>(loader: PartLoader, set: ShardSet): (i: number) => Promise<T> {
  const cache = new Map<number, Promise<T>>()
  return (i) => {
    let p = cache.get(i)
    if (!p) {
      p = readJsonPart<T>(loader, shardFile(set, i))
      p.catch(() => cache.delete(i))
      cache.set(i, p)
    }
    return p
  }
}

/**
 * The dense channel with this question's work already under way: its vector
 * (unless the caller brought one) and the index vectors. The ranking step
 * then awaits the same promises instead of starting them after the lexical
 * search.
 */
function startedDense(dense: DenseChannel, question: string, given?: Float32Array): DenseChannel {
  // The ranking step awaits this same read and reports its failure; it does not read again.
  const vectors = dense.vectors()
  vectors.catch(() => {})
  const started = { ...dense, vectors: () => vectors }
  if (given) return started
  const pending = dense.queryVector(question)
  return { ...started, queryVector: (q, signal) => (q === question ? pending : dense.queryVector(q, signal)) }
}

/**
 * Opens an index: the manifest, and (warm, the default) the start of what
 * every question needs: the lexical head, the vector codes, the model's
 * directory. Postings, model rows, candidate vectors and chunk texts are
 * fetched when a question needs them. `opts` reach the dense channel: the
 * hosted embedder's transport, the embed time limit, the log.
 */
export interface OpenOptions extends DenseOptions {
  /**
   * Start fetching what every hybrid question needs (the vectors' codes, the
   * model's directory) together with the lexical head, instead of with the
   * first question. Default true; a reader that will search lexical-only says false.
   */
  warm?: boolean
  /** The manifest the caller has just read through readManifest from this loader, so it is not read twice. */
  manifest?: Manifest
}

export async function openIndex(loader: PartLoader, opts: OpenOptions = {}): Promise<DocIndex> {
  const manifest = opts.manifest ?? (await readManifest(loader))
  const { postings, texts } = manifest.parts
  const perShard = texts.per
  // The index's one embedder (null: declared lexical-only); an unknown one is an error here, not later.
  const dense = openDenseChannel(manifest, loader, opts)
  if (opts.warm !== false) void dense?.warm()
  const settings = manifest.lexical
  const postingsShard = cachedShards<PostingsShard>(loader, postings)
  const queryTerms = queryTermsFor(settings)
  // The head is not waited for here: a first question starts its own fetches (postings, model rows) beside it.
  let head: Promise<SplitLexicalIndex> | undefined
  const lexical = (): Promise<SplitLexicalIndex> => {
    if (!head) {
      head = readJsonPart<LexicalHead>(loader, manifest.parts.lexical).then((h) => openSplitLexicalIndex(h, settings, postingsShard))
      head.catch(() => (head = undefined))
    }
    return head
  }
  if (opts.warm !== false) lexical().catch(() => {})
  const textShard = cachedShards<TextShard>(loader, texts)
  // The gate's word ranks, fetched with the first question (null: an index written without them).
  const ranks = openWordRanks(manifest, loader, dense)

  async function chunks(ordinals: number[]): Promise<ChunkRecord[]> {
    const shards = await Promise.all(ordinals.map((o) => textShard(Math.floor(o / perShard))))
    return ordinals.map((o, i) => decodeTextShard(shards[i]!)[o % perShard!]!)
  }

  return {
    manifest,
    size: manifest.corpus.chunks,
    dense,
    lexical,
    chunks,
    async search(question, opts = {}) {
      const k = opts.k ?? DEFAULT_K
      // Both channels start at once: on a cold visit each waits on the network, not on the other.
      const both = dense && !opts.lexicalOnly ? startedDense(dense, question, opts.queryVector) : dense
      const candidates = Math.max(k, FUSION_CANDIDATES)
      const context = contextText(opts.context)
      // The question's own terms' postings, found from the manifest's shard boundaries, load beside the head.
      // A term's prefix matches sort right after it: its shard and, when they run past it, the shards up to the last of them.
      if (postings.firsts) {
        for (const t of queryTerms(context ? `${question} ${context}` : question)) {
          const last = termExpansion(t, settings).prefix ? `${t}\uffff` : t
          for (let i = shardOfTerm(postings.firsts, t); i <= shardOfTerm(postings.firsts, last); i++) postingsShard(i).catch(() => {})
        }
      }
      const index = await lexical()
      // Windows of one long section share page and anchor: one result row per section.
      const sectionOf = (ordinal: number) => String(index.sectionOf(ordinal))
      const [own, previous, asked] = await Promise.all([
        index.search(question, candidates),
        context ? index.search(context, candidates) : undefined,
        questionWords(question, index.queryTerms, ranks),
      ])
      const lexicalHits = previous ? withContext(own, previous).slice(0, candidates) : own
      const evidence = {
        vocabulary: vocabularySignal(asked.words, asked.rankedWords, index.hasTerm),
        subject: subjectSignal(asked.words, asked.rankedWords, lexicalHits),
        cooccurrence: cooccurrenceSignal(asked.words, asked.rankedWords, lexicalHits),
      }
      // The best lexical hits are usually among the results: their texts load while the dense side finishes.
      for (const h of lexicalHits.slice(0, k)) textShard(Math.floor(h.ordinal / perShard)).catch(() => {})
      const ranked = await rankHybrid({
        question, k, lexical: lexicalHits, evidence, dense: both, manifest, lexicalOnly: opts.lexicalOnly, queryVector: opts.queryVector, sectionOf,
        ...(context ? { context } : {}),
      })
      const records = await chunks(ranked.hits.map((h) => h.ordinal))
      const results: Passage[] = records.map((r, i) => ({ ...r, score: ranked.hits[i]!.score, channels: ranked.hits[i]!.channels }))
      const { mode, degraded, degradedReason, gate } = ranked
      return { mode, degraded, ...(degradedReason !== undefined ? { degradedReason } : {}), gate, results }
    },
  }
}
