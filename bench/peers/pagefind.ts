/**
 * Pagefind 1.6 as a peer, built the way a site runs it: the `pagefind` CLI
 * (the binary the npm package ships) over a folder of built HTML pages.
 * The pages are docpilot's own chunks rendered to HTML (bench/render-html.ts),
 * so both tools index the same text under the same heading ids.
 */
import { mkdir, rm, writeFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { runBuildCommand } from '../build-command.ts'
import type { Timing } from '../cpu-time.ts'
import type { RenderedPage } from '../render-html.ts'

/** The CLI entry of the installed `pagefind` package (resolves its platform binary offline). */
export function pagefindBin(): string {
  // The package exports only its ESM entry (lib/index.js); the runner sits beside it.
  return join(dirname(fileURLToPath(import.meta.resolve('pagefind'))), 'runner/bin.cjs')
}

export async function writeSite(pages: RenderedPage[], siteDir: string): Promise<void> {
  await rm(siteDir, { recursive: true, force: true })
  for (const p of pages) {
    const file = join(siteDir, p.file)
    await mkdir(dirname(file), { recursive: true })
    await writeFile(file, p.html)
  }
}

/** Runs `pagefind --site SITE --output-path OUT`; resolves with its wall and CPU time. */
export async function buildPagefind(siteDir: string, outDir: string): Promise<Timing> {
  await rm(outDir, { recursive: true, force: true })
  return runBuildCommand('pagefind', [pagefindBin(), '--site', siteDir, '--output-path', outDir, '--quiet'])
}

/**
 * Which Pagefind output files are the search index, which are the search
 * runtime (what its browser API loads), and which are optional UI bundles
 * and the unused language-neutral wasm; not counted.
 */
export function pagefindFileRole(rel: string): 'index' | 'runtime' | 'other' {
  const name = rel.split('/').pop()!
  if (/^pagefind(-worker)?\.js$/.test(name) || /^wasm\.en\.pagefind$/.test(name)) return 'runtime'
  if (/(-ui\.|highlight|^wasm\.)/.test(name)) return 'other'
  return 'index'
}
