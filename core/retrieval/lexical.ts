/**
 * The BM25 channel: one set of settings, one tokenizer, used by the indexer
 * to build and by every reader (browser, CLI, Worker) to search. The settings
 * travel in the manifest, so a reader searches the way the index was built
 * even when this file's defaults change later.
 */
import MiniSearch, { type AsPlainObject, type SearchResult as MiniResult } from 'minisearch'
import { LEXICAL_FIELDS, type ChunkRecord, type LexicalField } from '../index/format.ts'
import { coverageOf } from './coverage.ts'
import { termProcessor, tokenize } from './terms.ts'

/** Name of the tokenizer below; a reader refuses an index built with another. */
export const TOKENIZER = 'docpilot-words-v1'

export interface LexicalSettings {
  tokenizer: typeof TOKENIZER
  /** 'porter': English Porter stemming of every term; 'none': terms as written. */
  stemming: 'porter' | 'none'
  fields: readonly LexicalField[]
  boost: Record<LexicalField, number>
  /** Dropped at index and query time (compared before stemming). */
  stopWords: string[]
  /** Query terms shorter than this never prefix-match (short prefixes match most of a corpus). */
  prefixMinLength: number
  /** Query terms shorter than this never fuzzy-match. */
  fuzzyMinLength: number
  /** Edit distance as a fraction of the term length, capped by maxFuzzy. */
  fuzzy: number
  maxFuzzy: number
  weights: { prefix: number; fuzzy: number }
  bm25: { k: number; b: number; d: number }
}

/**
 * Function words and question scaffolding. Tuned on the dev question sets:
 * these words carry no topic, and left in they let long questions match
 * every page that says "how do I". Words that change what a question asks
 * ("only", "without", "not") are kept as terms: measured on the four dev
 * files, keeping "only" and "without" lifts astro R@1 and changes nothing
 * else, while also keeping "still" and "instead" cost astro-dev R@8 .90 -> .87.
 */
const STOP_WORDS = [
  'a', 'about', 'after', 'all', 'also', 'am', 'an', 'and', 'any', 'are', 'as', 'at',
  'be', 'been', 'being', 'but', 'by', 'can', 'could', 'did', 'do', 'does', 'doing',
  'for', 'from', 'get', 'got', 'had', 'has', 'have', 'having', 'how', 'i', 'if', 'in', 'into',
  'is', 'it', 'its', 'just', 'me', 'my', 'of', 'on', 'or', 'our', 'so', 'some', 'than',
  'that', 'the', 'their', 'them', 'then', 'there', 'these', 'they', 'this', 'those', 'to',
  'up', 'us', 'was', 'we', 'were', 'what', 'when', 'where', 'which', 'while', 'who',
  'whom', 'why', 'will', 'with', 'would', 'you', 'your', 'yours', 'should', 'want',
  'need', 'way', 'still', 'instead', 'possible', 'something', 'thing',
  'things', 'make', 'making', 'tell',
]

export const DEFAULT_LEXICAL_SETTINGS: LexicalSettings = {
  tokenizer: TOKENIZER,
  stemming: 'porter',
  fields: LEXICAL_FIELDS,
  boost: { text: 1, title: 2, trail: 2.5, path: 1, anchor: 0.5 },
  stopWords: STOP_WORDS,
  prefixMinLength: 5,
  fuzzyMinLength: 7,
  fuzzy: 0.15,
  maxFuzzy: 2,
  weights: { prefix: 0.3, fuzzy: 0.2 },
  bm25: { k: 1.2, b: 0.75, d: 0.5 },
}

/**
 * The average of `count` values and one more, the way minisearch keeps its
 * average field lengths (document by document): one formula wherever they are
 * computed, so a patched index carries the same floats as a counted one.
 */
export const runningAverage = (average: number, count: number, value: number): number => (average * count + value) / (count + 1)

/** A chunk as the lexical index sees it: its position in the index is its id. */
export function fieldValue(chunk: ChunkRecord, field: LexicalField): string {
  switch (field) {
    case 'text':
      return chunk.text
    case 'title':
      return chunk.title
    // The first trail element is the page title, already its own field.
    case 'trail':
      return chunk.trail.slice(1).join(' ')
    // The file extension is the same on every page: noise, not signal.
    case 'path':
      return chunk.path.replace(/\.[a-z]+$/i, '')
    case 'anchor':
      return chunk.anchor
  }
}

