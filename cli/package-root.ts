/**
 * The package's own folder (the one holding its package.json), found the same
 * way from the sources (cli/), from the compiled code (dist/cli/) and from the
 * bundled CLI (dist/bin/), which sit at different depths below it.
 */
import { existsSync, readFileSync } from 'node:fs'
import { dirname, isAbsolute, join, relative } from 'node:path'
import { fileURLToPath, pathToFileURL } from 'node:url'

function packageRoot(from: string): string {
  for (let dir = from; ; dir = dirname(dir)) {
    if (existsSync(join(dir, 'package.json'))) return dir
    if (dirname(dir) === dir) throw new Error(`docpilot cannot find its package.json above ${from}; reinstall docpilot`)
  }
}

export const PACKAGE_ROOT = packageRoot(dirname(fileURLToPath(import.meta.url)))

/**
 * True when the CLI runs from its TypeScript sources (a checkout of the
 * repository), false when it runs the compiled JavaScript an npm install has.
 * Only a checkout can rebuild the widget: it has the widget's sources and Vite.
 */
export const FROM_SOURCES = import.meta.url.endsWith('.ts')

/** The version in the package's package.json (what `--version` prints and manifests record). */
export const PACKAGE_VERSION = (JSON.parse(readFileSync(join(PACKAGE_ROOT, 'package.json'), 'utf8')) as { version: string }).version

/**
 * The committed offline default model, for code that runs in Node (the CLI,
 * tests, benchmarks): models/ in a checkout, dist/models/ in an installed
 * package (`build:node` copies it there). Found from the package root rather
 * than from this module's own URL, because the bundled CLI sits at another
 * depth than the compiled modules. Browser code gets the same files from the
 * index folder, content-addressed, and never imports this.
 */
export const DEFAULT_MODEL_DIR = pathToFileURL(join(PACKAGE_ROOT, FROM_SOURCES ? '' : 'dist', 'models', 'default-en') + '/')

/**
 * One of docpilot's own documentation pages, as the owner can open it from `cwd`:
 * node_modules/docpilot/docs/agents.md in their project. A bare "docs/agents.md"
 * named a file of their own docs folder, which it is not.
 */
export function docsPage(cwd: string, name: string): string {
  const file = join(PACKAGE_ROOT, 'docs', name)
  const rel = relative(cwd, file)
  return rel && !rel.startsWith('..') && !isAbsolute(rel) ? rel : file
}
