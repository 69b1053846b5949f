/**
 * The lexical index split by term, so a question fetches only the postings
 * of its own terms (the way Pagefind splits its index):
 *
 * - the head, fetched once: every term (sorted, front-coded), per-document
 *   field lengths and the averages BM25 needs, and where each postings
 *   shard starts;
 * - postings shards: consecutive runs of the sorted terms, each about
 *   `shardBytes` of JSON, so a term and its prefix matches mostly share one.
 *
 * A reader expands each query term against the head's dictionary exactly as
 * minisearch does (the term, its prefix matches, its fuzzy matches), fetches
 * the shards holding those terms into a minisearch index that holds every
 * document's statistics, and runs the unchanged minisearch search: it
 * consults exactly the postings the whole index would, so scores are those
 * of the whole index.
 */
import type { AsPlainObject } from 'minisearch'
import SearchableMap from 'minisearch/SearchableMap'
import { lexicalSearcher, PostingsIndex, termExpansion, type CountedLexicalIndex, type LexicalHit, type LexicalIndex, type LexicalSettings } from './lexical.ts'

export const LEXICAL_SPLIT_ENCODING = 'docpilot-lexical-split-v1'

/**
 * One term's postings: per field (minisearch's field order), 0 when the term
 * is not in that field, else the ascending document numbers as gaps, paired
 * with their term frequencies when some frequency is not 1.
 */
export type PostingRow = Array<0 | number[] | [gaps: number[], freqs: number[]]>

export interface LexicalHead {
  encoding: typeof LEXICAL_SPLIT_ENCODING
  documentCount: number
  averageFieldLength: number[]
  /** fieldLength[field][document]: field-major, so each field's small numbers sit together. */
  fieldLength: number[][]
  /** Sorted terms, front-coded: term i is term i-1's first prefix[i] characters followed by suffix[i]. */
  prefix: number[]
  suffix: string[]
  /** First term of each postings shard (shard i holds terms shardStarts[i] up to the next start). */
  shardStarts: number[]
  /**
   * Run lengths of consecutive chunks that are windows of one section, in
   * chunk order: what tells results of the same section apart before any
   * chunk record is fetched.
   */
  sections: number[]
}

/** A postings shard: the rows of its terms, in the head's term order. */
export type PostingsShard = PostingRow[]

/** Raw JSON bytes per postings shard: about 3-4 KB once gzipped. */
export const DEFAULT_POSTINGS_SHARD_BYTES = 12_000

/** One field's postings from minisearch's form (document number -> frequency) as countLexicalPostings counts them. */
function countedDocs(docs: Record<string, number>): number[] {
  // Integer keys enumerate in ascending order.
  return Object.keys(docs).flatMap((id) => [Number(id), docs[id]!])
}

function encodeRow(byField: Record<string, Record<string, number>> | Array<number[] | undefined>, fields: number): PostingRow {
  const row: PostingRow = []
  for (let f = 0; f < fields; f++) {
    const entry: number[] | Record<string, number> | undefined = Array.isArray(byField) ? byField[f] : byField[f]
    if (!entry) {
      row.push(0)
      continue
    }
    const docs = Array.isArray(entry) ? entry : countedDocs(entry)
    const gaps: number[] = []
    const freqs: number[] = []
    for (let i = 0; i < docs.length; i += 2) {
      gaps.push(docs[i]! - (i ? docs[i - 2]! : 0))
      freqs.push(docs[i + 1]!)
    }
    row.push(freqs.every((x) => x === 1) ? gaps : [gaps, freqs])
  }
  while (row.at(-1) === 0) row.pop()
  return row
}

function decodeRow(row: PostingRow): Map<number, Map<number, number>> {
  const byField = new Map<number, Map<number, number>>()
  row.forEach((entry, f) => {
    if (entry === 0) return
    const [gaps, freqs] = Array.isArray(entry[0]) ? (entry as [number[], number[]]) : [entry as number[], undefined]
    const docs = new Map<number, number>()
    let id = 0
    gaps.forEach((gap, i) => {
      id += gap
      docs.set(id, freqs ? freqs[i]! : 1)
    })
    byField.set(f, docs)
  })
  return byField
}

