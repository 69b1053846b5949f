import { execFile, spawnSync } from 'node:child_process'
import { existsSync } from 'node:fs'
import { mkdir, mkdtemp, readdir, readFile, rm, utimes, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { promisify } from 'node:util'
import { crc32 } from 'node:zlib'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'

const ROOT = resolve(import.meta.dirname, '..')

/**
 * Each run is its own process, as each docpilot command is: within one
 * process V8 finds a script it compiled before in memory and never reads the
 * cached data, so an in-process test could not tell a used cache from none.
 */
async function run(file: string, cacheDir: string, env: NodeJS.ProcessEnv = {}): Promise<{ cache: string; value: unknown }> {
  const driver = `
    const { loadBundle } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'cli/code-cache.ts')).href)})
    const bundle = await loadBundle(${JSON.stringify(file)}, { cacheDir: ${JSON.stringify(cacheDir)}, command: 'index' })
    await bundle.save()
    console.log(JSON.stringify({ cache: bundle.cache, value: bundle.exports.value }))`
  const { stdout } = await promisify(execFile)(process.execPath, ['--import', 'tsx', '--input-type=module', '-e', driver], { cwd: ROOT, env: { ...process.env, ...env } })
  return JSON.parse(stdout) as { cache: string; value: unknown }
}

describe('the CLI code cache', () => {
  let dir: string
  let file: string
  let cacheDir: string
  const cacheFiles = async () => (existsSync(join(cacheDir, 'code')) ? readdir(join(cacheDir, 'code')) : [])
  const generation = async () => (await readFile(join(cacheDir, 'code', (await cacheFiles())[0]!)))[0]

  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'docpilot-code-cache-'))
    file = join(dir, 'main.cjs')
    cacheDir = join(dir, 'cache')
    await writeFile(file, `const words = ['a', 'b'].map((w) => w.toUpperCase())\nmodule.exports = { value: words.join('') }\n`)
  })
  afterEach(() => rm(dir, { recursive: true, force: true }))

  it("compiles a command from its earlier runs' cache: saved by the first run, again by the second, then only read", async () => {
    await mkdir(cacheDir)
    expect(await run(file, cacheDir)).toEqual({ cache: 'none', value: 'AB' })
    expect(await cacheFiles()).toEqual([expect.stringMatching(/^index\.[0-9a-f]{16}\.bin$/)])
    expect(await generation()).toBe(1)
    expect(await run(file, cacheDir)).toEqual({ cache: 'accepted', value: 'AB' })
    expect(await generation()).toBe(2)
    const saved = await readFile(join(cacheDir, 'code', (await cacheFiles())[0]!))
    expect(await run(file, cacheDir)).toEqual({ cache: 'accepted', value: 'AB' })
    expect(await readFile(join(cacheDir, 'code', (await cacheFiles())[0]!))).toEqual(saved)
  }, 30_000)

  it('never runs a cache made from other bytes, even of the same length (V8 checks only the length)', async () => {
    await mkdir(cacheDir)
    await run(file, cacheDir)
    await writeFile(file, `const words = ['c', 'd'].map((w) => w.toUpperCase())\nmodule.exports = { value: words.join('') }\n`)
    expect(await run(file, cacheDir)).toEqual({ cache: 'none', value: 'CD' })
    // The earlier bytes' cache is pruned only when many are kept; this run's is its own file.
    expect(await cacheFiles()).toHaveLength(2)
  }, 30_000)

  it("removes the cache write a killed run left unfinished, once a run saves", async () => {
    await mkdir(join(cacheDir, 'code'), { recursive: true })
    const dead = spawnSync(process.execPath, ['-e', '0']).pid
    const left = `index.0123456789abcdef.bin.${dead}.tmp`
    await writeFile(join(cacheDir, 'code', left), 'half a cache')
    await utimes(join(cacheDir, 'code', left), 500, 500)
    await run(file, cacheDir)
    expect(await cacheFiles()).toEqual([expect.stringMatching(/^index\.[0-9a-f]{16}\.bin$/)])
  }, 30_000)

  /** A first run's cache file, edited in place. */
  async function editCache(edit: (bytes: Buffer) => void): Promise<void> {
    await mkdir(cacheDir)
    await run(file, cacheDir)
    const path = join(cacheDir, 'code', (await cacheFiles())[0]!)
    const bytes = await readFile(path)
    edit(bytes)
    await writeFile(path, bytes)
  }

  it('never hands V8 damaged code (V8 checks only its header): the cache is made again and the script runs as written', async () => {
    await editCache((bytes) => {
      // Past the file's head (5 bytes) and V8's own header: bytes V8 would take as code.
      for (let i = 200; i < bytes.length; i += 97) bytes[i]! ^= 0x5a
    })
    expect(await run(file, cacheDir)).toEqual({ cache: 'rejected', value: 'AB' })
    expect(await generation()).toBe(1)
    expect(await run(file, cacheDir)).toEqual({ cache: 'accepted', value: 'AB' })
  }, 30_000)

  it("makes again a cache V8 itself refuses (its header names other source bytes)", async () => {
    await editCache((bytes) => {
      // V8's header starts after the file's head; its source-length field is among its first words. The CRC is made to match.
      bytes.fill(7, 5 + 8, 5 + 16)
      bytes.writeUInt32LE(crc32(bytes.subarray(5)), 1)
    })
    expect(await run(file, cacheDir)).toEqual({ cache: 'rejected', value: 'AB' })
    expect(await generation()).toBe(1)
  }, 30_000)

  it('runs a script that is not ASCII as written (decoded as UTF-8, where an ASCII one is copied as Latin-1)', async () => {
    await writeFile(file, `// \u00e9t\u00e9 \u2014 a comment\nmodule.exports = { value: ['\u00e9', '\u2014', '\u{1faa6}'].join('').length + ':' + 'caf\u00e9'.normalize('NFD').length }\n`)
    await mkdir(cacheDir)
    expect(await run(file, cacheDir)).toEqual({ cache: 'none', value: '4:5' })
    expect(await run(file, cacheDir)).toEqual({ cache: 'accepted', value: '4:5' })
  }, 30_000)

  it('writes nothing where there is no cache folder, or with NODE_DISABLE_COMPILE_CACHE set', async () => {
    expect(await run(file, cacheDir)).toEqual({ cache: 'none', value: 'AB' })
    expect(existsSync(cacheDir)).toBe(false)
    await mkdir(cacheDir)
    expect(await run(file, cacheDir, { NODE_DISABLE_COMPILE_CACHE: '1' })).toEqual({ cache: 'none', value: 'AB' })
    expect(await cacheFiles()).toEqual([])
  }, 30_000)
})
