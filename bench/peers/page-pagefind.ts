/**
 * Bench page for Pagefind: its own browser API, loaded from the index folder
 * the way its docs say (`await import('/pagefind/pagefind.js')`).
 * A page hit becomes sections the way Pagefind's UI shows them: each page's
 * sub-results (one per heading with an id) ranked by how many query-term
 * locations they hold, at most three per page, pages in Pagefind's order.
 */
import { startPage, type PageEngine, type PageHit } from './page-engine.ts'

interface PagefindSubResult {
  url: string
  locations: number[]
}
interface PagefindResult {
  data(): Promise<{ url: string; sub_results: PagefindSubResult[] }>
}
interface PagefindApi {
  options(o: Record<string, unknown>): Promise<void>
  init(): Promise<void>
  search(q: string): Promise<{ results: PagefindResult[] }>
}

const SUBS_PER_PAGE = 3
// A variable keeps the bundler from resolving the site's own file.
const PAGEFIND_URL = '/pagefind/pagefind.js'
let api: Promise<PagefindApi> | undefined

async function loadApi(): Promise<PagefindApi> {
  const pf = (await import(/* @vite-ignore */ PAGEFIND_URL)) as PagefindApi
  await pf.options({ baseUrl: '/' })
  await pf.init()
  return pf
}

const engine: PageEngine = {
  async search(q, k) {
    const pf = await (api ??= loadApi())
    const { results } = await pf.search(q)
    const hits: PageHit[] = []
    for (const r of results) {
      if (hits.length >= k) break
      const data = await r.data()
      const subs = [...data.sub_results]
        .sort((a, b) => b.locations.length - a.locations.length)
        .slice(0, SUBS_PER_PAGE)
      for (const s of subs) if (hits.length < k) hits.push({ href: s.url })
    }
    return hits
  },
}
startPage(engine)
