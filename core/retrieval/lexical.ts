/**
 * The BM25 channel: one set of settings, one tokenizer, used by the indexer
 * to build and by every reader (browser, CLI, Worker) to search. The settings
 * travel in the manifest, so a reader searches the way the index was built
 * even when this file's defaults change later.
 */
import MiniSearch, { type AsPlainObject, type SearchResult as MiniResult } from 'minisearch'
import { stemmer } from 'stemmer'
import type { ChunkRecord } from '../index-format.ts'

/** Fields BM25 covers, in the order minisearch numbers them. */
export const LEXICAL_FIELDS = ['text', 'title', 'trail', 'path', 'anchor'] as const
export type LexicalField = (typeof LEXICAL_FIELDS)[number]

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

// Letters and digits of any script; everything else separates words.
const WORD = /[\p{L}\p{N}]+/gu
const CAMEL_PARTS = /\p{Lu}+(?!\p{Ll})|\p{Lu}?\p{Ll}+|\p{N}+/gu

function tokenize(text: string): string[] {
  return text.match(WORD) ?? []
}

/**
 * One written word to its index terms: `getSignedCookie` yields the whole
 * identifier and its parts, so both an API name and the plain words it is
 * made of find the passage.
 */
function termProcessor(settings: LexicalSettings): (word: string) => string[] | null {
  const stop = new Set(settings.stopWords)
  const stem = settings.stemming === 'porter' ? stemmer : (w: string) => w
  return (word) => {
    const parts = word.match(CAMEL_PARTS) ?? []
    const words = parts.length > 1 ? [word, ...parts] : [word]
    const terms = new Set<string>()
    for (const w of words) {
      const lower = w.toLowerCase()
      if (lower.length < 2 || stop.has(lower)) continue
      terms.add(stem(lower))
    }
    return terms.size ? [...terms] : null
  }
}

