// Temporary exploration: per-question gate signals. Not committed.
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { parseQuestions } from '../core/eval/score.ts'
import { openIndex } from '../core/retrieval/search.ts'
import { fsPartLoader } from '../indexer/fs-parts.ts'

const [root, tag] = process.argv.slice(2)
const out: unknown[] = []
for (const corpus of ['hono', 'astro']) {
  const index = await openIndex(fsPartLoader(join(root!, `${corpus}-index`)))
  for (const set of ['dev', 'dev-2']) {
    const file = `/work/shared/eval/${corpus}-${set}.jsonl`
    for (const q of parseQuestions(readFileSync(file, 'utf8'), file)) {
      const r = await index.search(q.q)
      out.push({ id: q.id, q: q.q, corpus, answerable: q.gold.length > 0, signals: r.gate.signals, top: r.results[0]?.trail, dense: r.results.map((x) => x.channels?.dense ?? 0) })
    }
  }
}
writeFileSync(`/tmp/fx/gate-${tag}.json`, JSON.stringify(out))
