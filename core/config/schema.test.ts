import { build } from 'esbuild'
import { resolve } from 'node:path'
import { describe, expect, it } from 'vitest'

describe('the config schema, bundled', () => {
  // Every `docpilot` command parses the bundle that holds the schema at start
  // (scripts/build-cli.ts): zod's other locales would be most of its bytes.
  it('carries zod with its English messages only', async () => {
    const out = await build({
      entryPoints: [resolve(import.meta.dirname, 'validate.ts')],
      bundle: true,
      format: 'esm',
      platform: 'node',
      write: false,
      logLevel: 'silent',
    })
    const code = out.outputFiles[0]!.text
    expect(code).toMatch(/zod\/v4\/locales\/en\.js/)
    expect(code).not.toMatch(/zod\/v4\/locales\/(?!en\.js)[\w-]+\.js/)
  })
})
