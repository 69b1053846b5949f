/**
 * The parts of an index made from its chunks: the lexical head, the postings
 * shards and the text shards. A first write makes them all; a re-index after
 * some pages changed, with the same pages giving the same number of chunks,
 * patches the previous write's (write-state.ts): it counts only the changed
 * chunks' terms, makes only the postings rows whose frequencies moved
 * (postings-patch.ts) and only the text shards holding a changed chunk, and
 * keeps every other part of the previous index as it is. Either way the
 * parts are the same bytes. Anything else (a page added, removed or grown
 * by a chunk, which renumbers the chunks after it; a state that does not
 * describe the index found at `out`) is a full write.
 */
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import { isShardSet, shardFile, type ChunkRecord, type Manifest, type ShardSet } from '../core/index/format.ts'
import { decodeTextShard, encodeTextShard, type TextShard } from '../core/index/parts.ts'
import { patchLexicalSplit, ShardMismatch, type DocumentChange } from '../core/index/postings-patch.ts'
import { decodeTerms, sectionRuns, splitLexicalIndex, type LexicalHead } from '../core/index/postings.ts'
import { chunkTermCounter, countLexicalPostings, fieldValue, type LexicalSettings } from '../core/retrieval/lexical.ts'
import { LexicalCache } from './lexical-cache.ts'
import { jsonPart, jsonShards, type PendingPart, type ShardSource } from './pending-part.ts'
import { sha256 } from './sha256.ts'
import type { WriteState } from './write-state.ts'

export interface CorpusInput {
  chunks: readonly ChunkRecord[]
  /** The index folder (absolute). */
  out: string
  settings: LexicalSettings
  shardSize: number
  postingsShardBytes: number
  version: string
  /** Where the lexical cache lives (lexical-cache.ts). */
  cacheDir?: string
  /** The id of the page each path's chunks came from (PageCache.pageId): same id, same chunks. */
  pageId?: (path: string) => string | undefined
  /** Each chunk's embedDigest, in chunk order, when the caller has them: part of the lexical cache's keys. */
  embedDigests?: readonly string[]
}

export interface CorpusParts {
  lexical: PendingPart
  postings: { set: ShardSet & { firsts: string[] }; parts: PendingPart[] }
  texts: { set: ShardSet & { per: number }; parts: PendingPart[]; digest: string }
  /** What the next write patches. */
  state: WriteState
  /** Keeps what counting learned for the next run (once the index is in place). */
  save(): Promise<void>
  /** Chunks whose lexical counts and text this run made: all of them, or those that changed. */
  made: number
}

/** The corpus parts, patched from `previous` (the state and the manifest of the index at `out`) when it allows. */
export async function corpusParts(input: CorpusInput, previous?: { state: WriteState; manifest: Partial<Manifest> }): Promise<CorpusParts> {
  if (previous && input.pageId) {
    const patched = patchedParts(input, previous.state, previous.manifest)
    if (patched) return patched
  }
  return fullParts(input)
}

async function fullParts(input: CorpusInput): Promise<CorpusParts> {
  const { chunks, settings, shardSize } = input
  const lexicalCache = input.cacheDir ? await LexicalCache.open(input.cacheDir, settings, input.version, input.out) : undefined
  const termsOf = chunkTermCounter(settings)
  const counted = lexicalCache ? lexicalCache.countPostings(chunks, termsOf, input.embedDigests) : countLexicalPostings(chunks, settings, termsOf)
  const split = splitLexicalIndex(counted, sectionRuns(chunks), input.postingsShardBytes)
  const lexical = jsonPart('lexical', split.head)
  const postings = jsonShards('postings', split.shardJsons.map((json) => ({ json })), { firsts: split.firsts })
  const textJsons: ShardSource[] = []
  for (let i = 0; i < chunks.length; i += shardSize) textJsons.push({ json: JSON.stringify(encodeTextShard(chunks.slice(i, i + shardSize))) })
  const texts = jsonShards('texts', textJsons, { per: shardSize })
  return {
    lexical,
    postings,
    texts,
    state: stateOf(input, lexical, split.rowBytes, postings, texts.parts, texts.digest),
    save: async () => lexicalCache?.save(),
    made: chunks.length,
  }
}

