/**
 * Orama 3 as a peer: one document per docpilot chunk (same text, title, trail,
 * path, anchor), BM25 by default, and hybrid over the very vectors docpilot's
 * index holds. Runs unchanged in Node (build, quality) and in the bench page
 * (bytes, latency): no DOM, no `node:` imports.
 */
import { create, insertMultiple, load, save, search, type AnyOrama, type RawData } from '@orama/orama'
import type { ChunkRecord } from '../../core/index/format.ts'
import { DEFAULT_LEXICAL_SETTINGS } from '../../core/retrieval/lexical.ts'

export interface OramaDoc {
  cid: string
  path: string
  url: string
  anchor: string
  title: string
  trail: string
  text: string
  embedding?: number[]
}

export interface PeerHit {
  path: string
  trail: string[]
  url: string
  anchor: string
}

/** The shipped index: the raw data Orama saves, plus the schema needed to load it. */
export interface OramaBundle {
  dims: number
  data: RawData
}

/** Trail elements are joined with this; it never occurs in heading text. */
const TRAIL_SEP = ' › '

function schemaFor(dims: number) {
  const base = {
    cid: 'string',
    path: 'string',
    url: 'string',
    anchor: 'string',
    title: 'string',
    trail: 'string',
    text: 'string',
  } as const
  return dims > 0 ? { ...base, embedding: `vector[${dims}]` as const } : base
}

/**
 * Orama's English tokenizer ships no stop words and stems nothing by default;
 * a question then ranks pages by "how" and "do". The peer gets what a docs
 * site would configure: English stemming and the same stop words docpilot
 * drops, so the comparison is about ranking, not query clean-up.
 */
async function emptyDb(dims: number): Promise<AnyOrama> {
  const tokenizer = { language: 'english', stemming: true, stopWords: [...DEFAULT_LEXICAL_SETTINGS.stopWords] }
  return (await create({ schema: schemaFor(dims), components: { tokenizer } } as never)) as unknown as AnyOrama
}

/** Builds the Orama database and its saved, shippable form. */
export async function buildOrama(
  chunks: ChunkRecord[],
  vectors?: ArrayLike<number>[],
): Promise<{ db: AnyOrama; bundle: OramaBundle }> {
  const dims = vectors?.[0]?.length ?? 0
  const db = await emptyDb(dims)
  const docs: OramaDoc[] = chunks.map((c, i) => ({
    cid: c.id,
    path: c.path,
    url: c.url,
    anchor: c.anchor,
    title: c.title,
    trail: c.trail.join(TRAIL_SEP),
    text: c.text,
    ...(dims ? { embedding: Array.from(vectors![i]!) } : {}),
  }))
  await insertMultiple(db as never, docs as never[], 500)
  return { db, bundle: { dims, data: save(db) } }
}

export async function loadOrama(bundle: OramaBundle): Promise<AnyOrama> {
  const db = await emptyDb(bundle.dims)
  load(db, bundle.data)
  return db
}

/** Full-text fields searched, as an owner indexing docs would pick them. */
const TEXT_PROPERTIES = ['title', 'trail', 'text', 'path', 'anchor']

/**
 * BM25 (Orama defaults), or hybrid with Orama's default equal weights when a
 * query vector is given. The vector similarity floor is lowered from Orama's
 * 0.8: with a small static embedder almost no passage clears 0.8, and hybrid
 * would silently be BM25.
 */
export async function searchOrama(
  db: AnyOrama,
  q: string,
  opts: { k: number; queryVector?: ArrayLike<number> },
): Promise<PeerHit[]> {
  const common = { term: q, properties: TEXT_PROPERTIES, limit: opts.k }
  const res = opts.queryVector
    ? await search(db, {
        ...common,
        mode: 'hybrid',
        vector: { value: Array.from(opts.queryVector), property: 'embedding' },
        similarity: 0.1,
      } as never)
    : await search(db, common as never)
  return (res.hits as unknown as { document: OramaDoc }[]).map(({ document: d }) => ({
    path: d.path,
    trail: d.trail.split(TRAIL_SEP),
    url: d.url,
    anchor: d.anchor,
  }))
}