function checkTokenizer(settings: LexicalSettings): void {
  if (settings.tokenizer !== TOKENIZER) {
    throw new Error(`This index uses tokenizer "${settings.tokenizer}"; this docpilot knows "${TOKENIZER}". Rebuild the index with this version.`)
  }
}

function miniSearchOptions(settings: LexicalSettings, chunks?: readonly ChunkRecord[]) {
  checkTokenizer(settings)
  return {
    fields: [...settings.fields],
    storeFields: [] as string[],
    idField: 'id',
    tokenize,
    processTerm: termProcessor(settings),
    extractField: (doc: { id: number }, field: string) =>
      field === 'id' ? doc.id : chunks ? fieldValue(chunks[doc.id]!, field as LexicalField) : '',
  }
}

export interface LexicalHit {
  /** Position of the chunk in the index. */
  ordinal: number
  score: number
  /** Share of the query's distinct terms the chunk matched, each weighted by its rarity in the docs (0..1; coverage.ts). */
  coverage: number
  /** The query terms the chunk matched. */
  terms: string[]
}

export interface LexicalIndex {
  settings: LexicalSettings
  /** Ranked hits; a split index first fetches the postings the query's terms need. */
  search(query: string, limit: number): Promise<LexicalHit[]>
  /** Distinct query terms after tokenizing, stop words and stemming. */
  queryTerms(query: string): string[]
}

/** The whole index in memory, as the indexer builds it: what gets split into parts (see core/index/postings.ts). */
export interface BuiltLexicalIndex extends LexicalIndex {
  /** minisearch's own serialization (documents numbered 0..n-1 in chunk order). */
  toPlain(): AsPlainObject
  /** The same search without a promise (nothing to fetch). */
  searchNow(query: string, limit: number): LexicalHit[]
}

/** How far a query term expands: prefix matches and fuzzy matches (edit distance), as minisearch applies them. */
export interface TermExpansion {
  prefix: boolean
  /** Maximum edit distance; 0 for none. */
  fuzzy: number
}

/** The expansion the settings give a (processed) query term; search and the split reader share it. */
export function termExpansion(term: string, settings: LexicalSettings): TermExpansion {
  const fuzzy = term.length >= settings.fuzzyMinLength ? settings.fuzzy : 0
  return {
    prefix: term.length >= settings.prefixMinLength,
    // minisearch: a fraction below 1 scales with the term length, capped by maxFuzzy.
    fuzzy: fuzzy === 0 ? 0 : fuzzy < 1 ? Math.min(settings.maxFuzzy, Math.round(term.length * fuzzy)) : fuzzy,
  }
}

/** The distinct query terms of a question under these settings (tokenized, stop words dropped, stemmed). */
export function queryTermsFor(settings: LexicalSettings): (query: string) => string[] {
  const process = termProcessor(settings)
  return (query) => [...new Set(tokenize(query).flatMap((w) => process(w) ?? []))]
}

/**
 * A searcher over a minisearch instance: the same search options for the
 * whole index and for a partial one holding the postings a query needs.
 */
export function lexicalSearcher(mini: MiniSearch<{ id: number }>, settings: LexicalSettings) {
  const queryTerms = queryTermsFor(settings)
  return {
    queryTerms,
    search(query: string, limit: number, terms = queryTerms(query)): LexicalHit[] {
      if (!terms.length) return []
      // Query terms are already processed; minisearch must not process them again.
      const hits: MiniResult[] = mini.search(terms.join(' '), {
        tokenize: (q) => q.split(' '),
        processTerm: (t) => t,
        boost: settings.boost,
        bm25: settings.bm25,
        weights: settings.weights,
        combineWith: 'OR',
        prefix: (t) => termExpansion(t, settings).prefix,
        fuzzy: (t) => (t.length >= settings.fuzzyMinLength ? settings.fuzzy : false),
        maxFuzzy: settings.maxFuzzy,
      })
      // Every hit, not only the first `limit`, gives the terms' document frequencies.
      const coverage = coverageOf(terms, hits.map((h) => h.queryTerms), mini.documentCount)
      return hits.slice(0, limit).map((h) => ({
        ordinal: h.id as number,
        score: h.score,
        coverage: coverage(h.queryTerms),
        terms: h.queryTerms,
      }))
    },
  }
}

