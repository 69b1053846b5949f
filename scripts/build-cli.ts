/**
 * Bundles the `docpilot` command into dist/bin/ (run by `npm run build:node`).
 *
 * Compiled by tsc alone, one `docpilot index` loads about 190 modules (95 of
 * them zod's), and Node resolves, reads and compiles each: about a third of a
 * second of CPU before any work, paid by every build and re-index. The bundle
 * is one entry per command plus shared chunks (each command's code still
 * loads only when that command runs), and the parse thread's own entry beside
 * them, where indexer/parse-pool.ts looks for it.
 *
 * The tsc output in dist/ stays: the framework integrations and the Worker
 * import those modules, and the type declarations come from it.
 */
import { build } from 'esbuild'
import { rmSync } from 'node:fs'
import { resolve } from 'node:path'

const ROOT = resolve(import.meta.dirname, '..')
const OUT_DIR = resolve(ROOT, 'dist/bin')

/**
 * Left to Node at run time: packages with native or WebAssembly parts, or that
 * load code themselves (jiti compiles config files), or that only a checkout has.
 */
const EXTERNAL = ['onnxruntime-node', 'onnxruntime-web', 'jiti', 'better-sqlite3', 'tsx', 'vite', 'playwright-core', '@playwright/test']

rmSync(OUT_DIR, { recursive: true, force: true })
await build({
  absWorkingDir: ROOT,
  entryPoints: { main: 'cli/main.ts', 'parse-worker': 'indexer/parse-worker.ts' },
  outdir: OUT_DIR,
  bundle: true,
  splitting: true,
  format: 'esm',
  platform: 'node',
  target: 'node20',
  external: EXTERNAL,
  // Some bundled dependencies are CommonJS and require Node's built-in
  // modules; an ES module has no `require` of its own to give them.
  banner: { js: "import { createRequire as __docpilotCreateRequire } from 'node:module'; const require = __docpilotCreateRequire(import.meta.url);" },
  chunkNames: 'chunk-[hash]',
  legalComments: 'eof',
  logLevel: 'warning',
})
