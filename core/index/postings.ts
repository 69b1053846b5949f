/**
 * The lexical index's parts, split by term so a question fetches only the
 * postings of its own terms (the way Pagefind splits its index; the reader:
 * core/retrieval/lexical-split.ts):
 *
 * - the head, fetched once: every term (sorted, front-coded), per-document
 *   field lengths and the averages BM25 needs, and where each postings
 *   shard starts;
 * - postings shards: consecutive runs of the sorted terms, each about
 *   `shardBytes` of JSON, so a term and its prefix matches mostly share one.
 */
import type { AsPlainObject } from 'minisearch'
import type { CountedLexicalIndex } from '../retrieval/lexical.ts'

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

/** One term's row from its postings per field (minisearch's form, or countLexicalPostings' [doc, frequency, ...] ascending). */
export function encodeRow(byField: Record<string, Record<string, number>> | Array<number[] | undefined>, fields: number): PostingRow {
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

/** A postings row back to document -> frequency per field. */
export function decodeRow(row: PostingRow): Map<number, Map<number, number>> {
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

export interface SplitLexicalIndex {
  head: LexicalHead
  shards: PostingsShard[]
  /** Each shard as JSON.stringify gives it. */
  shardJsons: string[]
  /** The first term of each shard. */
  firsts: string[]
  /** Each term's row length as JSON, in the head's term order: what sizes the shards (packShards). */
  rowBytes: number[]
}

/**
 * Where each postings shard starts, from the terms' row lengths as JSON: a
 * shard takes terms until it holds `shardBytes` (rows plus their commas).
 */
export function packShards(rowBytes: ArrayLike<number>, shardBytes: number): number[] {
  const starts: number[] = []
  let size = Infinity
  for (let t = 0; t < rowBytes.length; t++) {
    if (size >= shardBytes) {
      starts.push(t)
      size = 0
    }
    size += rowBytes[t]! + 1
  }
  return starts
}

/** Front coding of sorted terms (LexicalHead's prefix and suffix). */
export function frontCode(terms: readonly string[]): { prefix: number[]; suffix: string[] } {
  const prefix: number[] = new Array(terms.length)
  const suffix: string[] = new Array(terms.length)
  let previous = ''
  for (let t = 0; t < terms.length; t++) {
    const term = terms[t]!
    prefix[t] = sharedPrefix(previous, term)
    suffix[t] = term.slice(prefix[t])
    previous = term
  }
  return { prefix, suffix }
}

/** How many leading characters `term` shares with `previous`: its prefix in the front coding. */
export function sharedPrefix(previous: string, term: string): number {
  let p = 0
  while (p < previous.length && p < term.length && previous[p] === term[p]) p++
  return p
}

/** The order of the head's terms: code-point order, the same on every machine, and what prefix ranges need. */
export const compareTerms = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

/**
 * Splits an index (minisearch's serialized form, or countLexicalPostings') into its head and postings shards
 * (and each shard as JSON, what JSON.stringify gives). Pure: same index, same parts.
 * `sections`: sectionRuns() of the indexed chunks.
 */
export function splitLexicalIndex(
  js: AsPlainObject | CountedLexicalIndex,
  sections: number[],
  shardBytes = DEFAULT_POSTINGS_SHARD_BYTES,
): SplitLexicalIndex {
  const n = js.documentCount
  if (sections.reduce((a, b) => a + b, 0) !== n) throw new Error(`section runs cover ${sections.reduce((a, b) => a + b, 0)} chunks; the index has ${n}`)
  const fields = Object.keys(js.fieldIds).length
  const fieldLength: number[][] = Array.from({ length: fields }, () => new Array<number>(n))
  for (let doc = 0; doc < n; doc++) {
    if (js.documentIds[doc] !== doc) throw new Error('lexical index documents must be numbered 0..n-1 in order')
    const lengths = js.fieldLength[doc]!
    for (let f = 0; f < fields; f++) fieldLength[f]![doc] = lengths[f] ?? 0
  }
  const entries = [...js.index].sort((a, b) => compareTerms(a[0], b[0]))
  const { prefix, suffix } = frontCode(entries.map((e) => e[0]))
  const rows: PostingRow[] = new Array(entries.length)
  const rowJsons: string[] = new Array(entries.length)
  const rowBytes: number[] = new Array(entries.length)
  entries.forEach(([, byField], t) => {
    const row = encodeRow(byField, fields)
    rows[t] = row
    rowJsons[t] = JSON.stringify(row)
    rowBytes[t] = rowJsons[t]!.length
  })
  const shardStarts = packShards(rowBytes, shardBytes)
  const ends = [...shardStarts.slice(1), entries.length]
  return {
    head: { encoding: LEXICAL_SPLIT_ENCODING, documentCount: n, averageFieldLength: js.averageFieldLength, fieldLength, prefix, suffix, shardStarts, sections },
    shards: shardStarts.map((start, i) => rows.slice(start, ends[i])),
    shardJsons: shardStarts.map((start, i) => `[${rowJsons.slice(start, ends[i]).join(',')}]`),
    firsts: shardStarts.map((t) => entries[t]![0]),
    rowBytes,
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

/** The head's terms, front coding undone. */
export function decodeTerms(head: LexicalHead): string[] {
  const terms: string[] = new Array(head.suffix.length)
  let previous = ''
  for (let i = 0; i < head.suffix.length; i++) {
    previous = previous.slice(0, head.prefix[i]) + head.suffix[i]
    terms[i] = previous
  }
  return terms
}

/** Index of the last entry of an ascending list at or before `value` (0 when none is). */
export function lastAtOrBefore<T extends string | number>(sorted: readonly T[], value: T): number {
  let lo = 0
  let hi = sorted.length - 1
  while (lo < hi) {
    const mid = (lo + hi + 1) >> 1
    if (sorted[mid]! <= value) lo = mid
    else hi = mid - 1
  }
  return lo
}
