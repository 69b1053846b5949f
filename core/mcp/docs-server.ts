/**
 * The docs as an MCP server (official SDK), the same on every transport:
 * the proxy's Streamable HTTP route on Node and Workers, and `docpilot mcp`
 * over stdio. What differs between them (where the index and the site's
 * files come from) is a DocsSite; everything an agent sees is decided here.
 *
 * - search_docs(query, limit?): the panel's retrieval (core/retrieval/search.ts,
 *   both channels, fusion, gate) and exactly the `docpilot query` contract
 *   line, plus each passage's text;
 * - get_page(page): a page's Markdown copy, by URL or source path;
 * - resources llms.txt and llms-full.txt.
 */
import { McpServer, type CallToolResult } from '@modelcontextprotocol/server'
import * as z from 'zod'
import { toContractLine, type ContractLine } from '../eval/contract.ts'
import type { Transport } from '../ladder/attempt.ts'
import { refusalReason, type GateVerdict } from '../retrieval/gate.ts'
import { openDenseChannel } from '../retrieval/hybrid.ts'
import type { PartLoader } from '../index/parts.ts'
import { DEFAULT_K, type DocIndex, type SearchResult } from '../retrieval/search.ts'
import { LLMS_FULL_TXT, LLMS_TXT, llmsUrl, pageCopyUrls, pageUrlOf } from '../site-files.ts'

/** Where one deployment's index and site files come from. */
export interface DocsSite {
  /** The index (opened once and kept by the caller; see reopeningIndex). */
  index(): Promise<DocIndex>
  /** A file of the site output folder by the URL it is served at; undefined when there is none. */
  file(url: string): Promise<string | undefined>
  /** Where the site output folder is served (mcp.siteUrl, default urls.base). */
  siteUrl: string
  /** The absolute URI a client sees for a served URL (resources): the site's origin, or a file:// path. */
  uriOf(url: string): string
  /** A source path's page URL, by the site's path-to-URL mapping. */
  urlOfPath(path: string): string
  /**
   * The link an agent cites for a page URL of the index: absolute on the
   * site's origin where the transport knows it (HTTP). An agent in an editor
   * cannot open a root-relative link, nor tell which site it is on. Unset
   * (stdio, which knows no origin): the URL as the index has it.
   */
  citeUrl?(url: string): string
  /**
   * How this request reaches a hosted embedder (the proxy's own embeddings
   * route, as this client). Unset: the index's own reader embeds (a local
   * model, or the transport it was opened with).
   */
  embedTransport?: Transport
}

export const MAX_LIMIT = 50
const MAX_QUERY = 2000

/** A letter or a digit, in any script: what a query needs for there to be anything to search. */
const WORDY = /[\p{L}\p{N}]/u
const EXAMPLE_QUERY = '"how do I set a cookie?"'
const WHICH_PAGE = `pass a url from search_docs or ${LLMS_TXT}, or a source path; "${LLMS_TXT}" lists every page.`

/** What search_docs returns: the `docpilot query` line (without its id), each result with its text. */
export interface SearchDocsOutput extends Omit<ContractLine, 'id' | 'results' | 'gate'> {
  gate: ContractLine['gate'] & { refusedFor?: GateVerdict['refusedFor'] }
  degraded: boolean
  degradedReason?: string
  results: Array<ContractLine['results'][number] & { text: string }>
}

export function searchDocsOutput(result: SearchResult): SearchDocsOutput {
  const { id: _id, ...line } = toContractLine('', result)
  return {
    ...line,
    gate: { ...line.gate, ...(result.gate.refusedFor ? { refusedFor: result.gate.refusedFor } : {}) },
    degraded: result.degraded,
    ...(result.degradedReason !== undefined ? { degradedReason: result.degradedReason } : {}),
    results: line.results.map((r, i) => ({ ...r, text: result.results[i]!.text })),
  }
}

/** The passages as an agent reads them: the verdict first, then each passage under its heading trail and link. */
export function passagesText(out: SearchDocsOutput): string {
  const how = out.mode === 'hybrid' ? 'keyword and meaning search' : `keyword search only${out.degraded ? ` (degraded: ${out.degradedReason ?? 'the embedder was unavailable'})` : ''}`
  const verdict = out.gate.pass
    ? `The docs cover this (${how}, evidence score ${out.gate.score}).`
    : `The docs may not cover this: ${refusalReason(out.gate.refusedFor ?? 'evidence')} (${how}, evidence score ${out.gate.score}). The closest passages follow; do not present them as an answer without checking.`
  if (!out.results.length) return `${verdict}\nNo passage matches.`
  const blocks = out.results.map((r, i) => `## ${i + 1}. ${r.trail.join(' › ')}\n${r.url}\n\n${r.text.trim()}`)
  return [verdict, ...blocks].join('\n\n')
}

