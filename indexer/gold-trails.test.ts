/**
 * The retrieval eval can only succeed if the indexer produces, for every gold
 * section of the dev sets, a chunk with exactly that trail (after the eval's
 * normalisation). This checks that against the real corpora.
 */
import { readFileSync } from 'node:fs'
import { describe, expect, it } from 'vitest'
import { collectChunks, type CollectOptions } from './collect.ts'

const SHARED = new URL('../../shared/', import.meta.url).pathname
const URLS: CollectOptions['urls'] = { base: '/', stripPrefix: '', stripExtension: true, collapseIndex: true, trailingSlash: false }
const CHUNKS: CollectOptions['chunks'] = { maxWords: 220, overlapWords: 40 }

const norm = (s: string) => s.toLowerCase().replace(/[^a-z0-9]/g, '')
const key = (trail: string[]) => trail.map(norm).join('/')

interface Gold { id: string; gold: { path: string; trail: string[] }[] }

const cases = [
  { set: 'hono-dev.jsonl', root: 'corpora/hono', slugger: 'vitepress' as const },
  { set: 'astro-dev.jsonl', root: 'corpora/astro', slugger: 'starlight' as const },
]

describe('gold trails of the dev sets', () => {
  for (const { set, root, slugger } of cases) {
    it(`every gold section of ${set} has a chunk with exactly its trail`, async () => {
      const questions = readFileSync(`${SHARED}eval/${set}`, 'utf8').trim().split('\n').map((l) => JSON.parse(l) as Gold)
      const { chunks } = await collectChunks({ root: `${SHARED}${root}`, mode: 'source', slugger, urls: URLS, chunks: CHUNKS })
      const trailsByPath = new Map<string, Set<string>>()
      for (const c of chunks) {
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
      expect(checked).toBeGreaterThan(20)
      expect(missing).toEqual([])
    })
  }
})