export function buildLexicalIndex(chunks: readonly ChunkRecord[], settings: LexicalSettings = DEFAULT_LEXICAL_SETTINGS): BuiltLexicalIndex {
  const mini = new MiniSearch<{ id: number }>(miniSearchOptions(settings, chunks))
  mini.addAll(chunks.map((_, id) => ({ id })))
  const searcher = lexicalSearcher(mini, settings)
  return {
    settings,
    queryTerms: searcher.queryTerms,
    searchNow: (q, limit) => searcher.search(q, limit),
    search: async (q, limit) => searcher.search(q, limit),
    toPlain: () => mini.toJSON(),
  }
}

/** Document statistics BM25 needs for every document, whichever terms are loaded. */
export interface DocumentStats {
  documentCount: number
  averageFieldLength: number[]
  /** fieldLength[field][document] */
  fieldLength: number[][]
}

/**
 * minisearch's serialized form with each term's postings still as counted:
 * per field (minisearch's field order), document numbers and term
 * frequencies interleaved ([doc, count, doc, count, ...], ascending
 * documents), undefined where the term is absent. What the indexer splits
 * into parts; minisearch's nested objects keyed by document number cost
 * more to fill than everything else in building the index.
 */
export type CountedLexicalIndex = Omit<AsPlainObject, 'index'> & { index: Array<[term: string, byField: Array<number[] | undefined>]> }

/**
 * A chunk's share of the lexical index, per field (the settings' field
 * order): the field's length (its distinct words, as minisearch counts it)
 * and its terms with their frequencies.
 */
export interface ChunkTerms {
  lengths: number[]
  terms: string[][]
  counts: number[][]
}

/** Counts chunks' terms under these settings (tokenized, stop words dropped, stemmed), as minisearch indexes them. */
export function chunkTermCounter(settings: LexicalSettings = DEFAULT_LEXICAL_SETTINGS): (chunk: ChunkRecord) => ChunkTerms {
  checkTokenizer(settings)
  const processTerm = termProcessor(settings)
  return (chunk) => {
    const counted: ChunkTerms = { lengths: [], terms: [], counts: [] }
    settings.fields.forEach((field, f) => {
      const tokens = tokenize(fieldValue(chunk, field))
      const frequency = new Map<string, number>()
      for (const token of tokens) for (const term of processTerm(token) ?? []) frequency.set(term, (frequency.get(term) ?? 0) + 1)
      counted.lengths[f] = new Set(tokens).size
      counted.terms[f] = [...frequency.keys()]
      counted.counts[f] = [...frequency.values()]
    })
    return counted
  }
}

/**
 * The index minisearch would build over these chunks, computed directly:
 * the same tokens, terms, frequencies and field lengths, and the same
 * running average of field lengths, in the same order, so every BM25 score
 * is the same. It skips the search tree and the serialization minisearch
 * would build first. `termsOf` counts a chunk.
 */
export function countLexicalPostings(
  chunks: readonly ChunkRecord[],
  settings: LexicalSettings = DEFAULT_LEXICAL_SETTINGS,
  termsOf: (chunk: ChunkRecord) => ChunkTerms = chunkTermCounter(settings),
): CountedLexicalIndex {
  checkTokenizer(settings)
  const terms: string[] = []
  const numbers = new Map<string, number>()
  return countNumberedPostings(chunks.length, settings, terms, (doc) => {
    const counted = termsOf(chunks[doc]!)
    const run: number[] = []
    for (let f = 0; f < settings.fields.length; f++) {
      const fieldTerms = counted.terms[f]!
      run.push(counted.lengths[f]!, fieldTerms.length)
      for (let i = 0; i < fieldTerms.length; i++) {
        let t = numbers.get(fieldTerms[i]!)
        if (t === undefined) numbers.set(fieldTerms[i]!, (t = terms.push(fieldTerms[i]!) - 1))
        run.push(t, counted.counts[f]![i]!)
      }
    }
    return run
  })
}

/**
 * countLexicalPostings over counts with numbered terms, the form a cache of
 * counts keeps (indexer/lexical-cache.ts), which spares a lookup by string
 * per term of every chunk. `countsOf(doc)` gives one run of numbers per
 * chunk: per field (the settings' order) its length, its number of terms,
 * then (term number, frequency) pairs. The numbers index `terms`, read once
 * every chunk is counted (a counter may add terms as it goes).
 */