const PassageSchema = z.object({
  path: z.string().describe('source file of the page, relative to the docs folder'),
  anchor: z.string().describe("id of the section's heading ('' for the top of the page)"),
  url: z.string().describe('page URL with #anchor: the citation link'),
  title: z.string(),
  trail: z.array(z.string()).describe('heading trail from the page title down to the section'),
  score: z.number(),
  text: z.string().describe('the passage text'),
})

const SearchOutputSchema = z.object({
  mode: z.enum(['hybrid', 'lexical']).describe('hybrid: keyword and meaning search; lexical: keyword search only'),
  degraded: z.boolean().describe('true when meaning search failed for this question and keyword search answered alone'),
  degradedReason: z.string().optional(),
  gate: z
    .object({
      pass: z.boolean(),
      score: z.number(),
      refusedFor: z.enum(['vocabulary', 'subject', 'evidence']).optional().describe("why pass is false: the docs hardly use the question's words, it names something they do not mention, or the evidence scored low"),
    })
    .describe('pass false: the docs probably do not cover the question'),
  results: z.array(PassageSchema),
})

const noParts: PartLoader = {
  bytes: () => Promise.reject(new Error('a hosted embedder reads no model files')),
}

/**
 * One search. With a hosted embedder and a per-request transport, the
 * question is embedded for this request (the index's dense channel, with its
 * retry and time limits, but this request's route to the provider) and the
 * index, kept across requests, ranks with that vector. If embedding fails the
 * search is lexical-only and says why, as the panel's is.
 */
export async function searchIndex(index: DocIndex, query: string, k: number, embedTransport?: Transport): Promise<SearchResult> {
  if (!embedTransport || !index.dense || index.manifest.embedder.kind !== 'hosted') return index.search(query, { k })
  const own = openDenseChannel(index.manifest, noParts, { transport: embedTransport, log: () => {} })!
  const q = await own.queryVector(query)
  if ('vector' in q) return index.search(query, { k, queryVector: q.vector })
  const lexical = await index.search(query, { k, lexicalOnly: true })
  return { ...lexical, degraded: true, degradedReason: q.reason }
}

function failure(text: string): CallToolResult {
  return { isError: true, content: [{ type: 'text', text }] }
}

function message(err: unknown): string {
  return err instanceof Error ? err.message : String(err)
}

/**
 * The URL of the page a get_page argument names: a page URL, a Markdown
 * copy URL, or a source path as search_docs returns it. An absolute URL
 * keeps only its path unless the site URL itself is absolute: files are only
 * ever read from this site, whatever host the argument names.
 */
