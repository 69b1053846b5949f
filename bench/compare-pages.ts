/**
 * The browser side of the comparison: one local static server per corpus
 * serving every engine's index and bench page, and the list of engine pages
 * a benchmark can open in Chromium.
 */
import { join, resolve } from 'node:path'
import type { PreparedCorpus } from './compare-corpora.ts'
import { writeFile } from 'node:fs/promises'
import { buildWidget } from '../widget/vite.config.ts'
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

/**
 * A docs page as a site ships it with docpilot: the loader script tag and
 * nothing else of docpilot's. What it downloads while the reader never
 * touches the panel is what every page view costs.
 */
const DOCS_PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>A docs page</title></head>
<body><main><h1>A docs page</h1><p>The reader reads and never opens the panel.</p></main>
<script src="/widget/docpilot.js" data-index="/docpilot/" defer></script></body></html>
`

/** Bundles the three page scripts and the shipped widget once per work folder. */
function bundleAll(outDir: string): Promise<void> {
  let p = bundled.get(outDir)
  if (!p) {
    p = Promise.all([
      bundlePage(join(PEERS, 'page-docpilot.ts'), outDir, 'docpilot'),
      bundlePage(join(PEERS, 'page-pagefind.ts'), outDir, 'pagefind'),
      bundlePage(join(PEERS, 'page-orama.ts'), outDir, 'orama'),
      buildWidget(join(outDir, 'widget')),
      writeFile(join(outDir, 'docs-page.html'), DOCS_PAGE),
    ]).then(() => undefined)
    bundled.set(outDir, p)
  }
  return p
}

export interface CorpusSite {
  server: StaticServer
  pages: EnginePage[]
  url(page: EnginePage): string
  /** A docs page carrying only the widget's loader script, over this corpus's docpilot index. */
  docsPageUrl: string
}

export async function serveCorpus(c: PreparedCorpus): Promise<CorpusSite> {
  const pagesDir = join(c.dir, '..', 'pages')
  await bundleAll(pagesDir)
  const server = await startStaticServer({
    '/bench/': pagesDir,
    '/widget/': join(pagesDir, 'widget'),
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
  return { server, pages, url: (p) => `${server.url}${p.path}`, docsPageUrl: `${server.url}/bench/docs-page.html` }
}