export function countNumberedPostings(
  documents: number,
  settings: LexicalSettings,
  terms: readonly string[],
  countsOf: (doc: number) => ArrayLike<number>,
): CountedLexicalIndex {
  const fields = settings.fields
  const postings: Array<Array<number[] | undefined>> = []
  // Terms in the order they first occur, as minisearch (and a Map keyed by term) would list them.
  const order: number[] = []
  const documentIds: Record<string, number> = {}
  const fieldLength: Record<string, number[]> = {}
  const averageFieldLength: number[] = []
  for (let doc = 0; doc < documents; doc++) {
    documentIds[doc] = doc
    const counts = countsOf(doc)
    const lengths: number[] = []
    let at = 0
    for (let f = 0; f < fields.length; f++) {
      const length = counts[at++]!
      const n = counts[at++]!
      lengths.push(length)
      averageFieldLength[f] = runningAverage(averageFieldLength[f] || 0, doc, length)
      for (let i = 0; i < n; i++, at += 2) {
        const term = counts[at]!
        let byField = postings[term]
        if (!byField) {
          postings[term] = byField = []
          order.push(term)
        }
        // Documents arrive in order, each term once per field: postings stay ascending.
        const docs = (byField[f] ??= [])
        docs.push(doc, counts[at + 1]!)
      }
    }
    fieldLength[doc] = lengths
  }
  return {
    documentCount: documents,
    nextId: documents,
    documentIds,
    fieldIds: Object.fromEntries(fields.map((f, i) => [f, i])),
    fieldLength,
    averageFieldLength,
    storedFields: {},
    dirtCount: 0,
    index: order.map((term) => [terms[term]!, postings[term]!]),
    serializationVersion: 2,
  }
}

/** countLexicalPostings in minisearch's own serialized form (what minisearch's toJSON gives for these chunks). */
export function buildLexicalPlain(chunks: readonly ChunkRecord[], settings: LexicalSettings = DEFAULT_LEXICAL_SETTINGS): AsPlainObject {
  const counted = countLexicalPostings(chunks, settings)
  const index: AsPlainObject['index'] = counted.index.map(([term, byField]) => {
    const plain: Record<string, Record<string, number>> = {}
    byField.forEach((docs, f) => {
      if (!docs) return
      const counts: Record<string, number> = (plain[f] = {})
      for (let i = 0; i < docs.length; i += 2) counts[docs[i]!] = docs[i + 1]!
    })
    return [term, plain]
  })
  return { ...counted, index }
}

/**
 * minisearch's per-document tables (its ids both ways, each document's field
 * lengths), as its loadJS would fill them. A search only reads them (it would
 * change them only for a discarded document, and a PostingsIndex has none),
 * so indexes over one head may share one set (lexical-split.ts).
 */
export interface DocumentTables {
  ids: Map<number, number>
  shortIds: Map<number, number>
  fieldLength: Map<number, number[]>
}

export function documentTables(stats: DocumentStats): DocumentTables {
  const tables: DocumentTables = { ids: new Map(), shortIds: new Map(), fieldLength: new Map() }
  for (let doc = 0; doc < stats.documentCount; doc++) {
    tables.ids.set(doc, doc)
    tables.shortIds.set(doc, doc)
    tables.fieldLength.set(doc, stats.fieldLength.map((lengths) => lengths[doc]!))
  }
  return tables
}

/**
 * A minisearch index that starts with the documents' statistics and no
 * terms, and receives postings as they are fetched. It searches with
 * minisearch's own code; only loading is done here, through the fields
 * minisearch leaves open to subclasses (the same ones its loadJS fills).
 */
export class PostingsIndex extends MiniSearch<{ id: number }> {
  constructor(stats: DocumentStats, settings: LexicalSettings, documents: DocumentTables = documentTables(stats)) {
    super(miniSearchOptions(settings))
    const n = stats.documentCount
    this._documentCount = n
    this._nextId = n
    this._fieldIds = Object.fromEntries(settings.fields.map((f, i) => [f, i]))
    this._avgFieldLength = stats.averageFieldLength
    this._documentIds = documents.ids
    this._idToShortId = documents.shortIds
    this._fieldLength = documents.fieldLength
  }

  /** Adds one term's postings: field number -> document number -> term frequency. */
  addPostings(term: string, byField: Map<number, Map<number, number>>): void {
    this._index.set(term, byField)
  }
}
