/**
 * Built HTML or sources? (the table in docs/integrations.md). Each framework builds a site with its
 * docpilot integration (the packed package, as the e2e specs do), which
 * indexes the built HTML; the same docs are also indexed from their Markdown
 * sources, with the framework's slugger and URL shape, as an owner running
 * `docpilot index` on the sources would. For both indexes it reports:
 *
 * - anchors exact: the share of chunks whose `url#anchor` exists in the built
 *   pages (a miss is a citation that lands on the page top, or nowhere);
 * - recall@1, @8 and MRR@8 on the hono dev question sets, for hono built with
 *   a minimal VitePress config (the only corpus here whose questions are
 *   written against a framework site's sources);
 * - chunks, and build and index time.
 *
 *   npx tsx bench/integrations.ts               every site (about 5 minutes on 2 cores)
 *   npx tsx bench/integrations.ts --only hono   some (hono, vitepress, starlight, docusaurus)
 *
 * Writes bench/results/integrations.json and prints a Markdown table.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { parseArgs } from 'node:util'
import { glob } from 'tinyglobby'
import type { DocpilotConfigInput } from '../core/config/schema.ts'
import { validateConfig } from '../core/config/validate.ts'
import { toContractLine } from '../core/eval/contract.ts'
import { parseQuestions, scoreRun, type EvalQuestion } from '../core/eval/score.ts'
import type { ChunkRecord } from '../core/index/format.ts'
import { openIndex } from '../core/retrieval/search.ts'
import { buildIndex } from '../indexer/build.ts'
import { fsPartLoader } from '../indexer/fs-parts.ts'
import { sharedPath } from '../fixtures/shared-data.ts'
import { buildFrameworkSite, FRAMEWORK_SITES, indexChunks, missingTargets, type FrameworkBuild } from '../e2e/framework-build.ts'

interface Measured {
  site: string
  /** How the sources were indexed (the settings an owner would give `docpilot index`). */
  source: DocpilotConfigInput
  questions?: string[]
  /** Maps a built page's path in the HTML index back to its source file, for scoring against gold paths. */
  sourcePath?: (htmlPath: string) => string
  build: FrameworkBuild
}

/**
 * The corpus holds the pages, not the images they show; VitePress fails a
 * build on a missing one. An empty file in public/ stands in for each.
 */
async function imagePlaceholders(corpus: string): Promise<Record<string, string>> {
  const files: Record<string, string> = {}
  for (const page of await glob('**/*.md', { cwd: corpus, absolute: true })) {
    for (const [, url] of (await readFile(page, 'utf8')).matchAll(/\((\/[^)\s]+\.(?:png|jpe?g|gif|svg|webp|mp4))\)/g)) files[`public${url}`] = ''
  }
  return files
}

const htmlToMarkdown = (path: string) => path.replace(/\.html$/, '.md')

const SITES: Measured[] = [
  {
    site: 'hono',
    build: {
      name: 'vitepress',
      docs: { dir: sharedPath('corpora/hono') },
      contentDir: '.',
      command: FRAMEWORK_SITES.vitepress.command,
      outDir: FRAMEWORK_SITES.vitepress.outDir,
      files: {
        '.vitepress/config.mts': [
          "import { defineConfig } from 'vitepress'",
          "import { withDocpilot } from 'docpilot/vitepress'",
          '// examples/index.md lists the examples from a data loader the corpus does not hold.',
          "const config = defineConfig({ title: 'Hono', ignoreDeadLinks: true, srcExclude: ['examples/index.md'] })",
          "export default withDocpilot(config, { embed: 'default' })",
        ].join('\n'),
        ...(await imagePlaceholders(sharedPath('corpora/hono'))),
      },
    },
    source: { anchors: { slugger: 'vitepress' }, docs: { exclude: ['examples/index.md'] } },
    questions: ['eval/hono-dev.jsonl', 'eval/hono-dev-2.jsonl'],
    sourcePath: htmlToMarkdown,
  },
  { site: 'vitepress', build: FRAMEWORK_SITES.vitepress, source: { anchors: { slugger: 'vitepress' } } },
  { site: 'starlight', build: FRAMEWORK_SITES.starlight, source: { anchors: { slugger: 'starlight' }, urls: { trailingSlash: true } } },
  { site: 'docusaurus', build: FRAMEWORK_SITES.docusaurus, source: { anchors: { slugger: 'docusaurus' } } },
]

