/**
 * Docs for agents on both shared corpora, through the real CLI:
 * - `docpilot index` writes llms.txt, llms-full.txt and a page copy per
 *   indexed page; every llms.txt link is a page copy on disk at a citation
 *   URL + .md, and no copy carries MDX/JSX residue;
 * - `docpilot mcp` (a real process, the official SDK client over stdio)
 *   lists its tools, finds a dev question's gold section, reads a page, and
 *   answers every question of the corpus's dev files exactly as
 *   `docpilot query --questions` does.
 */
import { spawn } from 'node:child_process'
import { existsSync, readFileSync } from 'node:fs'
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { basename, join, resolve } from 'node:path'
import { Client } from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import { glob } from 'tinyglobby'
import remarkGfm from 'remark-gfm'
import remarkParse from 'remark-parse'
import { unified } from 'unified'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { matchesGold } from '../core/eval/score.ts'
import type { SearchDocsOutput } from '../core/mcp/docs-server.ts'
import { openIndex } from '../core/retrieval/search.ts'
import { LLMS_FULL_TXT, LLMS_TXT, pageCopyUrl } from '../core/site-files.ts'
import { fsPartLoader } from '../indexer/fs-parts.ts'
import { connectHttp, CORPORA, devQuestions, type CorpusName } from '../proxy/mcp-testing.ts'
import { runMain } from './test-helpers.ts'

const BIN = new URL('../bin/docpilot.cjs', import.meta.url).pathname
const SHARED = new URL('../../shared/', import.meta.url).pathname
const markdown = unified().use(remarkParse).use(remarkGfm)

interface MdNode {
  type: string
  value?: string
  children?: MdNode[]
}

