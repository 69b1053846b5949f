import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MANIFEST_FILE } from '../core/index/format.ts'
import { IndexFormatError } from '../core/index/read-manifest.ts'
import { writeIndex } from '../indexer/write.ts'
import { openIndexDir, readIndexManifest } from './index-dir.ts'

describe('an index folder whose manifest lost a field', () => {
  let dir: string
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'docpilot-index-dir-'))
    const chunk = { id: 'a.md#', path: 'a.md', url: '/a', anchor: '', title: 'A', trail: ['A'], text: 'cookies' }
    await writeIndex({ chunks: [chunk], files: 1, out: dir, docpilotVersion: 'test', createdAt: new Date(0).toISOString() })
    const manifest = JSON.parse(await readFile(join(dir, MANIFEST_FILE), 'utf8')) as { retrieval: { gate?: unknown } }
    delete manifest.retrieval.gate
    await writeFile(join(dir, MANIFEST_FILE), JSON.stringify(manifest))
  })
  afterAll(() => rm(dir, { recursive: true, force: true }))

  // dev and preview read the manifest this way; query, eval and insights open the index.
  it('is refused by dev, preview and the commands that search, naming the folder, the field and the fix', async () => {
    const named = `${dir}: manifest.json: retrieval.gate is missing; it must be an object. Rebuild the index with \`docpilot index\`.`
    await expect(readIndexManifest(dir)).rejects.toThrow(IndexFormatError)
    await expect(readIndexManifest(dir)).rejects.toThrow(named)
    await expect(openIndexDir(dir)).rejects.toThrow(named)
  })
})

describe('an --index that names the manifest file instead of its folder', () => {
  it('says to pass the folder, naming it', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'docpilot-index-dir-'))
    try {
      const chunk = { id: 'a.md#', path: 'a.md', url: '/a', anchor: '', title: 'A', trail: ['A'], text: 'cookies' }
      await writeIndex({ chunks: [chunk], files: 1, out: dir, docpilotVersion: 'test', createdAt: new Date(0).toISOString() })
      await expect(openIndexDir(join(dir, MANIFEST_FILE))).rejects.toThrow(`${join(dir, MANIFEST_FILE)} is the index's manifest; pass the folder that holds it: --index ${dir}`)
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})
