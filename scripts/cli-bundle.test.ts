import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { build, type Metafile } from 'esbuild'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { cliBundleOptions } from './cli-bundle.ts'

describe('the CLI bundle', () => {
  let dir: string
  let metafile: Metafile
  let chunks: string[]

  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'docpilot-bundle-'))
    metafile = (await build({ ...cliBundleOptions(dir), metafile: true })).metafile
    chunks = await Promise.all((await readdir(dir)).map((name) => readFile(join(dir, name), 'utf8')))
  }, 60_000)
  afterAll(() => rm(dir, { recursive: true, force: true }))

  it('holds no fflate: Node gunzips with zlib, without building fflate\'s tables at each start', () => {
    expect(Object.keys(metafile.inputs).filter((path) => path.includes('node_modules/fflate/'))).toEqual([])
    expect(Object.keys(metafile.inputs)).toContain('scripts/node-gunzip.ts')
  })

  it('gives fdir the bundled picomatch instead of loading a second copy through require() at each start', () => {
    expect(Object.keys(metafile.inputs).some((path) => path.includes('node_modules/fdir/'))).toBe(true)
    expect(chunks.filter((text) => /__require\(\s*"picomatch"\s*\)/.test(text))).toEqual([])
  })
})
