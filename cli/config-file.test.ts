import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { loadConfig } from './config-file.ts'
import { ConfigSchema } from '../core/config/schema.ts'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'docpilot-config-'))
})
afterEach(() => rm(dir, { recursive: true, force: true }))

describe('loadConfig', () => {
  it('uses defaults when the working directory has no config', async () => {
    const loaded = await loadConfig({ cwd: dir })
    expect(loaded.file).toBeNull()
    expect(loaded.config.anchors.slugger).toBe('github')
  })

  it('loads docpilot.config.ts from the working directory', async () => {
    await writeFile(join(dir, 'docpilot.config.ts'), `const slugger: 'vitepress' = 'vitepress'\nexport default { anchors: { slugger }, out: 'public/idx' }\n`)
    const loaded = await loadConfig({ cwd: dir })
    expect(loaded.file).toBe(join(dir, 'docpilot.config.ts'))
    expect(loaded.config.anchors.slugger).toBe('vitepress')
    expect(loaded.dir).toBe(dir)
  })

  it("loads a docpilot.config.ts that types itself with the package's defineConfig", async () => {
    const entry = join(import.meta.dirname, '../core/config/define.ts')
    await writeFile(join(dir, 'docpilot.config.ts'), `import { defineConfig } from ${JSON.stringify(entry)}\nexport default defineConfig({ anchors: { slugger: 'starlight' } })\n`)
    expect((await loadConfig({ cwd: dir })).config.anchors.slugger).toBe('starlight')
    await writeFile(join(dir, 'docpilot.config.ts'), `import { defineConfig } from ${JSON.stringify(entry)}\nexport default defineConfig(async () => ({ out: 'public/idx' }))\n`)
    expect((await loadConfig({ cwd: dir })).config.out).toBe('public/idx')
  })

  it('loads a JSON config named with --config and names it in errors', async () => {
    await writeFile(join(dir, 'site.json'), JSON.stringify({ chat: { chain: 'yes' } }))
    await expect(loadConfig({ cwd: dir, explicit: 'site.json' })).rejects.toThrow(
      `Invalid config site.json: chat.chain must be false, 'auto' or an array of providers (got "yes")`,
    )
  })

  it('takes a JSON config\'s "$schema" (an editor\'s, not a setting) and refuses one that is not a string, naming the file', async () => {
    await writeFile(join(dir, 'docpilot.config.json'), JSON.stringify({ $schema: './node_modules/docpilot/dist/config.schema.json', out: 'public/idx' }))
    const loaded = await loadConfig({ cwd: dir })
    expect(loaded.config.out).toBe('public/idx')
    expect(loaded.config).not.toHaveProperty('$schema')
    await writeFile(join(dir, 'docpilot.config.json'), JSON.stringify({ $schema: 42 }))
    await expect(loadConfig({ cwd: dir })).rejects.toThrow('Invalid config docpilot.config.json: $schema must be a string, the URL or path of the JSON schema your editor reads (got 42); or remove it')
    // Only JSON needs it: a JavaScript config has its types, and a stray $schema there is an unknown setting as before.
    await rm(join(dir, 'docpilot.config.json'))
    await writeFile(join(dir, 'docpilot.config.mjs'), `export default { $schema: 'x' }\n`)
    await expect(loadConfig({ cwd: dir })).rejects.toThrow(/\$schema is not a known setting/)
  })

  it('reports broken JSON, a missing --config file, and two configs at once', async () => {
    await writeFile(join(dir, 'docpilot.config.json'), '{\n  "out": ,\n}\n')
    await expect(loadConfig({ cwd: dir })).rejects.toThrow(/^Invalid config docpilot.config.json:2:10: not valid JSON: Unexpected token Comma/)
    await expect(loadConfig({ cwd: dir, explicit: 'nope.ts' })).rejects.toThrow('Invalid config nope.ts: the file does not exist')
    await writeFile(join(dir, 'docpilot.config.mjs'), 'export default {}')
    await expect(loadConfig({ cwd: dir })).rejects.toThrow(/found docpilot.config.mjs and docpilot.config.json/)
  })

  it('asks for a default export', async () => {
    await writeFile(join(dir, 'docpilot.config.mjs'), 'export const config = {}')
    await expect(loadConfig({ cwd: dir })).rejects.toThrow('the file has no default export')
  })

  it('asks for an export when a CommonJS file assigns none, rather than running on defaults; `module.exports = {}` is all defaults', async () => {
    await writeFile(join(dir, 'package.json'), '{"type":"commonjs"}')
    await writeFile(join(dir, 'docpilot.config.js'), 'const config = { docs: { dir: "docs" } }\n')
    await expect(loadConfig({ cwd: dir })).rejects.toThrow('Invalid config docpilot.config.js: the file has no default export')
    await writeFile(join(dir, 'docpilot.config.js'), 'module.exports = {}\n')
    expect((await loadConfig({ cwd: dir })).config.out).toBe(ConfigSchema.parse({}).out)
  })

  it('names the unknown field when CommonJS exports something else than a config', async () => {
    await writeFile(join(dir, 'package.json'), '{"type":"commonjs"}')
    await writeFile(join(dir, 'docpilot.config.js'), 'exports.config = { out: "x" }')
    await expect(loadConfig({ cwd: dir })).rejects.toThrow(/^Invalid config docpilot.config.js: config/)
  })
})

