/**
 * One page's parse, as both parsers run it (the parse thread, parse-pool.ts,
 * and this thread, parse-here.ts): source text in, a ParsedPage or the reason
 * it was skipped out. Plain data both ways, so it can cross a thread boundary.
 *
 * Each kind of source's parser is loaded on first use: a docs folder never
 * needs the HTML parser and CSS selectors of a built site, and a re-index with
 * nothing to parse loads neither.
 */
import { HtmlParserNeeded } from './sources/html-text.ts'
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

/**
 * `transient`: the page was not refused for what it holds (its parse ran out of time, or its thread died), so a
 * later run tries it again. `threw`: the parser failed rather than a limit refusing the page, which may depend on
 * the thread it ran on (the main thread's stack is a quarter of the parse thread's: deep HTML overflows it).
 */
export type ParseOutcome = { ok: true; page: ParsedPage } | { ok: false; reason: string; transient?: true; threw?: true }

export type FileParser = (job: ParseJob) => ParseOutcome

type PageParser = (job: ParseJob) => ParsedPage

const loaders: Record<ParseJob['mode'], () => Promise<PageParser>> = {
  async source() {
    const { parseMarkdown } = await import('./sources/markdown.ts')
    return ({ file, source, maxNesting, copy }) => {
      // Before the parse: the tokenizer recurses once per level of nesting.
      const depth = markdownNesting(source)
      if (depth > maxNesting) throw new NestingLimitError(depth, maxNesting)
      return parseMarkdown(source, { mdx: /\.mdx$/i.test(file), copy })
    }
  },
  async site() {
    const { parseHtmlPage } = await import('./sources/html.ts')
    return ({ source, contentSelector, maxNesting }) => parseHtmlPage(source, contentSelector, maxNesting)
  },
}

const loaded = new Map<ParseJob['mode'], Promise<FileParser>>()

/** The parser of one kind of source (loaded once per thread). */
export function fileParser(mode: ParseJob['mode']): Promise<FileParser> {
  let parser = loaded.get(mode)
  if (!parser) loaded.set(mode, (parser = loaders[mode]().then(outcomeOf)))
  return parser
}

function outcomeOf(parse: PageParser): FileParser {
  return (job) => {
    try {
      return { ok: true, page: parse(job) }
    } catch (error) {
      // Not the page's fault: the caller loads the HTML parser and parses the page again.
      if (error instanceof HtmlParserNeeded) throw error
      if (error instanceof NestingLimitError) return { ok: false, reason: error.message }
      return { ok: false, reason: `could not be parsed (${(error as Error).message.split('\n')[0]}); skipped`, threw: true }
    }
  }
}
