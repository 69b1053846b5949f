import { existsSync, mkdirSync, readFileSync, symlinkSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { tempDirs } from '../fixtures/temp-dirs.ts'
import { removeFolder } from './remove-folder.ts'

const temp = tempDirs('docpilot-remove-')

describe('removeFolder', () => {
  it('removes a folder of files and nested folders, and only the link to a folder outside it', async () => {
    const [root, outside] = [temp(), temp()]
    const dir = join(root, 'index')
    mkdirSync(join(dir, 'texts.1/deeper'), { recursive: true })
    mkdirSync(join(dir, 'postings.1'))
    for (const file of ['manifest.json', 'texts.1/0.json.gz', 'texts.1/deeper/x', 'postings.1/0.json.gz']) writeFileSync(join(dir, file), file)
    writeFileSync(join(outside, 'keep.txt'), 'keep')
    symlinkSync(outside, join(dir, 'link'))
    await removeFolder(dir)
    expect(existsSync(dir)).toBe(false)
    expect(readFileSync(join(outside, 'keep.txt'), 'utf8')).toBe('keep')
  })

  it('is no error for a folder already gone (fs.rm, force, takes over)', async () => {
    const dir = join(temp(), 'gone-meanwhile')
    await removeFolder(dir)
    expect(existsSync(dir)).toBe(false)
  })
})