/** Run lengths of consecutive chunks sharing path and anchor (the windows of one long section). */
export function sectionRuns(chunks: readonly { path: string; anchor: string }[]): number[] {
  const runs: number[] = []
  chunks.forEach((c, i) => {
    const prev = chunks[i - 1]
    if (prev && prev.path === c.path && prev.anchor === c.anchor) runs[runs.length - 1]!++
    else runs.push(1)
  })
  return runs
}

/**
 * Splits an index (minisearch's serialized form, or countLexicalPostings') into its head and postings shards
 * (and each shard as JSON, what JSON.stringify gives). Pure: same index, same parts.
 * `sections`: sectionRuns() of the indexed chunks.
 */
export function splitLexicalIndex(
  js: AsPlainObject | CountedLexicalIndex,
  sections: number[],
  shardBytes = DEFAULT_POSTINGS_SHARD_BYTES,
): { head: LexicalHead; shards: PostingsShard[]; shardJsons: string[]; firsts: string[] } {
  const n = js.documentCount
  if (sections.reduce((a, b) => a + b, 0) !== n) throw new Error(`section runs cover ${sections.reduce((a, b) => a + b, 0)} chunks; the index has ${n}`)
  const fields = Object.keys(js.fieldIds).length
  const fieldLength: number[][] = Array.from({ length: fields }, () => new Array<number>(n))
  for (let doc = 0; doc < n; doc++) {
    if (js.documentIds[doc] !== doc) throw new Error('lexical index documents must be numbered 0..n-1 in order')
    const lengths = js.fieldLength[doc]!
    for (let f = 0; f < fields; f++) fieldLength[f]![doc] = lengths[f] ?? 0
  }
  // Code-point order: the same on every machine, and what prefix ranges need.
  const entries = [...js.index].sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0))
  const prefix: number[] = []
  const suffix: string[] = []
  const shardStarts: number[] = []
  const shards: PostingsShard[] = []
  // Each row's JSON, made to size the shards, makes the shard's JSON too.
  const rowJsons: string[][] = []
  let previous = ''
  let size = Infinity
  entries.forEach(([term, byField], t) => {
    let p = 0
    while (p < previous.length && p < term.length && previous[p] === term[p]) p++
    prefix.push(p)
    suffix.push(term.slice(p))
    previous = term
    const row = encodeRow(byField, fields)
    if (size >= shardBytes) {
      shardStarts.push(t)
      shards.push([])
      rowJsons.push([])
      size = 0
    }
    const json = JSON.stringify(row)
    shards.at(-1)!.push(row)
    rowJsons.at(-1)!.push(json)
    size += json.length + 1
  })
  return {
    head: { encoding: LEXICAL_SPLIT_ENCODING, documentCount: n, averageFieldLength: js.averageFieldLength, fieldLength, prefix, suffix, shardStarts, sections },
    shards,
    shardJsons: rowJsons.map((rows) => `[${rows.join(',')}]`),
    firsts: shardStarts.map((t) => entries[t]![0]),
  }
}

/**
 * The postings shard a term would be in, from the first term of every shard
 * (which the manifest carries): a reader starts fetching a question's own
 * terms' postings before the head with the whole dictionary has arrived.
 */
export function shardOfTerm(firsts: readonly string[], term: string): number {
  return lastAtOrBefore(firsts, term)
}

/** Fetches postings shard `i` (the reader's part loader decides from where). */
export type PostingsFetcher = (shard: number) => Promise<PostingsShard>

function decodeTerms(head: LexicalHead): string[] {
  const terms: string[] = new Array(head.suffix.length)
  let previous = ''
  for (let i = 0; i < head.suffix.length; i++) {
    previous = previous.slice(0, head.prefix[i]) + head.suffix[i]
    terms[i] = previous
  }
  return terms
}

/** Index of the last entry of an ascending list at or before `value` (0 when none is). */
function lastAtOrBefore<T extends string | number>(sorted: readonly T[], value: T): number {
  let lo = 0
  let hi = sorted.length - 1
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1
    if (sorted[mid]! <= value) lo = mid
    else hi = mid - 1
  }
  return lo
}

