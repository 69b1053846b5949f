import { readdirSync, readFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { tempDirs } from '../fixtures/temp-dirs.ts'
import { cacheFile, replaceFile } from './cache-file.ts'

const temp = tempDirs('docpilot-cache-file-')

describe('cache files', () => {
  it('names a cache file by a 16-hex digest of its key, in the folder of its kind', () => {
    expect(cacheFile('/c', 'pages', 'a key', '.jsonl')).toMatch(/^\/c\/pages\/[0-9a-f]{16}\.jsonl$/)
    expect(cacheFile('/c', 'pages', 'a key', '.jsonl')).toBe(cacheFile('/c', 'pages', 'a key', '.jsonl'))
    expect(cacheFile('/c', 'pages', 'another key', '.jsonl')).not.toBe(cacheFile('/c', 'pages', 'a key', '.jsonl'))
  })

  it('replaces a file whole, making its folder, and leaves no temporary file beside it', async () => {
    const dir = temp()
    const file = join(dir, 'kind', 'f.bin')
    await replaceFile(file, 'first')
    await replaceFile(file, Uint8Array.of(1, 2, 3))
    expect([...readFileSync(file)]).toEqual([1, 2, 3])
    expect(readdirSync(join(dir, 'kind'))).toEqual(['f.bin'])
  })
})