function stateOf(input: CorpusInput, lexical: PendingPart, rowBytes: number[], postings: CorpusParts['postings'], texts: readonly PendingPart[], corpus: string): WriteState {
  const pages: WriteState['pages'] = []
  let path: string | undefined
  for (const chunk of input.chunks) {
    if (chunk.path === path) pages.at(-1)![2]++
    else pages.push([(path = chunk.path), input.pageId?.(path) ?? null, 1])
  }
  return {
    corpus,
    pages,
    ids: spelledIds(input.chunks),
    head: [lexical.name, lexical.content, lexical.raw],
    rowBytes,
    postings: postings.parts.map((p) => [p.content, p.raw]),
    firsts: postings.set.firsts,
    texts: texts.map((p) => [p.content, p.raw]),
  }
}

/** The previous index's part `name` as text, when it still holds what the state says (else the patch is off). */
class PreviousParts {
  constructor(private readonly out: string) {}

  json<T>(name: string, expected: string): T {
    return JSON.parse(this.text(name, expected)) as T
  }

  text(name: string, expected: string): string {
    let plain: Buffer
    try {
      plain = gunzipSync(readFileSync(join(this.out, name)))
    } catch {
      throw new StaleState()
    }
    if (sha256(plain) !== expected) throw new StaleState()
    return plain.toString('utf8')
  }
}

/** The previous index is not what the state describes. */
class StaleState extends Error {}

/** The parts patched from the previous write, or undefined when only a full write can make them. */
function patchedParts(input: CorpusInput, state: WriteState, manifest: Partial<Manifest>): CorpusParts | undefined {
  const { chunks, shardSize } = input
  const parts = manifest.parts
  const before = { postings: parts?.postings, texts: parts?.texts }
  if (
    manifest.corpus?.digest !== state.corpus ||
    parts?.lexical !== state.head[0] ||
    !isShardSet(before.postings) ||
    before.postings.count !== state.postings.length ||
    !isShardSet(before.texts) ||
    before.texts.count !== state.texts.length ||
    before.texts.per !== shardSize
  ) {
    return undefined
  }
  const changed = changedChunks(input, state)
  if (!changed) return undefined
  const { docs: changedDocs, ids: renamed } = changed
  const previousParts = new PreviousParts(input.out)
  try {
    const textShards = new Map<number, ChunkRecord[]>()
    const oldChunk = (doc: number): ChunkRecord => {
      const shard = Math.floor(doc / shardSize)
      let records = textShards.get(shard)
      if (!records) textShards.set(shard, (records = decodeTextShard(previousParts.json<TextShard>(shardFile(before.texts!, shard), state.texts[shard]![0]))))
      return records[doc % shardSize]!
    }
    // A changed page's chunks mostly hold what they held (an edit lands in one section): only those that differ are counted and stored again.
    const termsOf = chunkTermCounter(input.settings)
    const changes: DocumentChange[] = []
    const differing = new Set(renamed)
    for (const doc of changedDocs) {
      const [was, now] = [oldChunk(doc), chunks[doc]!]
      if (input.settings.fields.some((field) => fieldValue(was, field) !== fieldValue(now, field))) changes.push({ doc, before: termsOf(was), after: termsOf(now) })
      if (!sameRecord(was, now)) differing.add(doc)
    }
    const remade = new Set([...differing].map((doc) => Math.floor(doc / shardSize)))

    const sectionsMoved = changedDocs.some((doc) => oldChunk(doc).path !== chunks[doc]!.path || oldChunk(doc).anchor !== chunks[doc]!.anchor)
    const { lexical, postings, rowBytes } = changes.length || sectionsMoved ? patchedLexical(input, state, previousParts, before.postings, changes) : keptLexical(state, before.postings)
    const textSources = state.texts.map(([digest, raw], i): ShardSource =>
      remade.has(i) ? { json: JSON.stringify(encodeTextShard(chunks.slice(i * shardSize, (i + 1) * shardSize))) } : { digest, raw, kept: shardFile(before.texts!, i) },
    )
    const texts = jsonShards('texts', textSources, { per: shardSize })
    return {
      lexical,
      postings,
      texts,
      state: stateOf(input, lexical, rowBytes, postings, texts.parts, texts.digest),
      save: async () => {},
      made: differing.size,
    }
  } catch (error) {
    if (error instanceof StaleState || error instanceof ShardMismatch) return undefined
    throw error
  }
}

