/**
 * The searcher every runtime shares: open an index through a PartLoader,
 * then rank passages for a question. Stages: channels produce ranked lists,
 * the lists are combined, the gate scores the evidence, and only then are
 * the winning chunks' texts loaded (a shard at a time, cached).
 */
import { FORMAT_VERSION, type ChunkRecord, type Manifest } from '../index-format.ts'
import { FUSION_CANDIDATES, openDenseChannel, rankHybrid, type DenseChannel, type DenseOptions } from './hybrid.ts'
import { loadLexicalIndex, type LexicalIndex, type LexicalPart, type LexicalSettings } from './lexical.ts'
import { decodeMeta, readJsonPart, type MetaPart, type PartLoader, type TextShard } from './parts.ts'

export interface SearchOptions {
  /** How many passages to return (default 8). */
  k?: number
  /** Skip the dense channel even when the index has one. */
  lexicalOnly?: boolean
  queryVector?: Float32Array
}

export interface Passage extends ChunkRecord {
  score: number
  channels?: { lexical?: number; dense?: number }
}

export interface SearchResult {
  mode: 'hybrid' | 'lexical'
  degraded: boolean
  degradedReason?: string
  gate: { pass: boolean; score: number }
  results: Passage[]
}

export interface DocIndex {
  readonly manifest: Manifest
  /** Number of chunks in the index. */
  readonly size: number
  /** The dense channel (null: the index declared lexical-only): warm it, or embed a question on its own. */
  readonly dense: DenseChannel | null
  search(question: string, opts?: SearchOptions): Promise<SearchResult>
  /** Full chunk records by index position, texts loaded on demand. */
  chunks(ordinals: number[]): Promise<ChunkRecord[]>
}

/** The index folder cannot be used by this version of docpilot (or is not an index at all). */
export class IndexFormatError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'IndexFormatError'
  }
}

export const DEFAULT_K = 8

/** Checks the manifest before anything else is fetched. */
export function checkManifest(value: unknown): Manifest {
  const m = value as Partial<Manifest> | null
  if (!m || typeof m !== 'object' || !('format' in m)) {
    throw new IndexFormatError('manifest.json is not a docpilot index manifest. Run `docpilot index` to build one.')
  }
  if (m.format !== FORMAT_VERSION) {
    throw new IndexFormatError(
      `This index has format version ${String(m.format)} (written by docpilot ${m.docpilot ?? 'unknown'}); ` +
        `this docpilot reads format version ${FORMAT_VERSION}. Rebuild it with \`docpilot index\`.`,
    )
  }
  return m as Manifest
}

function partName(manifest: Manifest, key: string): string {
  const name = manifest.parts[key]
  if (typeof name !== 'string') throw new IndexFormatError(`manifest.json names no "${key}" part. Rebuild the index with \`docpilot index\`.`)
  return name
}

/** `opts` reach the dense channel: the hosted embedder's transport, the embed time limit, the log. */
export async function openIndex(loader: PartLoader, opts: DenseOptions = {}): Promise<DocIndex> {
  const manifest = checkManifest(await loader.json<unknown>('manifest.json'))
  const [meta, lexicalJson] = await Promise.all([
    readJsonPart<MetaPart>(loader, partName(manifest, 'meta')),
    readJsonPart<LexicalPart>(loader, partName(manifest, 'lexical')),
  ])
  const lexical: LexicalIndex = loadLexicalIndex(lexicalJson, manifest.lexical as unknown as LexicalSettings)
  // The index's one embedder (null: declared lexical-only); an unknown one is an error here, not later.
  const dense = openDenseChannel(manifest, loader, opts)
  const shardNames = manifest.parts.texts
  if (!Array.isArray(shardNames)) throw new IndexFormatError('manifest.json names no text shards. Rebuild the index with `docpilot index`.')

  const shards = new Map<number, Promise<TextShard>>()
  const shard = (i: number): Promise<TextShard> => {
    let p = shards.get(i)
    if (!p) {
      p = readJsonPart<TextShard>(loader, shardNames[i]!)
      // A failed fetch must not poison the cache: the next search retries.
      p.catch(() => shards.delete(i))
      shards.set(i, p)
    }
    return p
  }

  // Windows of one long section share page and anchor: one result row per section.
  const sectionOf = (ordinal: number) => {
    const [page, anchor] = meta.chunks[ordinal]!
    return `${page}#${anchor}`
  }

  async function chunks(ordinals: number[]): Promise<ChunkRecord[]> {
    const texts = await Promise.all(ordinals.map((o) => shard(Math.floor(o / meta.shardSize))))
    return ordinals.map((o, i) => ({ ...decodeMeta(meta, o), text: texts[i]![o % meta.shardSize]! }))
  }

  return {
    manifest,
    size: meta.chunks.length,
    dense,
    chunks,
    async search(question, opts = {}) {
      const k = opts.k ?? DEFAULT_K
      const lexicalHits = lexical.search(question, Math.max(k, FUSION_CANDIDATES))
      const ranked = await rankHybrid({
        question, k, lexical: lexicalHits, dense, manifest, lexicalOnly: opts.lexicalOnly, queryVector: opts.queryVector, sectionOf,
      })
      const records = await chunks(ranked.hits.map((h) => h.ordinal))
      const results: Passage[] = records.map((r, i) => ({ ...r, score: ranked.hits[i]!.score, channels: ranked.hits[i]!.channels }))
      const { mode, degraded, degradedReason, gate } = ranked
      return { mode, degraded, ...(degradedReason !== undefined ? { degradedReason } : {}), gate, results }
    },
  }
}
