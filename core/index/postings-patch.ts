/**
 * A split lexical index (postings.ts) brought up to date after some
 * documents changed in place (same documents, same numbering): what
 * splitLexicalIndex would give for the new counts, made from the previous
 * split without counting or encoding the unchanged documents again. Only the
 * rows of terms whose frequency in a changed document differs are made anew,
 * and only the shards that hold one of them (or whose bounds moved) are
 * written out; every other shard is the previous one, named by its number.
 *
 * A document added, removed or moved renumbers every later one, which
 * changes nearly every row: that is a full split, not a patch.
 */
import { runningAverage, type ChunkTerms } from '../retrieval/lexical.ts'
import { compareTerms, encodeRow, LEXICAL_SPLIT_ENCODING, lastAtOrBefore, packShards, sharedPrefix, type LexicalHead, type PostingRow } from './postings.ts'

export interface PreviousSplit {
  head: LexicalHead
  /** The head's terms, front coding undone (decodeTerms). */
  terms: readonly string[]
  /** Each term's row length as JSON (SplitLexicalIndex.rowBytes). */
  rowBytes: readonly number[]
  /** Previous shard `i` as JSON, as splitLexicalIndex wrote it: its rows' JSON joined by commas, in brackets. */
  shardJson(i: number): string
}

/** A previous shard whose JSON is not its rows' lengths (SplitLexicalIndex.rowBytes) joined: the split and its lengths disagree. */
export class ShardMismatch extends Error {
  override name = 'ShardMismatch'
}

/** One document's counts before and after its change. */
export interface DocumentChange {
  doc: number
  before: ChunkTerms
  after: ChunkTerms
}

export interface PatchedSplit {
  head: LexicalHead
  /** Per shard: its JSON, or the number of the previous shard it is byte for byte. */
  shards: Array<{ json: string } | { previous: number }>
  firsts: string[]
  rowBytes: number[]
}

/** term -> the (field, document, new frequency; 0: gone) edits of its postings. */
type Edits = Map<string, Array<[field: number, doc: number, frequency: number]>>

/** The postings that differ between each document's counts before and after. */
function postingEdits(changes: readonly DocumentChange[], fields: number): Edits {
  const edits: Edits = new Map()
  const edit = (term: string, f: number, doc: number, frequency: number) => {
    let list = edits.get(term)
    if (!list) edits.set(term, (list = []))
    list.push([f, doc, frequency])
  }
  for (const { doc, before, after } of changes) {
    for (let f = 0; f < fields; f++) {
      const was = new Map<string, number>()
      before.terms[f]!.forEach((term, i) => was.set(term, before.counts[f]![i]!))
      after.terms[f]!.forEach((term, i) => {
        const frequency = after.counts[f]![i]!
        if (was.get(term) !== frequency) edit(term, f, doc, frequency)
        was.delete(term)
      })
      for (const term of was.keys()) edit(term, f, doc, 0)
    }
  }
  return edits
}

/** A term's row with its edits applied; undefined when no document holds the term any more. */
function editedRow(previous: PostingRow | undefined, edits: Edits extends Map<string, infer E> ? E : never, fields: number): PostingRow | undefined {
  const counted: Array<number[] | undefined> = []
  let any = false
  for (let f = 0; f < fields; f++) {
    const postings = fieldPostings(previous?.[f])
    for (const [field, doc, frequency] of edits) if (field === f) setPosting(postings, doc, frequency)
    if (!postings.length) continue
    counted[f] = postings
    any = true
  }
  return any ? encodeRow(counted, fields) : undefined
}

/** One field's entry of a row as [doc, frequency, ...], ascending (what encodeRow takes). */
function fieldPostings(entry: PostingRow[number] | undefined): number[] {
  if (!entry) return []
  const [gaps, freqs] = Array.isArray(entry[0]) ? (entry as [number[], number[]]) : [entry as number[], undefined]
  const postings: number[] = new Array(2 * gaps.length)
  let doc = 0
  for (let i = 0; i < gaps.length; i++) {
    doc += gaps[i]!
    postings[2 * i] = doc
    postings[2 * i + 1] = freqs ? freqs[i]! : 1
  }
  return postings
}

/** Sets `doc`'s frequency in ascending [doc, frequency, ...] postings (0: removes it). */
function setPosting(postings: number[], doc: number, frequency: number): void {
  let lo = 0
  let hi = postings.length / 2
  while (lo < hi) {
    const mid = (lo + hi) >> 1
    if (postings[2 * mid]! < doc) lo = mid + 1
    else hi = mid
  }
  const at = 2 * lo
  if (postings[at] === doc) {
    if (frequency) postings[at + 1] = frequency
    else postings.splice(at, 2)
  } else if (frequency) postings.splice(at, 0, doc, frequency)
}

/**
 * The split after `changes`, equal in every byte to splitLexicalIndex over
 * the new counts. `sections`: sectionRuns() of the new chunks.
 */