export interface SplitLexicalIndex extends LexicalIndex {
  /** Number of distinct terms in the whole index. */
  readonly termCount: number
  /** Whether a (processed) term occurs anywhere in the docs: answered from the head, nothing fetched. */
  hasTerm(term: string): boolean
  /** Postings shards fetched so far. */
  readonly shardsLoaded: number
  /** The section a chunk belongs to: equal for the windows of one section, distinct otherwise. */
  sectionOf(ordinal: number): number
}

/**
 * The head's terms and a dictionary over them (term -> term number), made
 * once per head: readers that share one decoded head (the indexer's
 * fetch-cost sample) share its dictionary, which searches only read.
 */
const dictionaries = new WeakMap<LexicalHead, { terms: string[]; dictionary: SearchableMap<number> }>()
function dictionaryOf(head: LexicalHead): { terms: string[]; dictionary: SearchableMap<number> } {
  let made = dictionaries.get(head)
  if (!made) {
    const terms = decodeTerms(head)
    const dictionary = new SearchableMap<number>()
    terms.forEach((term, t) => dictionary.set(term, t))
    dictionaries.set(head, (made = { terms, dictionary }))
  }
  return made
}

/** A reader over a split index: the head in memory, postings fetched per query and kept. */
export function openSplitLexicalIndex(head: LexicalHead, settings: LexicalSettings, fetchShard: PostingsFetcher): SplitLexicalIndex {
  if (head.encoding !== LEXICAL_SPLIT_ENCODING) {
    throw new Error(`unknown lexical index encoding "${String(head.encoding)}"; rebuild the index with this docpilot version`)
  }
  const { terms, dictionary } = dictionaryOf(head)
  const index = new PostingsIndex(head, settings)
  const section = new Int32Array(head.documentCount)
  let ordinal = 0
  head.sections.forEach((run, s) => section.fill(s, ordinal, (ordinal += run)))
  const searcher = lexicalSearcher(index, settings)
  const loaded = new Map<number, Promise<void>>()

  function load(shard: number): Promise<void> {
    let p = loaded.get(shard)
    if (!p) {
      p = fetchShard(shard).then((rows) => {
        const first = head.shardStarts[shard]!
        const end = head.shardStarts[shard + 1] ?? terms.length
        if (rows.length !== end - first) throw new Error(`postings shard ${shard} holds ${rows.length} terms; the head expects ${end - first}`)
        rows.forEach((row, i) => index.addPostings(terms[first + i]!, decodeRow(row)))
      })
      // A failed fetch is not remembered: the next query tries again.
      p.catch(() => loaded.delete(shard))
      loaded.set(shard, p)
    }
    return p
  }

  // A query term's shards, worked out once: a warm query repeats no dictionary walk.
  const shardsOfTerm = new Map<string, number[]>()
  /** The shards holding every dictionary term the full index would consult for this query term. */
  function shardsFor(term: string): number[] {
    let shards = shardsOfTerm.get(term)
    if (!shards) {
      const needed = new Set<number>()
      const exact = dictionary.get(term)
      if (exact !== undefined) needed.add(exact)
      const { prefix, fuzzy } = termExpansion(term, settings)
      if (prefix) for (const [, t] of dictionary.atPrefix(term)) needed.add(t)
      if (fuzzy) for (const [t] of dictionary.fuzzyGet(term, fuzzy).values()) needed.add(t)
      shards = [...new Set([...needed].map((t) => lastAtOrBefore(head.shardStarts, t)))]
      shardsOfTerm.set(term, shards)
    }
    return shards
  }

  return {
    settings,
    termCount: terms.length,
    get shardsLoaded() {
      return loaded.size
    },
    queryTerms: searcher.queryTerms,
    hasTerm: (term) => dictionary.has(term),
    sectionOf: (o) => section[o]!,
    async search(query: string, limit: number): Promise<LexicalHit[]> {
      const queryTerms = searcher.queryTerms(query)
      if (!queryTerms.length) return []
      await Promise.all([...new Set(queryTerms.flatMap(shardsFor))].map(load))
      return searcher.search(query, limit, queryTerms)
    },
  }
}
