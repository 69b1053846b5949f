import { execFile } from 'node:child_process'
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { promisify } from 'node:util'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { SHORT_RUN_FLAGS } from './tiering.ts'

const ROOT = resolve(import.meta.dirname, '..')

describe('the V8 flags of a short run', () => {
  let dir: string
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'docpilot-tiering-'))
  })
  afterAll(() => rm(dir, { recursive: true, force: true }))

  /**
   * Node as an installed docpilot starts: bin/docpilot.cjs requires the launcher from its package (Node's loader
   * runs its patterns on the path and the package's package.json), the launcher sets the flags, and `docpilot mcp`
   * then requires an ES module package.
   */
  async function runAfterLoading(flags: readonly string[]): Promise<{ code: number | null; stdout: string }> {
    const pkg = join(dir, 'node_modules/pkg')
    await mkdir(join(pkg, 'dist'), { recursive: true })
    await writeFile(join(pkg, 'package.json'), JSON.stringify({ name: 'pkg', type: 'module', exports: { './dist/launch.cjs': './dist/launch.cjs' } }))
    await writeFile(join(pkg, 'dist/launch.cjs'), 'module.exports = 1\n')
    const entry = join(dir, 'entry.cjs')
    await writeFile(
      entry,
      `require('./node_modules/pkg/dist/launch.cjs')\n` +
        `for (const flag of ${JSON.stringify(flags)}) require('node:v8').setFlagsFromString(flag)\n` +
        `require(require.resolve('@modelcontextprotocol/server/stdio', { paths: [${JSON.stringify(ROOT)}] }))\n` +
        `console.log('ran')\n`,
    )
    return promisify(execFile)(process.execPath, [entry]).then(
      ({ stdout }) => ({ code: 0, stdout }),
      (error: { code: number | null; stdout: string }) => ({ code: error.code, stdout: error.stdout }),
    )
  }

  it("leave Node's own patterns that ran before them working (turning regexp tier-up off at run time crashed Node in the next one it ran)", async () => {
    expect(await runAfterLoading(SHORT_RUN_FLAGS)).toEqual({ code: 0, stdout: 'ran\n' })
  }, 30_000)
})