export function pageUrlFor(site: Pick<DocsSite, 'urlOfPath' | 'siteUrl' | 'citeUrl'>, page: string): string {
  const value = page.trim()
  if (/^https?:\/\//i.test(value)) {
    const url = new URL(value)
    // A link search_docs cited is on the site's origin, which need not be where the files are served (mcp.siteUrl).
    const cited = site.citeUrl !== undefined && url.origin === new URL(site.citeUrl('/')).origin
    return pageUrlOf(/^https?:\/\//i.test(site.siteUrl) && !cited ? value : url.pathname)
  }
  if (value.startsWith('/')) return pageUrlOf(value)
  return site.urlOfPath(pageUrlOf(value))
}

export function createDocsMcpServer(site: DocsSite, info: { version: string }): McpServer {
  const server = new McpServer(
    { name: 'docpilot-docs', title: 'Docs search', version: info.version },
    {
      instructions:
        'Search this documentation site with search_docs (the same hybrid search its "Ask the docs" panel uses) and read a whole page ' +
        `with get_page. Cite passages by their url. ${LLMS_TXT} (a resource, and get_page("${LLMS_TXT}")) lists every page with a one-line description.`,
    },
  )

  server.registerTool(
    'search_docs',
    {
      title: 'Search the docs',
      description:
        'Rank passages of this documentation for a question (keyword and meaning search, the same ranking the site\'s panel uses). ' +
        'Returns each passage with its heading trail, its url (page URL with #anchor, to cite) and its text, plus the verdict ' +
        'of a relevance gate: gate.pass false means the docs probably do not cover the question.',
      inputSchema: z.object({
        // The SDK's own words ("Too big: expected string to have <=2000 characters") say the limit, not what to send instead.
        query: z
          .string()
          .min(1, { error: `empty; ask in plain words, e.g. ${EXAMPLE_QUERY}` })
          .max(MAX_QUERY, { error: `longer than ${MAX_QUERY} characters; ask the question in a sentence or a few keywords, not a whole file or log` })
          .describe('the question or keywords, in plain words'),
        limit: z.number().int().min(1).max(MAX_LIMIT).optional().describe(`how many passages (default ${DEFAULT_K})`),
      }),
      outputSchema: SearchOutputSchema,
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ query, limit }) => {
      // A query of blanks, punctuation or emoji searches for nothing: eight unrelated passages at score 0 would read as an answer.
      if (!WORDY.test(query)) return failure(`The query "${query}" has no words to search for. Ask in plain words, e.g. ${EXAMPLE_QUERY}.`)
      let index: DocIndex
      try {
        index = await site.index()
      } catch (err) {
        return failure(`The docs index could not be opened: ${message(err)}`)
      }
      const found = searchDocsOutput(await searchIndex(index, query, limit ?? DEFAULT_K, site.embedTransport))
      const cite = site.citeUrl
      const out = cite ? { ...found, results: found.results.map((r) => ({ ...r, url: cite(r.url) })) } : found
      return { content: [{ type: 'text', text: passagesText(out) }], structuredContent: { ...out } }
    },
  )

  server.registerTool(
    'get_page',
    {
      title: 'Read a docs page',
      description:
        `The whole page as Markdown. Pass a url from search_docs (its #anchor is ignored) or from ${LLMS_TXT}, or the page's source path. ` +
        `Pass "${LLMS_TXT}" for the list of every page, each with a one-line description and its link.`,
      inputSchema: z.object({
        page: z
          .string()
          .min(1, { error: `empty; ${WHICH_PAGE}` })
          .max(2000, { error: `longer than 2000 characters, which no page URL is; ${WHICH_PAGE}` })
          .describe(`page URL (e.g. /docs/api/context#set-get), source path (e.g. docs/api/context.md), or "${LLMS_TXT}"`),
      }),
      annotations: { readOnlyHint: true, openWorldHint: false },
    },
    async ({ page }) => {
      // Blank would name the site's home page, which the agent did not ask for.
      if (!page.trim()) return failure(`No page named: ${WHICH_PAGE}`)
      let url: string
      try {
        url = pageUrlFor(site, page)
      } catch (err) {
        return failure(`"${page}" is neither a page URL nor a source path: ${message(err)}`)
      }
      const listing = llmsUrl(site.siteUrl, LLMS_TXT)
      // The page list every error here points to: a client that offers tools but not resources has no other way to it.
      const copies = page.trim() === LLMS_TXT || url === listing ? [listing] : pageCopyUrls(url)
      const copy = copies[0]
      let text: string | undefined
      for (const candidate of copies) {
        try {
          text = await site.file(candidate)
        } catch (err) {
          return failure(`The Markdown copy of ${url} (${candidate}) could not be read: ${message(err)}`)
        }
        if (text !== undefined) break
      }
      if (text === undefined && copy === listing) return failure(`${LLMS_TXT} is not at ${listing}: the docs owner has not published it (\`docpilot index\` writes it). Find pages with search_docs.`)
      if (text === undefined) {
        return failure(`There is no page at ${url} (no Markdown copy at ${copy}). Find page URLs with search_docs, or list every page with get_page("${LLMS_TXT}").`)
      }
      return { content: [{ type: 'text', text }] }
    },
  )

  for (const [name, description] of [
    [LLMS_TXT, 'Every page of the docs, grouped by folder, with a one-line description and a link to its Markdown copy.'],
    [LLMS_FULL_TXT, 'Every page of the docs as Markdown, in one file.'],
  ] as const) {
    const url = llmsUrl(site.siteUrl, name)
    server.registerResource(name, site.uriOf(url), { title: name, description, mimeType: 'text/markdown' }, async (uri) => {
      const text = await site.file(url)
      if (text === undefined) throw new Error(`${name} is not at ${url}; build it with \`docpilot index\`.`)
      return { contents: [{ uri: uri.href, mimeType: 'text/markdown', text }] }
    })
  }
  return server
}
