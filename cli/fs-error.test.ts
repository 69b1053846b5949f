import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { fsErrorMessage } from './fs-error.ts'

let dir: string
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'docpilot-fs-error-'))
  await writeFile(join(dir, 'package.json'), '{}')
  await mkdir(join(dir, 'docs'))
})
afterAll(() => rm(dir, { recursive: true, force: true }))

const failure = (p: Promise<unknown>) => p.then(() => expect.fail('expected the call to fail'), (err: unknown) => err)

describe('fsErrorMessage', () => {
  it('names the path and the mistake of a folder asked for where a file is, and the reverse', async () => {
    const file = join(dir, 'package.json')
    expect(fsErrorMessage(await failure(mkdir(file, { recursive: true })))).toBe(`${file} is a file, and a folder is needed there; choose another path (EEXIST)`)
    expect(fsErrorMessage(await failure(writeFile(join(dir, 'docs'), 'x')))).toBe(`${join(dir, 'docs')} is a folder, and a file is needed there; name a file (EISDIR)`)
    expect(fsErrorMessage(await failure(writeFile(join(file, 'x.md'), 'x')))).toMatch(/part of this path is a file, and a folder is needed there; choose another path \(ENOTDIR\)$/)
  })

  it('leaves alone an error that names no path, or that it has nothing to add to', () => {
    expect(fsErrorMessage(Object.assign(new Error('EISDIR: illegal operation on a directory, read'), { code: 'EISDIR' }))).toBeUndefined()
    expect(fsErrorMessage(Object.assign(new Error('nope'), { code: 'ENOENT', path: '/x' }))).toBeUndefined()
    expect(fsErrorMessage(new Error('plain'))).toBeUndefined()
    // A folder that exists already is not the file-for-a-folder slip.
    expect(fsErrorMessage(Object.assign(new Error('EEXIST'), { code: 'EEXIST', path: join(dir, 'docs') }))).toBeUndefined()
    expect(fsErrorMessage(null)).toBeUndefined()
  })
})
