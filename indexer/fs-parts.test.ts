import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { PartMissingError, readRange } from '../core/index/parts.ts'
import { fsPartLoader, fsPartLoaderSync } from './fs-parts.ts'

let dir: string
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'docpilot-fs-parts-'))
  await writeFile(join(dir, 'a.bin'), Uint8Array.from([1, 2, 3, 4, 5]))
})
afterEach(() => rm(dir, { recursive: true, force: true }))

describe.each([
  ['fsPartLoader', fsPartLoader],
  ['fsPartLoaderSync', fsPartLoaderSync],
])('%s', (_, loaderOf) => {
  it('reads a part whole and by range; a range past the end gives what the part has', async () => {
    const loader = loaderOf(dir)
    expect([...(await loader.bytes('a.bin'))]).toEqual([1, 2, 3, 4, 5])
    expect([...(await readRange(loader, 'a.bin', 1, 3))]).toEqual([2, 3])
    expect([...(await readRange(loader, 'a.bin', 3, 10))]).toEqual([4, 5])
  })

  it('names a missing part in a rejected promise', async () => {
    const loader = loaderOf(dir)
    await expect(loader.bytes('gone.bin')).rejects.toThrow(PartMissingError)
    await expect(readRange(loader, 'gone.bin', 0, 2)).rejects.toThrow(/gone\.bin/)
  })
})
