import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { loadConfig } from './config-file.ts'

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

  it('loads a JSON config named with --config and names it in errors', async () => {
    await writeFile(join(dir, 'site.json'), JSON.stringify({ chat: { chain: 'yes' } }))
    await expect(loadConfig({ cwd: dir, explicit: 'site.json' })).rejects.toThrow(
      `Invalid config site.json: chat.chain must be false, 'auto' or an array of providers (got "yes")`,
    )
  })

  it('reports broken JSON, a missing --config file, and two configs at once', async () => {
    await writeFile(join(dir, 'docpilot.config.json'), '{ "out": ')
    await expect(loadConfig({ cwd: dir })).rejects.toThrow(/Invalid config docpilot.config.json: the file is not valid JSON/)
    await expect(loadConfig({ cwd: dir, explicit: 'nope.ts' })).rejects.toThrow('Invalid config nope.ts: the file does not exist')
    await writeFile(join(dir, 'docpilot.config.mjs'), 'export default {}')
    await expect(loadConfig({ cwd: dir })).rejects.toThrow(/found docpilot.config.mjs and docpilot.config.json/)
  })

  it('asks for a default export', async () => {
    await writeFile(join(dir, 'docpilot.config.mjs'), 'export const config = {}')
    await expect(loadConfig({ cwd: dir })).rejects.toThrow('the file has no default export')
  })
})