/** The same config in each syntax docpilot accepts: ESM and CommonJS, with and without types. */
const SOURCES: Record<string, string> = {
  ts: `const slugger: 'vitepress' = 'vitepress'\nexport default { anchors: { slugger } }\n`,
  mts: `const slugger: 'vitepress' = 'vitepress'\nexport default { anchors: { slugger } }\n`,
  cts: `const slugger: 'vitepress' = 'vitepress'\nmodule.exports = { anchors: { slugger } }\n`,
  mjs: `export default async () => ({ anchors: { slugger: 'vitepress' } })\n`,
  cjs: `module.exports = { anchors: { slugger: 'vitepress' } }\n`,
  json: `{ "anchors": { "slugger": "vitepress" } }\n`,
}

for (const type of ['commonjs', 'module'] as const) {
  describe(`in a project whose package.json says "type": "${type}"`, () => {
    beforeEach(() => writeFile(join(dir, 'package.json'), JSON.stringify({ name: 'site', type })))

    for (const [ext, source] of Object.entries(SOURCES)) {
      it(`loads docpilot.config.${ext}`, async () => {
        await writeFile(join(dir, `docpilot.config.${ext}`), source)
        const loaded = await loadConfig({ cwd: dir })
        expect(loaded.file).toBe(join(dir, `docpilot.config.${ext}`))
        expect(loaded.config.anchors.slugger).toBe('vitepress')
      })
    }

    it('loads docpilot.config.js written as ESM or as CommonJS', async () => {
      await writeFile(join(dir, 'esm.config.js'), `export default { anchors: { slugger: 'vitepress' } }\n`)
      expect((await loadConfig({ cwd: dir, explicit: 'esm.config.js' })).config.anchors.slugger).toBe('vitepress')
      await writeFile(join(dir, 'cjs.config.js'), `module.exports = { anchors: { slugger: 'starlight' } }\n`)
      expect((await loadConfig({ cwd: dir, explicit: 'cjs.config.js' })).config.anchors.slugger).toBe('starlight')
    })

    it('names the file, line and column of a syntax error, the column counted from 1 as editors do', async () => {
      for (const ext of ['ts', 'cjs', 'mjs']) {
        await rm(join(dir, `docpilot.config.${ext === 'ts' ? 'cjs' : 'ts'}`), { force: true })
        // The second comma is the 12th character of line 2, where Node's own error points too.
        await writeFile(join(dir, `docpilot.config.${ext}`), `const config = {\n  out: 'a',,\n}\nexport default config\n`)
        await expect(loadConfig({ cwd: dir, explicit: `docpilot.config.${ext}` })).rejects.toThrow(
          new RegExp(`^Invalid config docpilot\\.config\\.${ext}:2:12: syntax error: Unexpected token`),
        )
      }
    })
  })
}

describe('a config that fails when it runs', () => {
  it('says what it threw, or which import is missing', async () => {
    await writeFile(join(dir, 'docpilot.config.ts'), `throw new Error('no docs today')\nexport default {}\n`)
    await expect(loadConfig({ cwd: dir })).rejects.toThrow('Invalid config docpilot.config.ts: running it failed: no docs today')
    await writeFile(join(dir, 'docpilot.config.ts'), `import theme from 'no-such-theme'\nexport default { theme }\n`)
    await expect(loadConfig({ cwd: dir })).rejects.toThrow('Invalid config docpilot.config.ts: it imports "no-such-theme", which is not installed here')
  })

  it('names the file when its exported function throws or rejects', async () => {
    await writeFile(join(dir, 'docpilot.config.mjs'), `export default async () => { throw new Error('no docs today') }
`)
    await expect(loadConfig({ cwd: dir })).rejects.toThrow('Invalid config docpilot.config.mjs: running it failed: no docs today')
  })

  it('says a relative import is a missing file, not a package to install', async () => {
    await writeFile(join(dir, 'docpilot.config.ts'), `import shared from './shared-config'
export default { ...shared }
`)
    await expect(loadConfig({ cwd: dir })).rejects.toThrow('Invalid config docpilot.config.ts: it imports "./shared-config", which does not exist; check the path (relative to the file that imports it)')
  })
})
