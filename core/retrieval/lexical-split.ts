/**
 * The lexical index read by term: a question fetches the head once and then
 * only the postings shards of its own terms (the parts and their encoder:
 * core/index/postings.ts).
 *
 * A reader expands each query term against the head's dictionary exactly as
 * minisearch does (the term, its prefix matches, its fuzzy matches), fetches
 * the shards holding those terms into a minisearch index that holds every
 * document's statistics, and runs the unchanged minisearch search: it
 * consults exactly the postings the whole index would, so scores are those
 * of the whole index.
 */
import SearchableMap from 'minisearch/SearchableMap'
import { decodeRow, decodeTerms, lastAtOrBefore, LEXICAL_SPLIT_ENCODING, type LexicalHead, type PostingsShard } from '../index/postings.ts'
import { documentTables, lexicalSearcher, PostingsIndex, termExpansion, type DocumentTables, type LexicalHit, type LexicalIndex, type LexicalSettings } from './lexical.ts'

/** Fetches postings shard `i` (the reader's part loader decides from where). */
export type PostingsFetcher = (shard: number) => Promise<PostingsShard>

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

interface HeadTables {
  terms: string[]
  dictionary: SearchableMap<number>
  documents: DocumentTables
}

/**
 * The head's terms, a dictionary over them (term -> term number) and the
 * per-document tables of minisearch, made once per head: readers that share
 * one decoded head (the indexer's fetch-cost sample) share them, and
 * searches only read them.
 */
const tablesOfHead = new WeakMap<LexicalHead, HeadTables>()
function headTables(head: LexicalHead): HeadTables {
  let made = tablesOfHead.get(head)
  if (!made) {
    const terms = decodeTerms(head)
    const dictionary = new SearchableMap<number>()
    terms.forEach((term, t) => dictionary.set(term, t))
    tablesOfHead.set(head, (made = { terms, dictionary, documents: documentTables(head) }))
  }
  return made
}

/** A reader over a split index: the head in memory, postings fetched per query and kept. */
export function openSplitLexicalIndex(head: LexicalHead, settings: LexicalSettings, fetchShard: PostingsFetcher): SplitLexicalIndex {
  if (head.encoding !== LEXICAL_SPLIT_ENCODING) {
    throw new Error(`unknown lexical index encoding "${String(head.encoding)}"; rebuild the index with this docpilot version`)
  }
  const { terms, dictionary, documents } = headTables(head)
  const index = new PostingsIndex(head, settings, documents)
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
