/**
 * The package's own folder (the one holding its package.json), found the same
 * way from the sources (cli/) and from the compiled code (dist/cli/), which
 * sit at different depths below it.
 */
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join } from 'node:path'
import { fileURLToPath } from 'node:url'

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
