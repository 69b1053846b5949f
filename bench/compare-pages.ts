/**
 * The browser side of the comparison: one local static server per corpus
 * serving every engine's index and bench page, and the list of engine pages
 * a benchmark can open in Chromium.
 */
import { join, resolve } from 'node:path'
import type { PreparedCorpus } from './compare-corpora.ts'
import { bundlePage } from './peers/chromium.ts'
import { startStaticServer, type StaticServer } from './peers/static-server.ts'

const PEERS = resolve(import.meta.dirname, 'peers')

export type EngineId = 'docpilot-hybrid' | 'docpilot-lexical' | 'pagefind' | 'orama-bm25' | 'orama-hybrid'

export interface EnginePage {
  engine: EngineId
  /** Page path on the corpus server. */
  path: string
  /** The page expects query vectors from the driver (hybrid modes). */
  needsVectors: boolean
}

const bundled = new Map<string, Promise<void>>()

/** Bundles the three page scripts once per work folder. */
function bundleAll(outDir: string): Promise<void> {
  let p = bundled.get(outDir)
  if (!p) {
    p = Promise.all([
      bundlePage(join(PEERS, 'page-docpilot.ts'), outDir, 'docpilot'),
      bundlePage(join(PEERS, 'page-pagefind.ts'), outDir, 'pagefind'),
      bundlePage(join(PEERS, 'page-orama.ts'), outDir, 'orama'),
    ]).then(() => undefined)
    bundled.set(outDir, p)
  }
  return p
}

export interface CorpusSite {
  server: StaticServer
  pages: EnginePage[]
  url(page: EnginePage): string
}

export async function serveCorpus(c: PreparedCorpus): Promise<CorpusSite> {
  const pagesDir = join(c.dir, '..', 'pages')
  await bundleAll(pagesDir)
  const server = await startStaticServer({
    '/bench/': pagesDir,
    '/docpilot/': c.docpilotDir,
    '/pagefind/': c.pagefindDir,
    '/orama/': c.oramaDir,
  })
  const hybrid = c.vectors !== null
  const pages: EnginePage[] = [
    ...(hybrid ? [{ engine: 'docpilot-hybrid' as const, path: '/bench/docpilot.html', needsVectors: false }] : []),
    { engine: 'docpilot-lexical', path: '/bench/docpilot.html?mode=lexical', needsVectors: false },
    { engine: 'pagefind', path: '/bench/pagefind.html', needsVectors: false },
    { engine: 'orama-bm25', path: '/bench/orama.html?index=bm25', needsVectors: false },
    ...(hybrid ? [{ engine: 'orama-hybrid' as const, path: '/bench/orama.html?index=hybrid', needsVectors: true }] : []),
  ]
  return { server, pages, url: (p) => `${server.url}${p.path}` }
}
