/**
 * One page's parse, as the parse workers run it: source text in, a ParsedPage
 * or the reason it was skipped out. Plain data both ways, so it can cross a
 * thread boundary.
 */
import { parseHtmlPage } from './sources/html.ts'
import { parseMarkdown } from './sources/markdown.ts'
import { markdownNesting, NestingLimitError } from './sources/nesting.ts'
import type { ParsedPage } from './sources/page.ts'

export interface ParseJob {
  file: string
  source: string
  mode: 'source' | 'site'
  contentSelector?: string
  maxNesting: number
  /** Also cut the page's clean Markdown copy from the parsed tree (the agent files). */
  copy?: boolean
}

/** `transient`: the page was not refused for what it holds (its parse ran out of time, or its thread died), so a later run tries it again. */
export type ParseOutcome = { ok: true; page: ParsedPage } | { ok: false; reason: string; transient?: true }

export function parseFile(job: ParseJob): ParseOutcome {
  try {
    return { ok: true, page: parse(job) }
  } catch (error) {
    if (error instanceof NestingLimitError) return { ok: false, reason: error.message }
    return { ok: false, reason: `could not be parsed (${(error as Error).message.split('\n')[0]}); skipped` }
  }
}

function parse({ file, source, mode, contentSelector, maxNesting, copy }: ParseJob): ParsedPage {
  if (mode === 'site') return parseHtmlPage(source, contentSelector, maxNesting)
  // Before the parse: the tokenizer recurses once per level of nesting.
  const depth = markdownNesting(source)
  if (depth > maxNesting) throw new NestingLimitError(depth, maxNesting)
  return parseMarkdown(source, { mdx: /\.mdx$/i.test(file), copy })
}
