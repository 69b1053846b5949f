/**
 * What `docpilot` runs in an installed package (bin/docpilot.cjs; a checkout
 * runs the TypeScript sources instead): the bundled command, dist/bin/main.cjs,
 * compiled from V8's code cache of the command's earlier runs (code-cache.ts).
 */
import { fileURLToPath } from 'node:url'
import { defaultCacheDir } from '../indexer/cache-dir.ts'
import { loadBundle } from './code-cache.ts'
import { tuneTieringForShortRuns } from './tiering.ts'

type Main = { main: (argv: string[]) => Promise<number> }

export async function launch(argv: string[]): Promise<number> {
  // V8 accepts a code cache only under the flags it was made with: main() sets these too, but after the bundle is compiled.
  tuneTieringForShortRuns()
  const bundle = await loadBundle<Main>(fileURLToPath(new URL('../bin/main.cjs', import.meta.url)), {
    cacheDir: defaultCacheDir(process.cwd(), process.env),
    command: argv[0] ?? '',
  })
  const code = await bundle.exports.main(argv)
  await bundle.save()
  return code
}
