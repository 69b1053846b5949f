// Temporary exploration: dump per-question channel scores for offline fusion study. Not committed.
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseQuestions } from '../core/eval/score.ts'
import { denseScore } from '../core/retrieval/dense.ts'
import { openIndex } from '../core/retrieval/search.ts'
import { fsPartLoader } from '../indexer/fs-parts.ts'

const [root, tag] = process.argv.slice(2)
for (const corpus of ['hono', 'astro']) {
  const index = await openIndex(fsPartLoader(join(root!, `${corpus}-index`)))
  const n = index.size
  const recs = await index.chunks([...Array(n).keys()])
  const chunks = recs.map((r, i) => ({ path: r.path, trail: r.trail, section: index.lexical.sectionOf(i) }))
  const vectors = await index.dense!.vectors()
  const qs: unknown[] = []
  for (const set of ['dev', 'dev-2']) {
    const file = `/work/shared/eval/${corpus}-${set}.jsonl`
    for (const q of parseQuestions(readFileSync(file, 'utf8'), file)) {
      const lex = await index.lexical.search(q.q, 200)
      const qv = await index.dense!.queryVector(q.q)
      if (!('vector' in qv)) throw new Error('no vector')
      const cos = Array.from({ length: n }, (_, i) => Math.round(denseScore(vectors, qv.vector, i) * 1e5) / 1e5)
      qs.push({ q: q.q, id: q.id, set: `${corpus}-${set}`, kind: q.kind, gold: q.gold, lex: lex.map((h) => [h.ordinal, h.score, h.coverage]), cos })
    }
  }
  writeFileSync(`/tmp/fx/${tag}-${corpus}.json`, JSON.stringify({ chunks, qs }))
  console.log(corpus, n, qs.length)
}