type LexicalParts = Pick<CorpusParts, 'lexical' | 'postings'> & { rowBytes: number[] }

/** The lexical head and postings after `changes`: the rows of edited terms made anew, the shards that hold none kept. */
function patchedLexical(input: CorpusInput, state: WriteState, previousParts: PreviousParts, before: ShardSet, changes: readonly DocumentChange[]): LexicalParts {
  const head = previousParts.json<LexicalHead>(state.head[0], state.head[1])
  const patched = patchLexicalSplit(
    {
      head,
      terms: decodeTerms(head),
      rowBytes: state.rowBytes,
      shardJson: (i) => previousParts.text(shardFile(before, i), state.postings[i]![0]),
    },
    changes,
    sectionRuns(input.chunks),
    input.postingsShardBytes,
  )
  const kept = (k: number): ShardSource => ({ digest: state.postings[k]![0], raw: state.postings[k]![1], kept: shardFile(before, k) })
  return {
    lexical: jsonPart('lexical', patched.head),
    postings: jsonShards('postings', patched.shards.map((s) => ('json' in s ? s : kept(s.previous))), { firsts: patched.firsts }),
    rowBytes: patched.rowBytes,
  }
}

/** The previous lexical head and postings, every one kept: no chunk's counts changed, nor its section. */
function keptLexical(state: WriteState, before: ShardSet): LexicalParts {
  const [name, digest, raw] = state.head
  return {
    lexical: { name, gzipped: true, content: digest, raw, kept: name },
    postings: jsonShards('postings', state.postings.map(([digest, raw], k) => ({ digest, raw, kept: shardFile(before, k) })), { firsts: state.firsts }),
    rowBytes: state.rowBytes,
  }
}

/**
 * The chunks of pages that changed since the state's write, and the chunks
 * whose id changed on an unchanged page (made unique against another page's);
 * undefined when pages were added, removed, reordered or gave another number
 * of chunks.
 */
function changedChunks(input: CorpusInput, state: WriteState): { docs: number[]; ids: number[] } | undefined {
  const { chunks } = input
  const docs: number[] = []
  let doc = 0
  for (const [path, id, count] of state.pages) {
    const start = doc
    for (; doc < chunks.length && chunks[doc]!.path === path; doc++);
    if (doc - start !== count) return undefined
    const now = input.pageId!(path)
    if (!now || now !== id) for (let d = start; d < doc; d++) docs.push(d)
  }
  if (doc !== chunks.length) return undefined
  // An unchanged page's chunk has the path and anchor it had: its id was the one spelled out, else path#anchor.
  const spelled = new Map(state.ids)
  const ids: number[] = []
  for (let d = 0; d < chunks.length; d++) {
    const chunk = chunks[d]!
    if (chunk.id !== (spelled.get(d) ?? `${chunk.path}#${chunk.anchor}`)) ids.push(d)
  }
  return { docs, ids }
}

/** The chunks whose id is not path#anchor (made unique on their page or across pages), by number. */
function spelledIds(chunks: readonly ChunkRecord[]): WriteState['ids'] {
  const ids: WriteState['ids'] = []
  for (const [d, chunk] of chunks.entries()) if (chunk.id !== `${chunk.path}#${chunk.anchor}`) ids.push([d, chunk.id])
  return ids
}

const sameRecord = (a: ChunkRecord, b: ChunkRecord): boolean =>
  a.id === b.id && a.path === b.path && a.url === b.url && a.anchor === b.anchor && a.title === b.title && a.text === b.text && a.trail.length === b.trail.length && a.trail.every((t, i) => t === b.trail[i])
