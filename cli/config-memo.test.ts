import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { ConfigError } from '../core/config/config-error.ts'
import { validateConfig } from '../core/config/validate.ts'
import { tempDirs } from '../fixtures/temp-dirs.ts'
import { validatedConfig } from './config-memo.ts'

const temp = tempDirs('docpilot-config-memo-')
const RAW = { anchors: { slugger: 'starlight' }, urls: { stripPrefix: 'src/content/docs/en/' } }

/** The one memo file in `cacheDir`, with its validated config replaced by `config`. */
function rewriteMemo(cacheDir: string, config: unknown): void {
  const [name] = readdirSync(join(cacheDir, 'config'))
  const file = join(cacheDir, 'config', name!)
  writeFileSync(file, JSON.stringify({ ...JSON.parse(readFileSync(file, 'utf8')), config }))
}

describe('validatedConfig', () => {
  it('validates a config as validateConfig does, and takes it from the memo while the config and the version are unchanged', async () => {
    const memo = { cacheDir: temp(), version: '1.0.0' }
    expect(await validatedConfig(RAW, 'docpilot.config.json', '/site/docpilot.config.json', memo)).toEqual(validateConfig(RAW, 'docpilot.config.json'))
    rewriteMemo(memo.cacheDir, { from: 'the memo' })
    expect(await validatedConfig(structuredClone(RAW), 'docpilot.config.json', '/site/docpilot.config.json', memo)).toEqual({ from: 'the memo' })
  })

  it('validates again a config that changed, or under another docpilot version', async () => {
    const memo = { cacheDir: temp(), version: '1.0.0' }
    await validatedConfig(RAW, 'c.json', '/site/c.json', memo)
    rewriteMemo(memo.cacheDir, { from: 'the memo' })
    await expect(validatedConfig({ ...RAW, anchors: { slugger: 'nope' } }, 'c.json', '/site/c.json', memo)).rejects.toThrow(ConfigError)
    await validatedConfig(RAW, 'c.json', '/site/c.json', memo)
    rewriteMemo(memo.cacheDir, { from: 'the memo' })
    expect(await validatedConfig(RAW, 'c.json', '/site/c.json', { ...memo, version: '1.0.1' })).toEqual(validateConfig(RAW, 'c.json'))
  })

  it('validates every time a value JSON cannot say exactly (a TypeScript config can hold a function)', async () => {
    const memo = { cacheDir: temp(), version: '1.0.0' }
    await validatedConfig(RAW, 'c.ts', '/site/c.ts', memo)
    // As JSON, the same text as RAW: only validation sees the function.
    const raw = { ...RAW, embed: () => 'openai' }
    await expect(validatedConfig(raw, 'c.ts', '/site/c.ts', memo)).rejects.toThrow(ConfigError)
  })
})
