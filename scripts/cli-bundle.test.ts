import { isAscii } from 'node:buffer'
import { execFile } from 'node:child_process'
import { copyFile, mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { createRequire } from 'node:module'
import { dirname, join } from 'node:path'
import { promisify } from 'node:util'
import { build, type Metafile } from 'esbuild'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { asciiOutput, cliBundleOptions } from './cli-bundle.ts'

describe('the CLI bundle', () => {
  let dir: string
  let inputs: string[]
  let graph: Metafile['inputs']
  let files: Record<string, string>

  beforeAll(async () => {
    // Laid out as in the package: the bundle finds the package root above it.
    const root = await mkdtemp(join(tmpdir(), 'docpilot-bundle-'))
    await copyFile(join(import.meta.dirname, '../package.json'), join(root, 'package.json'))
    dir = join(root, 'dist/bin')
    const metafiles: Metafile[] = []
    for (const options of cliBundleOptions(dir)) metafiles.push((await build({ ...options, metafile: true })).metafile)
    inputs = metafiles.flatMap((m) => Object.keys(m.inputs))
    graph = Object.assign({}, ...metafiles.map((m) => m.inputs)) as Metafile['inputs']
    files = Object.fromEntries(await Promise.all((await readdir(dir)).map(async (name) => [name, await readFile(join(dir, name), 'utf8')] as const)))
  }, 60_000)
  afterAll(() => rm(join(dir, '../..'), { recursive: true, force: true }))

  it('loads no zod for a build, a query or an eval: a config validated before comes from cli/config-memo.ts', () => {
    // What a command's module loads as it starts: its static imports, and theirs (a type-only import is erased).
    const loadedBy = (entry: string): Set<string> => {
      const seen = new Set([entry])
      for (const file of seen) for (const { path, kind } of graph[file]?.imports ?? []) if (kind === 'import-statement') seen.add(path)
      return seen
    }
    for (const command of ['index', 'query', 'eval', 'widget']) {
      const loaded = [...loadedBy(`cli/commands/${command}.ts`)]
      expect(loaded.length, command).toBeGreaterThan(10)
      expect(loaded.filter((path) => path.includes('node_modules/zod/') || path === 'core/config/schema.ts'), command).toEqual([])
    }
  })

  it('holds no fflate: Node gunzips with zlib, without building fflate\'s tables at each start', () => {
    expect(inputs.filter((path) => path.includes('node_modules/fflate/'))).toEqual([])
    expect(inputs).toContain('scripts/node-gunzip.ts')
  })

  it('gives fdir the bundled picomatch instead of loading a second copy through require() at each start', () => {
    expect(inputs.some((path) => path.includes('node_modules/fdir/'))).toBe(true)
    expect(Object.values(files).filter((text) => /\b(?:__)?require\(\s*"picomatch"\s*\)/.test(text))).toEqual([])
  })

  it('is one CommonJS script for the commands (what a code cache can hold), started by a one-module launcher; the parse thread is an ES module', async () => {
    expect(Object.keys(files).sort()).toEqual(['launch.cjs', 'main.cjs', 'parse-worker.js'])
    // The launcher is one CommonJS module that loads only Node's own before the bundle.
    const launcherLoads = [...files['launch.cjs']!.matchAll(/\brequire\(\s*["']([^"']+)["']\s*\)/g)].map((m) => m[1]!)
    expect(launcherLoads).toContain('node:vm')
    expect(launcherLoads.filter((spec) => !spec.startsWith('node:'))).toEqual([])
    expect(files['launch.cjs']).toMatch(/^'use strict';\n/)
    expect(files['launch.cjs']).not.toMatch(/^import\b/m)
    const main = createRequire(import.meta.url)(join(dir, 'main.cjs')) as { main?: unknown; COMMANDS?: Record<string, unknown> }
    expect(typeof main.main).toBe('function')
    expect(Object.keys(main.COMMANDS ?? {})).toContain('index')
    // import.meta.url is the script's own URL: the parse thread's file and the package root are found from it.
    expect(files['main.cjs']).not.toMatch(/\bimport[._]meta\b/)
    // Strict, as the ES modules it is built from: the directive must open the script.
    expect(files['main.cjs']).toMatch(/^'use strict';\n/)
    // vm.Script runs no import() without an experimental Node option (cli/code-cache.ts): packages left outside are required.
    expect(files['main.cjs']).not.toMatch(/(?<![.\w])import\("/)
    expect(files['main.cjs']).toMatch(/require\("jiti"\)/)
    expect(files['parse-worker.js']).toMatch(/^import /m)
  })

  it("loads neither child_process nor worker_threads at start: commander's spawn and the parse thread load theirs when used", async () => {
    const probe = `const before = new Set(process.moduleLoadList); require(${JSON.stringify(join(dir, 'main.cjs'))}); console.log(JSON.stringify(process.moduleLoadList.filter((m) => !before.has(m))))`
    const { stdout } = await promisify(execFile)(process.execPath, ['-e', probe])
    const loaded = JSON.parse(stdout) as string[]
    expect(loaded).toContain('NativeModule crypto')
    expect(loaded.filter((m) => /\b(?:child_process|worker_threads)$/.test(m))).toEqual([])
  })

  it("runs a command from the package's bin without starting Node's ES module loader (bin and launcher are CommonJS)", async () => {
    const bin = join(dir, '../../bin/docpilot.cjs')
    await mkdir(dirname(bin), { recursive: true })
    await copyFile(join(import.meta.dirname, '../bin/docpilot.cjs'), bin)
    const probe = join(dir, '../../loaded.cjs')
    await writeFile(probe, `process.on('exit', () => process.stderr.write(JSON.stringify(process.moduleLoadList)))`)
    const { stdout, stderr } = await promisify(execFile)(process.execPath, ['--require', probe, bin, '--version'])
    expect(stdout.trim()).toBe((JSON.parse(await readFile(join(dir, '../../package.json'), 'utf8')) as { version: string }).version)
    const loaded = JSON.parse(stderr) as string[]
    expect(loaded).toContain('NativeModule vm')
    expect(loaded.filter((m) => /modules\/esm\/(?:module_job|translators)$/.test(m))).toEqual([])
  })

  it('is ASCII throughout (the launcher copies ASCII instead of decoding UTF-8)', () => {
    for (const [name, text] of Object.entries(files)) expect(isAscii(Buffer.from(text)), name).toBe(true)
  })

  it('writes in ASCII what sources write in other characters, meaning the same: comments, patterns, strings', async () => {
    const src = join(dir, '../../ascii-entry.js')
    await writeFile(src, "// a comment \u2014 with a dash\nexport const pilcrow = /[\u200b#\u00b6]+$/u.test('Title \u00b6')\nexport const rocket = /\u{1f680}x/u.test('go \u{1f680}x')\nexport const text = '\u00e9 \u2014 \u{1f680}'\n")
    const out = join(dir, '../../ascii-out.cjs')
    await build({ entryPoints: [src], outfile: out, bundle: true, format: 'cjs', platform: 'node', write: false, logLevel: 'silent', plugins: [asciiOutput] })
    const written = await readFile(out)
    expect(isAscii(written)).toBe(true)
    expect(createRequire(import.meta.url)(out)).toEqual({ pilcrow: true, rocket: true, text: '\u00e9 \u2014 \u{1f680}' })
    // A character escaped in a pattern would become a backslash and a "u": the build stops there.
    await writeFile(src, "export const escaped = /\\\u00e9/.test('\u00e9')\n")
    await expect(build({ entryPoints: [src], outfile: out, bundle: true, format: 'cjs', platform: 'node', write: false, logLevel: 'silent', plugins: [asciiOutput] })).rejects.toThrow(/cannot be written in ASCII/)
  })
})