/** A chunk as the lexical index sees it: its position in the index is its id. */
function fieldValue(chunk: ChunkRecord, field: LexicalField): string {
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

function miniSearchOptions(settings: LexicalSettings, chunks?: readonly ChunkRecord[]) {
  if (settings.tokenizer !== TOKENIZER) {
    throw new Error(`This index uses tokenizer "${settings.tokenizer}"; this docpilot knows "${TOKENIZER}". Rebuild the index with this version.`)
  }
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
  /** Share of the query's distinct terms the chunk matched (0..1). */
  coverage: number
}

export interface LexicalIndex {
  settings: LexicalSettings
  search(query: string, limit: number): LexicalHit[]
  /** Distinct query terms after tokenizing, stop words and stemming. */
  queryTerms(query: string): string[]
  /** The compact stored form (see LexicalPart). */
  toJSON(): LexicalPart
}

/**
 * The stored lexical index: minisearch's own JSON, re-encoded about half
 * the size (after gzip). Documents are numbered 0..n-1 (chunk order), so
 * document id maps disappear; each term lists, per field, the ascending
 * document numbers as gaps, and their term frequencies only when some
 * frequency is not 1. A field the term does not occur in is 0.
 */
export interface LexicalPart {
  encoding: 'docpilot-postings-v1'
  averageFieldLength: number[]
  /** Per document, the length of each field in terms. */
  fieldLength: number[][]
  terms: string[]
  postings: Array<Array<0 | number[] | [gaps: number[], freqs: number[]]>>
}

function encodePart(js: AsPlainObject): LexicalPart {
  const n = js.documentCount
  const fieldLength: number[][] = []
  for (let i = 0; i < n; i++) {
    if (js.documentIds[i] !== i) throw new Error('lexical index documents must be numbered 0..n-1 in order')
    fieldLength.push(js.fieldLength[i]!)
  }
  const fields = Object.keys(js.fieldIds).length
  const terms: string[] = []
  const postings: LexicalPart['postings'] = []
  for (const [term, byField] of js.index) {
    terms.push(term)
    const row: LexicalPart['postings'][number] = []
    for (let f = 0; f < fields; f++) {
      const docs = byField[f] as Record<string, number> | undefined
      if (!docs) {
        row.push(0)
        continue
      }
      const ids = Object.keys(docs).map(Number).sort((a, b) => a - b)
      const gaps = ids.map((id, i) => id - (i ? ids[i - 1]! : 0))
      const freqs = ids.map((id) => docs[id]!)
      row.push(freqs.every((x) => x === 1) ? gaps : [gaps, freqs])
    }
    while (row.at(-1) === 0) row.pop()
    postings.push(row)
  }
  return { encoding: 'docpilot-postings-v1', averageFieldLength: js.averageFieldLength, fieldLength, terms, postings }
}

function decodePart(part: LexicalPart, fields: readonly string[]): AsPlainObject {
  if (part.encoding !== 'docpilot-postings-v1') throw new Error(`unknown lexical index encoding "${String(part.encoding)}"`)
  const n = part.fieldLength.length
  const documentIds: Record<string, number> = {}
  const fieldLength: Record<string, number[]> = {}
  for (let i = 0; i < n; i++) {
    documentIds[i] = i
    fieldLength[i] = part.fieldLength[i]!
  }
  const index: AsPlainObject['index'] = part.terms.map((term, t) => {
    const byField: Record<string, Record<string, number>> = {}
    part.postings[t]!.forEach((entry, f) => {
      if (entry === 0) return
      const [gaps, freqs] = Array.isArray(entry[0]) ? (entry as [number[], number[]]) : [entry as number[], undefined]
      const docs: Record<string, number> = {}
      let id = 0
      gaps.forEach((gap, i) => {
        id += gap
        docs[id] = freqs ? freqs[i]! : 1
      })
      byField[f] = docs
    })
    return [term, byField]
  })
  return {
    documentCount: n,
    nextId: n,
    documentIds,
    fieldIds: Object.fromEntries(fields.map((f, i) => [f, i])),
    fieldLength,
    averageFieldLength: part.averageFieldLength,
    storedFields: {},
    dirtCount: 0,
    index,
    serializationVersion: 2,
  }
}

function wrap(mini: MiniSearch<{ id: number }>, settings: LexicalSettings): LexicalIndex {
  const process = termProcessor(settings)
  const queryTerms = (query: string) => [...new Set(tokenize(query).flatMap((w) => process(w) ?? []))]
  return {
    settings,
    queryTerms,
    toJSON: () => encodePart(mini.toJSON()),
    search(query, limit) {
      const terms = queryTerms(query)
      if (!terms.length) return []
      // Query terms are already processed; minisearch must not process them again.
      const hits: MiniResult[] = mini.search(terms.join(' '), {
        tokenize: (q) => q.split(' '),
        processTerm: (t) => t,
        boost: settings.boost,
        bm25: settings.bm25,
        weights: settings.weights,
        combineWith: 'OR',
        prefix: (t) => t.length >= settings.prefixMinLength,
        fuzzy: (t) => (t.length >= settings.fuzzyMinLength ? settings.fuzzy : false),
        maxFuzzy: settings.maxFuzzy,
      })
      return hits.slice(0, limit).map((h) => ({
        ordinal: h.id as number,
        score: h.score,
        coverage: h.queryTerms.length / terms.length,
      }))
    },
  }
}

export function buildLexicalIndex(chunks: readonly ChunkRecord[], settings: LexicalSettings = DEFAULT_LEXICAL_SETTINGS): LexicalIndex {
  const mini = new MiniSearch<{ id: number }>(miniSearchOptions(settings, chunks))
  mini.addAll(chunks.map((_, id) => ({ id })))
  return wrap(mini, settings)
}

/** Loads an index stored by `toJSON`, with the settings recorded beside it. */
export function loadLexicalIndex(part: LexicalPart, settings: LexicalSettings): LexicalIndex {
  const mini = MiniSearch.loadJS<{ id: number }>(decodePart(part, settings.fields), miniSearchOptions(settings))
  return wrap(mini, settings)
}
