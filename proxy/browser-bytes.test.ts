/**
 * No key reaches the browser, part one: every static byte a docs site serves
 * for docpilot (the built widget and the index folder), built by an owner
 * whose shell holds every provider key, with a hosted embedder that used one
 * of them at index time. Part two, every proxy response and header, is the
 * last test of proxy.test.ts; both use one scanner (key-scan.ts).
 */
import { readdirSync, readFileSync, mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, relative, resolve } from 'node:path'
import { gunzipSync } from 'fflate'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { validateConfig } from '../core/config/validate.ts'
import { CHAIN } from '../core/providers/table.ts'
import { startFakeProviders, type FakeProviders } from '../fixtures/providers/index.ts'
import { buildIndex } from '../indexer/build.ts'
import { buildWidget } from '../widget/vite.config.ts'
import { findKeys, type Blob } from '../core/key-scan.ts'

const ROOT = resolve(import.meta.dirname, '..')
const DOCS = join(ROOT, 'fixtures/snippets/hono')

function filesUnder(dir: string): string[] {
  return readdirSync(dir, { recursive: true, withFileTypes: true })
    .filter((e) => e.isFile())
    .map((e) => join(e.parentPath, e.name))
}

/** A file as served, and for gzip parts also as the browser sees it after inflating. */
function blobsOf(dir: string, label: string): Blob[] {
  return filesUnder(dir).flatMap((file) => {
    const bytes = new Uint8Array(readFileSync(file))
    const where = `${label}/${relative(dir, file)}`
    const out: Blob[] = [{ where, bytes }]
    if (bytes[0] === 0x1f && bytes[1] === 0x8b) out.push({ where: `${where} (inflated)`, bytes: gunzipSync(bytes) })
    return out
  })
}

describe('no key in the static bytes a site serves', () => {
  let fakes: FakeProviders
  let env: Record<string, string>
  let keys: string[]
  const widgetDir = mkdtempSync(join(tmpdir(), 'docpilot-keyscan-widget-'))
  const indexDir = mkdtempSync(join(tmpdir(), 'docpilot-keyscan-index-'))

  beforeAll(async () => {
    fakes = await startFakeProviders()
    env = fakes.env()
    keys = CHAIN.flatMap((s) => (s.keyEnv && env[s.keyEnv] ? [env[s.keyEnv]!] : []))
    // The owner's shell holds every key while building: a bundler that inlines
    // process.env, or an indexer that writes what it used, would leak here.
    for (const [k, v] of Object.entries(env)) vi.stubEnv(k, v)
    try {
      await buildWidget(widgetDir)
      await buildIndex({
        root: DOCS,
        mode: 'source',
        out: indexDir,
        config: validateConfig({ chat: { chain: 'auto' }, embed: 'auto' }, '(key scan)'),
        docpilotVersion: 'test',
        embed: { env, cacheDir: mkdtempSync(join(tmpdir(), 'docpilot-keyscan-cache-')) },
      })
    } finally {
      vi.unstubAllEnvs()
    }
  }, 300_000)

  afterAll(async () => {
    await fakes?.close()
  })

  it('the index was built with a hosted embedder that spent a key', async () => {
    const manifest = JSON.parse(readFileSync(join(indexDir, 'manifest.json'), 'utf8')) as { embedder: { kind: string; provider?: string } }
    expect(manifest.embedder).toMatchObject({ kind: 'hosted', provider: 'openai' })
    const embeds = (await fakes.requests()).filter((r) => r.endpoint === 'embed')
    expect(embeds.length).toBeGreaterThan(0)
    expect(embeds[0]!.headers.authorization).toBe(`Bearer ${env.OPENAI_API_KEY}`)
  })

  it('finds no configured key, in any form, in the widget assets or the index files', () => {
    expect(keys.length).toBeGreaterThanOrEqual(8)
    const blobs = [...blobsOf(widgetDir, 'widget'), ...blobsOf(indexDir, 'index')]
    const names = blobs.map((b) => b.where)
    expect(names).toContain('widget/docpilot.js')
    expect(names).toContain('index/manifest.json')
    expect(names.some((n) => n.endsWith('(inflated)'))).toBe(true)
    expect(findKeys(blobs, keys)).toEqual([])
    // The scan is live: the loader with one key planted in it is caught.
    const loader = blobs.find((b) => b.where === 'widget/docpilot.js')!
    const planted = { ...loader, bytes: `${Buffer.from(loader.bytes).toString('utf8')}/*${keys[3]}*/` }
    expect(findKeys([planted], keys).map((h) => h.where)).toEqual(['widget/docpilot.js'])
    // The onnx runtime chunk inlines ~75 MB of wasm, searched for every form of every key on a shared machine.
  }, 240_000)
})
