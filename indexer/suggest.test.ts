import { mkdtempSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { describe, expect, it } from 'vitest'
import type { DocpilotConfigInput } from '../core/config/schema.ts'
import { validateConfig } from '../core/config/validate.ts'
import type { ChunkRecord, Manifest } from '../core/index/format.ts'
import { buildIndex } from './build.ts'
import { headingQuestions, questionFromHeading, suggestFromQuestions } from './suggest.ts'

describe('questionFromHeading', () => {
  it('keeps a heading that is already a question', () => {
    expect(questionFromHeading('Why does my route return 404?')).toBe('Why does my route return 404?')
  })

  it('turns task headings into "How do I ...?", imperative or -ing', () => {
    expect(questionFromHeading('Install the CLI')).toBe('How do I install the CLI?')
    expect(questionFromHeading('Writing middleware')).toBe('How do I write middleware?')
    expect(questionFromHeading('Getting the request body')).toBe('How do I get the request body?')
    expect(questionFromHeading('Streaming responses')).toBe('How do I stream responses?')
    expect(questionFromHeading('How to protect the API')).toBe('How do I protect the API?')
    expect(questionFromHeading('🚀 Deploying to Cloudflare:')).toBe('How do I deploy to Cloudflare?')
  })

  it("asks a task heading's task, without the subtitle after its colon", () => {
    expect(questionFromHeading('Choosing one provider: chat.chain false')).toBe('How do I choose one provider?')
    expect(questionFromHeading('Deploying: the two ways')).toBeUndefined()
    expect(questionFromHeading('What changed: a summary?')).toBe('What changed: a summary?')
  })

  it('skips what does not read as a question: topics, nouns that look like verbs, code, verbs without an object', () => {
    for (const heading of ['Installation', 'Query strings', 'Type definitions', 'set() / get()', 'Using with Vite', 'Request and Response', 'Deploy']) {
      expect(questionFromHeading(heading), heading).toBeUndefined()
    }
  })
})

const chunk = (url: string, anchor: string, trail: string[]): ChunkRecord => ({ id: `${url}#${anchor}`, path: `${url}.md`, url, anchor, title: trail[0]!, trail, text: '' })

describe('suggestFromQuestions', () => {
  it('picks at most four, one per page, half from question headings, in the docs order', () => {
    const chunks = [
      chunk('/faq', 'a', ['FAQ', 'Is it fast?']),
      chunk('/faq', 'b', ['FAQ', 'Can I use it offline?']),
      chunk('/guide', 'c', ['Guide', 'Installing the package']),
      chunk('/guide', 'c', ['Guide', 'Installing the package']),
      chunk('/deploy', 'd', ['Deploy', 'Deploy to a server']),
      chunk('/about', 'e', ['About', 'Who wrote it?']),
      chunk('/api', 'f', ['API', 'Configure the client']),
      chunk('/more', 'g', ['More', 'Add a plugin']),
      chunk('/intro', '', ['Introduction']),
    ]
    expect(suggestFromQuestions(headingQuestions(chunks))).toEqual(['Is it fast?', 'Who wrote it?', 'How do I install the package?', 'How do I deploy to a server?'])
  })

  it('gives from each page\'s questions, asked page by page, what it gives from all the chunks at once (a section two pages share counts once)', () => {
    const pages = [
      [chunk('/faq', 'a', ['FAQ', 'Is it fast?']), chunk('/faq', 'b', ['FAQ', 'Is it free?'])],
      // a.md and a.mdx, both served at /a: the same sections.
      [chunk('/a', 'x', ['A', 'Is it safe?']), chunk('/a', 'y', ['A', 'Install the CLI'])],
      [chunk('/a', 'x', ['A', 'Is it safe?']), chunk('/a', 'y', ['A', 'Install the CLI'])],
      [chunk('/b', 'z', ['B', 'Deploy to a server']), chunk('/b', 'w', ['B', 'Who wrote it?'])],
    ]
    const perPage = pages.flatMap((page) => headingQuestions(page))
    expect(perPage.filter((q) => q.question === 'Is it safe?')).toHaveLength(2)
    expect(suggestFromQuestions(perPage)).toEqual(suggestFromQuestions(headingQuestions(pages.flat())))
    expect(suggestFromQuestions(perPage)).toEqual(['Is it fast?', 'Is it safe?', 'How do I deploy to a server?'])
  })

  it('fills in with the other kind when one runs short', () => {
    expect(suggestFromQuestions(headingQuestions([chunk('/a', 'x', ['A', 'Is it fast?']), chunk('/b', 'y', ['B', 'Is it free?']), chunk('/c', 'z', ['C', 'Is it safe?'])]))).toHaveLength(3)
    expect(suggestFromQuestions(headingQuestions([chunk('/a', 'x', ['A', 'Overview'])]))).toEqual([])
  })
})

describe('the manifest carries the suggestions', { timeout: 60_000 }, () => {
  const SITE = fileURLToPath(new URL('../fixtures/site/', import.meta.url))
  const manifestFor = async (config: DocpilotConfigInput): Promise<Manifest> => {
    const out = join(mkdtempSync(join(tmpdir(), 'dp-suggest-')), 'index')
    await buildIndex({ root: SITE, mode: 'source', out, config: validateConfig({ embed: false, ...config }, '(test)'), docpilotVersion: 'test' })
    return JSON.parse(await readFile(join(out, 'manifest.json'), 'utf8')) as Manifest
  }

  it("derived from the docs' headings when the config names none", async () => {
    const { panel } = await manifestFor({})
    expect(panel?.suggestions.length).toBe(4)
    expect(panel?.suggestions).toContain('Is Lumen production ready?')
  })

  it("the owner's list as written, or none with false", async () => {
    expect((await manifestFor({ panel: { suggestions: [' How do I deploy? '] } })).panel).toEqual({ suggestions: ['How do I deploy?'] })
    expect((await manifestFor({ panel: { suggestions: false } })).panel).toEqual({ suggestions: [] })
  })
})