/** What a site generator would have had to render: component tags, ESM, MDX comments, frontmatter. Code is exempt. */
function residue(text: string): string[] {
  const found: string[] = []
  if (/^---\s*\n/.test(text)) found.push('frontmatter')
  const walk = (node: MdNode): void => {
    if (node.type === 'code' || node.type === 'inlineCode') return
    if (node.type === 'html' && /<\/?[A-Z][\w.]*|<script|<style/.test(node.value ?? '')) found.push(node.value!.slice(0, 80))
    if (node.type === 'text' && /(^|\n)\s*(import\s+[\w{*][^\n]*\sfrom\s+['"]|export\s+(const|default|function))|\{\/\*|\*\/\}/.test(node.value ?? '')) {
      found.push(node.value!.slice(0, 80))
    }
    node.children?.forEach(walk)
  }
  walk(markdown.parse(text) as MdNode)
  return found
}

const run = (argv: string[], cwd: string) => runMain(argv, cwd, { ...process.env, DOCPILOT_CACHE_DIR: join(cwd, 'cache') })

describe('the residue check', () => {
  it('flags an MDX source as it is (so a clean copy means something)', () => {
    const source = readFileSync(`${SHARED}corpora/astro/src/content/docs/en/install-and-setup.mdx`, 'utf8')
    expect(residue(source).length).toBeGreaterThan(3)
  })
})

describe.each<CorpusName>(['hono', 'astro'])('agents on the %s corpus', (corpus) => {
  const spec = CORPORA[corpus]
  let dir: string
  let indexDir: string
  let siteDir: string
  let configFile: string
  let summary: string
  let pageUrls: string[]

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), `docpilot-agents-cli-${corpus}-`))
    indexDir = join(dir, 'index')
    siteDir = join(dir, 'site')
    configFile = join(dir, 'docpilot.config.json')
    await writeFile(configFile, JSON.stringify(spec.config))
    const built = await run(['index', spec.root, '--out', indexDir, '--site-out', siteDir, '--config', configFile, ...(spec.include ? ['--include', ...spec.include] : [])], dir)
    expect(built.code, built.stderr).toBe(0)
    summary = built.stdout
    const index = await openIndex(fsPartLoader(indexDir))
    const chunks = await index.chunks([...Array(index.size).keys()])
    pageUrls = [...new Set(chunks.map((c) => c.url))]
  }, 300_000)

  afterAll(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it('the index summary reports the agent files and their sizes', () => {
    expect(summary).toMatch(new RegExp(`Agents: llms\\.txt [\\d.]+ KB, llms-full\\.txt [\\d.]+ KB, ${pageUrls.length} page copies \\([\\d.]+ KB\\)`))
  })

  it('the summary asks for llms.title when llms.txt took its title from the docs folder, and only then', () => {
    const folder = basename(resolve(spec.root))
    const titledByFolder = readFileSync(join(siteDir, LLMS_TXT), 'utf8').startsWith(`# ${folder}\n`)
    expect(summary.includes(`llms.txt is titled "${folder}", the docs folder's name`)).toBe(titledByFolder)
    if (titledByFolder) expect(summary).toMatch(/set llms\.title to your site's name/)
  })

  it('llms.txt links every indexed page once, each to its copy on disk at the citation URL + .md', () => {
    const text = readFileSync(join(siteDir, LLMS_TXT), 'utf8')
    const links = [...text.matchAll(/^- \[[^\]]+\]\(([^)]+)\)(?:: (.+))?$/gm)]
    expect(links.map((l) => l[1]).sort()).toEqual(pageUrls.map(pageCopyUrl).sort())
    for (const [, link] of links) expect(existsSync(join(siteDir, link!)), link).toBe(true)
    // One sentence from the page for nearly every page (a page made of a code block alone has none).
    expect(links.filter((l) => l[2]).length).toBeGreaterThan(links.length * 0.9)
    expect(text).toMatch(/^# .+\n/)
    expect(text).toMatch(/^## /m)
  })

  it('no page copy carries MDX or JSX residue', async () => {
    const copies = await glob(['**/*.md'], { cwd: siteDir })
    expect(copies.length).toBe(pageUrls.length)
    const dirty = copies.map((f) => [f, residue(readFileSync(join(siteDir, f), 'utf8'))] as const).filter(([, r]) => r.length)
    expect(dirty).toEqual([])
  }, 180_000)

  it('llms-full.txt holds every page, each with the URL it is served at', () => {
    const text = readFileSync(join(siteDir, LLMS_FULL_TXT), 'utf8')
    const sources = [...text.matchAll(/^# .*\nSource: (.+)$/gm)].map((m) => m[1])
    expect(sources.sort()).toEqual([...pageUrls].sort())
  })

  it.runIf(corpus === 'hono')('docpilot proxy serves the same docs to agents on /ai/mcp', async () => {
    const child = spawn(process.execPath, [BIN, 'proxy', '--port', '0', '--db', ':memory:', '--index', indexDir, '--site-out', siteDir, '--config', configFile], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '' },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    try {
      let output = ''
      const url = await new Promise<string>((done, fail) => {
        child.stdout.on('data', (d: Buffer) => {
          output += d.toString()
          const m = /MCP for agents on (\S+)/.exec(output)
          if (m) done(m[1]!)
        })
        child.on('exit', (code) => fail(new Error(`docpilot proxy exited ${code}: ${output}`)))
      })
      const client = await connectHttp(url)
      const res = await client.callTool({ name: 'get_page', arguments: { page: 'docs/api/context.md' } })
      expect((res.content as Array<{ text: string }>)[0]!.text).toMatch(/^# Context\n/)
      await client.close()
    } finally {
      child.kill('SIGTERM')
    }
  }, 120_000)

  describe('docpilot mcp over stdio', () => {
    let client: Client

    beforeAll(async () => {
      client = new Client({ name: 'docpilot-test', version: '0' })
      await client.connect(
        new StdioClientTransport({
          command: process.execPath,
          args: [BIN, 'mcp', '--index', indexDir, '--site-out', siteDir, '--config', configFile],
          cwd: dir,
          stderr: 'pipe',
        }),
        // Starting a CLI process (tsx compiles it in a checkout) can take a while on a loaded machine.
        { timeout: 180_000 },
      )
    }, 240_000)

    afterAll(() => client?.close())

    it('lists its tools, finds a dev question\'s gold section and reads its page', async () => {
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['get_page', 'search_docs'])
      const question = devQuestions(corpus).find((q) => q.gold.length && q.kind === 'keyword')!
      const res = await client.callTool({ name: 'search_docs', arguments: { query: question.q } })
      const out = res.structuredContent as unknown as SearchDocsOutput
      const gold = out.results.find((r) => question.gold.some((g) => matchesGold(r, g)))
      expect(gold, `${question.id} gold in ${JSON.stringify(out.results.map((r) => [r.path, r.trail]))}`).toBeDefined()
      const page = await client.callTool({ name: 'get_page', arguments: { page: gold!.url } })
      expect(page.isError).toBeFalsy()
      expect((page.content as Array<{ text: string }>)[0]!.text).toMatch(new RegExp(`^# ${gold!.title.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}\\n`))
    })

    it('search_docs returns exactly what docpilot query returns, for every dev question', async () => {
      const questions = devQuestions(corpus)
      const file = join(dir, 'questions.jsonl')
      await writeFile(file, questions.map((q) => JSON.stringify({ id: q.id, q: q.q })).join('\n') + '\n')
      const query = await run(['query', '--index', indexDir, '--questions', file, '--config', configFile], dir)
      expect(query.code, query.stderr).toBe(0)
      const lines = query.stdout.trim().split('\n').map((l) => JSON.parse(l) as { id: string })
      expect(lines).toHaveLength(questions.length)
      for (const [i, q] of questions.entries()) {
        const res = await client.callTool({ name: 'search_docs', arguments: { query: q.q } })
        const { degraded, degradedReason: _reason, results, gate: { refusedFor, ...gate }, ...rest } = res.structuredContent as unknown as SearchDocsOutput
        expect(degraded).toBe(false)
        // Beyond the query contract, the tool says why a refused question was refused, and only then.
        expect(refusedFor === undefined, q.id).toBe(gate.pass)
        const { id, ...expected } = lines[i]!
        expect(id).toBe(q.id)
        expect({ ...rest, gate, results: results.map(({ text: _text, ...r }) => r) }, q.id).toEqual(expected)
      }
    }, 300_000)
  })
})
