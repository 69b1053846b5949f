/**
 * The first-question cost (fetch-cost.ts) kept between runs. Measuring it
 * runs ten sample readers over the new index, the largest share of a
 * re-index's CPU once the parts are patched (astro: ~0.15-0.2 s). A re-index
 * after a few pages changed reports the last measurement instead, marked as
 * made at an earlier build with how many pages changed since (never as a
 * fresh one). It is measured afresh when the sample questions changed, when
 * anything in the manifest that decides what a reader fetches changed (the
 * embedder, lexical and retrieval settings, which parts there are, the text
 * shard size), or once more than MAX_CHANGED_SHARE of the pages changed since
 * it was made.
 */
import { readFile } from 'node:fs/promises'
import type { Manifest } from '../core/index/format.ts'
import { cacheFile, replaceFile } from './cache-file.ts'
import type { FetchCost } from './fetch-cost.ts'

/** Bumped when what is measured, or how, changes. */
const FORMAT = 1

/** Pages changed since the measurement (added, removed or edited), as a share of the pages, over which it is made again. */
export const MAX_CHANGED_SHARE = 0.05

interface Memo {
  /** What the measurement depends on besides the pages (readerShape). */
  shape: string
  questions: string[]
  cost: FetchCost
  /** The page ids (PageCache.pageId) of the pages measured. */
  pages: Record<string, string>
}

/** The manifest without what changes with the pages' content: names of parts, corpus, panel suggestions, chat. */
function readerShape(manifest: Manifest): string {
  const { embedder, lexical, retrieval, format, docpilot, parts } = manifest
  const per = typeof parts.texts === 'object' ? parts.texts.per : undefined
  return JSON.stringify({ format, docpilot, embedder, lexical, retrieval, parts: Object.keys(parts), per })
}

export interface FirstQuestionInput {
  cacheDir: string
  /** The index folder the measurement is of. */
  scope: string
  manifest: Manifest
  questions: readonly string[]
  /** Each indexed page's id (undefined: a page the page cache did not keep, counted as changed). */
  pages: ReadonlyMap<string, string | undefined>
  measure: () => Promise<FetchCost>
}

/** The last measurement when it still describes this index closely enough (see above), else a fresh one, kept for the next run. */
export async function firstQuestionCost(input: FirstQuestionInput): Promise<FetchCost> {
  const file = cacheFile(input.cacheDir, 'fetch-cost', JSON.stringify([FORMAT, input.scope]), '.json')
  const shape = readerShape(input.manifest)
  const memo = await readMemo(file)
  if (memo && memo.shape === shape && sameList(memo.questions, input.questions)) {
    const changed = pagesChanged(memo.pages, input.pages)
    if (changed <= input.pages.size * MAX_CHANGED_SHARE) return { ...memo.cost, earlier: { pagesChanged: changed } }
  }
  const cost = await input.measure()
  const pages: Record<string, string> = {}
  for (const [path, id] of input.pages) if (id !== undefined) pages[path] = id
  await replaceFile(file, JSON.stringify({ shape, questions: [...input.questions], cost, pages } satisfies Memo))
  return cost
}

async function readMemo(file: string): Promise<Memo | undefined> {
  const raw = await readFile(file, 'utf8').catch(() => null)
  if (!raw) return undefined
  try {
    const memo = JSON.parse(raw) as Partial<Memo>
    return typeof memo.shape === 'string' && Array.isArray(memo.questions) && memo.cost && memo.pages ? (memo as Memo) : undefined
  } catch {
    // A damaged memo only means measuring again.
    return undefined
  }
}

const sameList = (a: readonly string[], b: readonly string[]) => a.length === b.length && a.every((x, i) => x === b[i])

/** Pages added, removed or changed (another id, or none) between the measured pages and these. */
function pagesChanged(measured: Record<string, string>, now: ReadonlyMap<string, string | undefined>): number {
  let changed = 0
  for (const [path, id] of now) if (id === undefined || !Object.hasOwn(measured, path) || measured[path] !== id) changed++
  for (const path of Object.keys(measured)) if (!now.has(path)) changed++
  return changed
}