export function patchLexicalSplit(previous: PreviousSplit, changes: readonly DocumentChange[], sections: number[], shardBytes: number): PatchedSplit {
  const { head, terms } = previous
  const fields = head.fieldLength.length
  const starts = head.shardStarts
  const rowJson = previousRows(previous)
  const edits = postingEdits(changes, fields)
  // Each edited term's new row as JSON ('' once no document holds it), in term order.
  const edited = [...edits.keys()].sort(compareTerms).map((term): [string, string] => {
    const at = lastAtOrBefore(terms, term)
    const row = editedRow(terms[at] === term ? (JSON.parse(rowJson(at)) as PostingRow) : undefined, edits.get(term)!, fields)
    return [term, row ? JSON.stringify(row) : '']
  })

  // The new term list, merged from the previous one and the edited terms: each term's previous number (-1: edited).
  const newTerms: string[] = []
  const rowBytes: number[] = []
  const was: number[] = []
  const editedJson = new Map<number, string>()
  for (let t = 0, e = 0; t < terms.length || e < edited.length; ) {
    const order = e === edited.length ? 1 : t === terms.length ? -1 : compareTerms(edited[e]![0], terms[t]!)
    if (order > 0) {
      newTerms.push(terms[t]!)
      rowBytes.push(previous.rowBytes[t]!)
      was.push(t++)
      continue
    }
    const [term, json] = edited[e++]!
    if (order === 0) t++
    if (!json) continue
    editedJson.set(newTerms.length, json)
    newTerms.push(term)
    rowBytes.push(json.length)
    was.push(-1)
  }
  const sameTerms = newTerms.length === terms.length && newTerms.every((term, t) => term === terms[t])

  const shardStarts = packShards(rowBytes, shardBytes)
  const shards = shardStarts.map((start, i): PatchedSplit['shards'][number] => {
    const end = shardStarts[i + 1] ?? newTerms.length
    // The previous shard holding exactly these terms, none of them edited.
    const first = was[start]!
    const k = first >= 0 ? lastAtOrBefore(starts, first) : -1
    const kEnd = starts[k + 1] ?? terms.length
    if (k >= 0 && starts[k] === first && kEnd - first === end - start && was[end - 1] === kEnd - 1 && !hasEdited(editedJson, start, end)) {
      return { previous: k }
    }
    const rows: string[] = []
    for (let t = start; t < end; t++) rows.push(editedJson.get(t) ?? rowJson(was[t]!))
    return { json: `[${rows.join(',')}]` }
  })

  const fieldLength = head.fieldLength.map((lengths) => lengths.slice())
  for (const { doc, after } of changes) for (let f = 0; f < fields; f++) fieldLength[f]![doc] = after.lengths[f]!
  const { prefix, suffix } = sameTerms ? head : patchedFrontCode(head, newTerms, was)
  return {
    head: {
      encoding: LEXICAL_SPLIT_ENCODING,
      documentCount: head.documentCount,
      averageFieldLength: runningAverages(fieldLength),
      fieldLength,
      prefix,
      suffix,
      shardStarts,
      sections,
    },
    shards,
    firsts: shardStarts.map((t) => newTerms[t]!),
    rowBytes,
  }
}

/**
 * Each previous term's row as JSON, cut from its shard's JSON at the lengths
 * the split kept (rowBytes): a shard a change lands in is neither parsed nor
 * written out again row by row, only the edited rows are.
 */
function previousRows(previous: PreviousSplit): (t: number) => string {
  const starts = previous.head.shardStarts
  const cut = new Map<number, { json: string; at: number[] }>()
  return (t) => {
    const shard = lastAtOrBefore(starts, t)
    let rows = cut.get(shard)
    if (!rows) {
      const json = previous.shardJson(shard)
      // Row k of the shard starts after '[' and the k rows before it, each followed by its comma.
      const at = [1]
      for (let k = starts[shard]!; k < (starts[shard + 1] ?? previous.terms.length); k++) at.push(at.at(-1)! + previous.rowBytes[k]! + 1)
      if (json.length !== at.at(-1)! || json[0] !== '[') throw new ShardMismatch(`postings shard ${shard} is not the rows its lengths say`)
      cut.set(shard, (rows = { json, at }))
    }
    const start = rows.at[t - starts[shard]!]!
    return rows.json.slice(start, start + previous.rowBytes[t]!)
  }
}

/**
 * frontCode(terms), each term's prefix and suffix kept from the head where
 * it and the term before it are the previous ones (`was`: each term's
 * previous number, -1 for a new one): only the terms beside an added or
 * removed one are coded again.
 */
function patchedFrontCode(head: LexicalHead, terms: readonly string[], was: readonly number[]): Pick<LexicalHead, 'prefix' | 'suffix'> {
  const prefix: number[] = new Array(terms.length)
  const suffix: string[] = new Array(terms.length)
  for (let t = 0; t < terms.length; t++) {
    const before = was[t]!
    if (t === 0 ? before === 0 : before > 0 && was[t - 1] === before - 1) {
      prefix[t] = head.prefix[before]!
      suffix[t] = head.suffix[before]!
    } else {
      const term = terms[t]!
      prefix[t] = sharedPrefix(t === 0 ? '' : terms[t - 1]!, term)
      suffix[t] = term.slice(prefix[t])
    }
  }
  return { prefix, suffix }
}

function hasEdited(edited: ReadonlyMap<number, string>, start: number, end: number): boolean {
  for (const t of edited.keys()) if (t >= start && t < end) return true
  return false
}

/** Each field's average length, computed as countNumberedPostings does (a running average in document order), so every float is the same. */
function runningAverages(fieldLength: readonly number[][]): number[] {
  // No document sets no average (countNumberedPostings leaves the list empty).
  if (!fieldLength[0]?.length) return []
  return fieldLength.map((lengths) => {
    let average = 0
    for (let doc = 0; doc < lengths.length; doc++) average = runningAverage(average, doc, lengths[doc]!)
    return average
  })
}
