/**
 * The indexer against the real corpora in shared/corpora:
 * - every gold section of the dev sets has a chunk with exactly its trail
 *   (after the eval's normalisation): without that, retrieval eval cannot succeed;
 * - every file produces chunks, with no warning;
 * - the anchors the docs' own links point at are the ids our slugger produces.
 */
import { readFileSync } from 'node:fs'
import { beforeAll, describe, expect, it } from 'vitest'
import type { SluggerName } from '../core/config/schema.ts'
import { sharedPath } from '../fixtures/shared-data.ts'
import { collectChunks, type CollectOptions, type CollectResult } from './collect.ts'
import { parseMarkdown } from './sources/markdown.ts'
import { loadHtmlParser } from './sources/html-text.ts'
import { toSections } from './sections.ts'

// parseMarkdown is called directly here, as the parsers call it once the HTML parser is loaded.
beforeAll(() => loadHtmlParser())

const URLS: CollectOptions['urls'] = { base: '/', stripPrefix: '', stripExtension: true, collapseIndex: true, trailingSlash: false }
const CHUNKS: CollectOptions['chunks'] = { maxWords: 220, overlapWords: 40 }

const FOLLOWUPS = (corpus: string) => new URL(`../fixtures/eval/followups-${corpus}.jsonl`, import.meta.url).pathname
const norm = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '')
const key = (trail: string[]) => trail.map(norm).join('/')

interface Gold { id: string; gold: { path: string; trail: string[] }[] }

const corpora = [
  // linkPrefix: site-absolute links that point into the corpus; sitePrefix: where such URLs live as files.
  { name: 'hono', set: 'hono-dev.jsonl', slugger: 'vitepress' as SluggerName, files: 113, linkPrefix: '/docs/', sitePrefix: '' },
  { name: 'astro', set: 'astro-dev.jsonl', slugger: 'starlight' as SluggerName, files: 420, linkPrefix: '/en/', sitePrefix: 'src/content/docs/' },
]

for (const corpus of corpora) {
  describe(`corpus ${corpus.name}`, () => {
    const root = sharedPath(`corpora/${corpus.name}`)
    let result: CollectResult

    beforeAll(async () => {
      result = await collectChunks({ root, mode: 'source', slugger: corpus.slugger, urls: URLS, chunks: CHUNKS })
    }, 120_000)

    it(`every gold section of ${corpus.set} and of the follow-up set has a chunk with exactly its trail`, () => {
      const questions = [sharedPath(`eval/${corpus.set}`), FOLLOWUPS(corpus.name)]
        .flatMap((file) => readFileSync(file, 'utf8').trim().split('\n'))
        .map((l) => JSON.parse(l) as Gold)
      const trailsByPath = new Map<string, Set<string>>()
      for (const c of result.chunks) {
        if (!trailsByPath.has(c.path)) trailsByPath.set(c.path, new Set())
        trailsByPath.get(c.path)!.add(key(c.trail))
      }
      const missing: string[] = []
      let checked = 0
      for (const q of questions) {
        for (const g of q.gold) {
          checked++
          if (!trailsByPath.get(g.path)?.has(key(g.trail))) missing.push(`${q.id} ${g.path} ${JSON.stringify(g.trail)}`)
        }
      }
      expect(checked).toBeGreaterThan(25)
      expect(missing).toEqual([])
    })

    it(`all ${corpus.files} files produce chunks, with no warning`, () => {
      expect(result.files).toHaveLength(corpus.files)
      expect(new Set(result.chunks.map((c) => c.path)).size).toBe(corpus.files)
      expect(result.warnings).toEqual([])
      expect(new Set(result.chunks.map((c) => c.id)).size).toBe(result.chunks.length)
      for (const c of result.chunks) {
        expect(c.text.trim()).not.toBe('')
        // Clean text: no frontmatter, no page ESM, no docs-site component tags (code examples may hold others).
        expect(c.text).not.toMatch(/from ['"]~\/components\//)
        expect(c.text).not.toMatch(/<\/?(Tabs|TabItem|Steps|Since|ReadMore|PackageManagerTabs|Badge)[\s>/]/)
      }
    })

    it('ids that the docs link to exist on the target page', () => {
      const anchors = new Map<string, Set<string>>()
      for (const file of result.files) {
        const page = parseMarkdown(readFileSync(`${root}/${file}`, 'utf8'), { mdx: file.endsWith('.mdx') })
        anchors.set(file, new Set(toSections(page, corpus.slugger, file).anchors))
      }
      const resolveTarget = (from: string, target: string): string | undefined => {
        let p = target === '' ? from : target.startsWith('/') ? corpus.sitePrefix + target.slice(1) : `${from}/../${target}`
        const parts: string[] = []
        for (const seg of p.split('/')) if (seg === '..') parts.pop(); else if (seg !== '.' && seg !== '') parts.push(seg)
        p = parts.join('/').replace(/\.(md|mdx)$/, '')
        return [p, `${p}.md`, `${p}.mdx`, `${p}/index.md`, `${p}/index.mdx`].find((c) => anchors.has(c))
      }
      const misses: string[] = []
      let checked = 0
      for (const file of result.files) {
        const source = readFileSync(`${root}/${file}`, 'utf8')
        for (const m of source.matchAll(/\]\(([^)\s#]*)#([^)\s]+)\)/g)) {
          const target = m[1]!
          if (/^[a-z]+:/.test(target) || (target.startsWith('/') && !target.startsWith(corpus.linkPrefix))) continue
          const page = resolveTarget(file, target)
          if (!page) continue
          checked++
          const id = decodeURIComponent(m[2]!)
          if (!anchors.get(page)!.has(id)) misses.push(`${file} -> ${page}#${id}`)
        }
      }
      expect(checked).toBeGreaterThan(30)
      // A link may sit inside a code example about links; allow a sliver of such non-heading targets.
      expect(misses.length / checked).toBeLessThan(0.01)
    }, 120_000)
  })
}
