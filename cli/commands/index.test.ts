import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { MIXED_CHAIN_NOTE } from '../../core/chain/rationing.ts'
import type { Manifest } from '../../core/index-format.ts'
import { main } from '../main.ts'

const SITE = resolve(import.meta.dirname, '../../fixtures/site')
let dir: string

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'docpilot-index-chain-'))
})
afterAll(() => rm(dir, { recursive: true, force: true }))

async function index(env: Record<string, string>, config?: object) {
  const out = join(dir, `out-${Math.random().toString(36).slice(2)}`)
  const argv = ['index', SITE, '--out', out]
  if (config) {
    const file = join(dir, `config-${Math.random().toString(36).slice(2)}.json`)
    await writeFile(file, JSON.stringify(config))
    argv.push('--config', file)
  }
  let stdout = ''
  let stderr = ''
  const code = await main(argv, { cwd: dir, env: { DOCPILOT_CACHE_DIR: join(dir, 'cache'), ...env }, stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), stderrIsTTY: false })
  const manifestText = code === 0 ? await readFile(join(out, 'manifest.json'), 'utf8') : ''
  return { code, stdout, stderr, manifestText, manifest: manifestText ? (JSON.parse(manifestText) as Manifest) : null }
}

describe('docpilot index writes the chat chain the panel walks', () => {
  it('an environment with no provider: an empty chain, and the summary says readers get search answers', async () => {
    const r = await index({})
    expect(r.code).toBe(0)
    expect(r.manifest!.chat.chain).toEqual([])
    expect(r.stdout).toMatch(/readers get search answers/)
  })

  it("chain 'auto' over two keys: tiers sorted, routes same-origin, the rationing note printed, no key value anywhere", async () => {
    const env = { GROQ_API_KEY: 'gsk-secret-groq-123', OPENROUTER_API_KEY: 'sk-or-secret-456' }
    const r = await index(env, { chat: { chain: 'auto' } })
    expect(r.code).toBe(0)
    const chain = r.manifest!.chat.chain
    expect(chain.map((m) => [m.provider, m.tier, m.route])).toEqual([
      ['groq', 'billed', '/ai/groq'],
      ['openrouter', 'free', '/ai/openrouter'],
    ])
    expect(r.manifest!.chat.rationing?.note).toBe(MIXED_CHAIN_NOTE)
    expect(r.stdout).toContain(MIXED_CHAIN_NOTE)
    for (const key of Object.values(env)) expect(r.manifestText).not.toContain(key)
  })

  it('a named provider is written even when its key is not in the build environment (the proxy holds it)', async () => {
    const r = await index({}, { chat: { provider: 'anthropic' }, embed: 'default' })
    expect(r.code).toBe(0)
    expect(r.manifest!.chat.chain.map((m) => m.provider)).toEqual(['anthropic'])
    expect(r.manifest!.chat.rationing?.note).toBeUndefined()
  })

  it("carries the owner's answer settings (chat.maxTokens, temperature, timeouts) for the panel's turns", async () => {
    const r = await index({}, { chat: { provider: 'openai', maxTokens: 333, temperature: 0.7, timeouts: { firstByteMs: 9000 } }, embed: 'default' })
    expect(r.code).toBe(0)
    expect(r.manifest!.chat.settings).toEqual({ maxTokens: 333, temperature: 0.7, timeouts: { firstByteMs: 9000, idleMs: 20_000 } })
  })
})
