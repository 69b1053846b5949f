/**
 * Bundles the `docpilot` command into dist/bin/ (run by `npm run build:node`;
 * the options and why are in cli-bundle.ts).
 *
 * The tsc output in dist/ stays: the framework integrations and the Worker
 * import those modules, and the type declarations come from it.
 */
import { build } from 'esbuild'
import { rmSync } from 'node:fs'
import { resolve } from 'node:path'
import { cliBundleOptions } from './cli-bundle.ts'

const OUT_DIR = resolve(import.meta.dirname, '../dist/bin')

rmSync(OUT_DIR, { recursive: true, force: true })
for (const options of cliBundleOptions(OUT_DIR)) await build(options)
