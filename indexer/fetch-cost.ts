/**
 * What a reader's browser downloads to answer a first question on a cold
 * visit, measured rather than estimated: the reader's own search (the code
 * the worker runs) over the index folder, through a loader that records
 * every part it reads. One fresh reader per question, so no fetch is shared
 * between questions, as on a first visit (only the files are read from disk
 * once for all of them, and decoded once: the readers share decoded parts
 * and what is made from them, which they only read, while each reader's
 * reads are counted as it asks). Sizes are what a static host
 * sends: parts stored gzipped count as stored, manifest.json gzipped.
 * `docpilot index` prints this; bench/ measures the same in Chromium.
 */
import { gunzipSync } from 'node:zlib'
import { MANIFEST_FILE, partOfModel, type ChunkRecord, type Manifest } from '../core/index/format.ts'
import { countingLoader, sharedPartsLoader, type PartLoader } from '../core/index/parts.ts'
import { openIndex } from '../core/retrieval/search.ts'
import { median } from '../core/stats.ts'
import { fsPartLoaderSync } from './fs-parts.ts'
import { gzip } from './write.ts'

export type PartKind = 'manifest' | 'lexical' | 'postings' | 'vectors' | 'model' | 'texts'

export interface QuestionCost {
  question: string
  bytes: number
  requests: number
  byKind: Partial<Record<PartKind, number>>
}

export interface FetchCost {
  questions: QuestionCost[]
  /** Median and largest total over the questions. */
  median: number
  max: number
  /** Median per kind of part. */
  byKind: Partial<Record<PartKind, number>>
  /** Present when these figures were measured at an earlier build of this index (fetch-cost-memo.ts), not on the one just written. */
  earlier?: { pagesChanged: number }
}

function kindOf(name: string, manifest: Manifest, modelParts: (name: string) => boolean): PartKind {
  if (name === MANIFEST_FILE) return 'manifest'
  if (modelParts(name)) return 'model'
  const { postings, texts, codes, vectors } = manifest.parts
  if (name.startsWith(`${postings.dir}/`)) return 'postings'
  if (name.startsWith(`${texts.dir}/`)) return 'texts'
  if (name === vectors || name === codes) return 'vectors'
  return 'lexical'
}

/**
 * Bytes and parts a fresh reader fetches for each question (k results,
 * hybrid when the index has vectors), over an index folder or a loader of
 * its parts as stored (writeIndex's).
 */
export async function coldFetchCost(index: string | PartLoader, questions: readonly string[], k = 8, opts: { lexicalOnly?: boolean } = {}): Promise<FetchCost> {
  const costs: QuestionCost[] = []
  const files = sharedPartsLoader(typeof index === 'string' ? fsPartLoaderSync(index) : index, (gz) => gunzipSync(gz))
  let servedManifest: number | undefined
  for (const question of questions) {
    const loader = countingLoader(files)
    const reader = await openIndex(loader, { log: () => {}, warm: !opts.lexicalOnly })
    await reader.search(question, { k, ...(opts.lexicalOnly ? { lexicalOnly: true } : {}) })
    // Reads the search started without waiting (the texts of its best lexical hits) are downloaded too.
    await loader.settled()
    const isModel = partOfModel(reader.manifest.embedder)
    const byKind: QuestionCost['byKind'] = {}
    let bytes = 0
    for (const [read, size] of loader.reads) {
      // A range read is named `part#start-end`: it belongs to its part.
      const name = read.split('#')[0]!
      const served = name === MANIFEST_FILE ? (servedManifest ??= gzip(await files.bytes(name)).length) : size
      const kind = kindOf(name, reader.manifest, isModel)
      byKind[kind] = (byKind[kind] ?? 0) + served
      bytes += served
    }
    costs.push({ question, bytes, requests: loader.reads.size, byKind })
  }
  const kinds = new Set(costs.flatMap((c) => Object.keys(c.byKind) as PartKind[]))
  return {
    questions: costs,
    median: median(costs.map((c) => c.bytes)),
    max: Math.max(0, ...costs.map((c) => c.bytes)),
    byKind: Object.fromEntries([...kinds].map((kind) => [kind, median(costs.map((c) => c.byKind[kind] ?? 0))])),
  }
}

/**
 * Questions to measure an index with when no reader's questions are at hand:
 * section headings spread evenly through the docs (the words readers search
 * for), at most `count` of them, deterministic. Docs whose headings hold no
 * word ("Go", "v2") are asked their passages' first words instead.
 */
export function sampleQuestions(chunks: readonly ChunkRecord[], count = 10): string[] {
  const wordy = (text: string) => /\p{L}{3}/u.test(text)
  let questions = [...new Set(chunks.map((c) => c.trail.at(-1) ?? c.title).filter(wordy))]
  if (questions.length === 0) questions = [...new Set(chunks.map((c) => c.text.split(/\s+/).slice(0, 8).join(' ')).filter(wordy))]
  if (questions.length <= count) return questions
  return Array.from({ length: count }, (_, i) => questions[Math.floor(((i + 0.5) * questions.length) / count)]!)
}
