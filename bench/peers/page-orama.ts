/**
 * Bench page for Orama: the library bundled into the page (as a site would),
 * the saved database fetched from `/orama/<name>.json` and loaded into memory.
 * `?index=NAME` picks the BM25 or the hybrid (with vectors) database.
 */
import { loadOrama, searchOrama, type OramaBundle } from './orama.ts'
import { startPage, type PageEngine } from './page-engine.ts'

const name = new URLSearchParams(location.search).get('index') ?? 'bm25'
let db: ReturnType<typeof loadOrama> | undefined

async function open() {
  const res = await fetch(`/orama/${name}.json`)
  return loadOrama((await res.json()) as OramaBundle)
}

const engine: PageEngine = {
  async search(q, k, queryVector) {
    const d = await (db ??= open())
    return searchOrama(d, q, { k, queryVector })
  },
}
startPage(engine)