interface Figures {
  chunks: number
  anchored: number
  anchorsExact: number
  missing: string[]
  recall?: { r1: number; r8: number; mrr: number; answerable: number }
  indexSeconds?: number
}

async function recall(indexDir: string, questions: EvalQuestion[], sourcePath = (p: string) => p): Promise<Figures['recall']> {
  const index = await openIndex(fsPartLoader(indexDir))
  const outputs = []
  for (const q of questions) {
    const line = toContractLine(q.id, await index.search(q.q))
    outputs.push({ ...line, results: line.results.map((r) => ({ ...r, path: sourcePath(r.path) })) })
  }
  const all = scoreRun(questions, outputs).byKind.all!
  return { r1: all.recall[1], r8: all.recall[8], mrr: all.mrr, answerable: all.count }
}

async function figures(siteDir: string, chunks: ChunkRecord[]): Promise<Figures> {
  const missing = await missingTargets(siteDir, chunks)
  const anchored = chunks.filter((c) => c.anchor).length
  return { chunks: chunks.length, anchored, anchorsExact: 1 - missing.length / chunks.length, missing }
}

async function measure(m: Measured) {
  const site = await buildFrameworkSite(m.build)
  try {
    const questions = (
      await Promise.all((m.questions ?? []).map(async (file) => parseQuestions(await readFile(sharedPath(file), 'utf8'), file)))
    ).flat()
    const htmlDir = join(site.outDir, 'docpilot')
    const html = await figures(site.outDir, await indexChunks(htmlDir))
    if (questions.length) html.recall = await recall(htmlDir, questions, m.sourcePath)

    const sourceDir = join(site.root, '.source-index')
    const started = performance.now()
    const config = validateConfig({ embed: 'default', ...m.source }, `(${m.site} sources)`)
    await buildIndex({
      root: join(site.root, m.build.contentDir),
      mode: 'source',
      out: sourceDir,
      config,
      docpilotVersion: 'bench',
      exclude: [...(config.docs.exclude ?? []), 'node_modules/**', '.vitepress/**'],
    })
    const source = await figures(site.outDir, await indexChunks(sourceDir))
    source.indexSeconds = (performance.now() - started) / 1000
    if (questions.length) source.recall = await recall(sourceDir, questions)
    return { site: m.site, framework: m.build.name, buildSeconds: site.ms / 1000, html, source }
  } finally {
    await site.remove()
  }
}

const pct = (n: number) => `${(n * 100).toFixed(1)}%`
const fixed = (n: number | undefined) => (n === undefined ? '–' : n.toFixed(3))

async function main() {
  const { values } = parseArgs({ options: { only: { type: 'string', multiple: true } } })
  const only = values.only?.flatMap((o) => o.split(','))
  const rows = []
  for (const m of SITES.filter((s) => !only || only.includes(s.site))) {
    console.error(`${m.site}: building with ${m.build.name} and indexing both ways...`)
    rows.push(await measure(m))
  }
  const lines = [
    '| site (framework) | index from | chunks | url#anchor exists | R@1 | R@8 | MRR@8 |',
    '|---|---|---:|---:|---:|---:|---:|',
    ...rows.flatMap((r) =>
      (['html', 'source'] as const).map((from) => {
        const f = r[from]
        return `| ${r.site} (${r.framework}) | ${from === 'html' ? 'built HTML' : 'sources'} | ${f.chunks} | ${pct(f.anchorsExact)} (${f.missing.length} missing) | ${fixed(f.recall?.r1)} | ${fixed(f.recall?.r8)} | ${fixed(f.recall?.mrr)} |`
      }),
    ),
  ]
  console.log(lines.join('\n'))
  for (const r of rows) {
    for (const from of ['html', 'source'] as const) {
      const missing = r[from].missing
      if (missing.length) console.log(`\n${r.site}, ${from}: ${missing.length} targets missing, e.g.\n  ${missing.slice(0, 5).join('\n  ')}`)
    }
  }
  const out = join(import.meta.dirname, 'results')
  await mkdir(out, { recursive: true })
  await writeFile(join(out, 'integrations.json'), JSON.stringify(rows, null, 2))
}

await main()
