/**
 * The dense channel's failure modes through the shared searcher: an embedder
 * that cannot be reached is retried once, then the question is answered
 * lexical-only with degraded: true and the reason logged; a site that declared
 * lexical-only is never "degraded"; a manifest naming an embedder this
 * docpilot does not know is a clear error when the index is opened.
 */
import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest'
import { startFakeProviders, type FakeProviders } from '../../fixtures/providers/index.ts'
import { buildIndex } from '../../indexer/build.ts'
import { envEmbedTransport } from '../../indexer/embed.ts'
import { fsPartLoader } from '../../indexer/fs-parts.ts'
import { validateConfig } from '../config/validate.ts'
import { EmbedError } from '../embed/types.ts'
import type { Manifest } from '../index/format.ts'
import type { PartLoader } from '../index/parts.ts'
import { openIndex } from './search.ts'
import { rankHybrid, type DenseChannel } from './hybrid.ts'
import type { PassageVectors } from './passage-vectors.ts'
import { ENCODER_TUNING, STATIC_TUNING } from './tuning.ts'

const SITE = fileURLToPath(new URL('../../fixtures/site/', import.meta.url))
/** Index builds load real models; generous on a machine shared by several people. */
const SLOW = 180_000
const QUESTION = 'How do I set and get values on the context?'

async function build(embed: unknown, env: Record<string, string> = {}): Promise<string> {
  const out = join(mkdtempSync(join(tmpdir(), 'dp-hybrid-')), 'index')
  await buildIndex({
    root: SITE,
    mode: 'source',
    out,
    config: validateConfig({ embed }, '(test)'),
    docpilotVersion: 'test',
    embed: { env, configDir: tmpdir(), cacheDir: mkdtempSync(join(tmpdir(), 'dp-cache-')) },
  })
  return out
}

/** A loader whose matching parts fail, counting the attempts. */
function failing(dir: string, match: RegExp): PartLoader & { attempts: number } {
  const inner = fsPartLoader(dir)
  const loader = {
    attempts: 0,
    bytes: async (name: string) => {
      if (match.test(name)) {
        loader.attempts++
        throw new Error(`HTTP 404 for ${name}`)
      }
      return inner.bytes(name)
    },
  }
  return loader
}

describe('the offline model unreachable', { timeout: SLOW }, () => {
  let dir: string
  beforeAll(async () => {
    dir = await build('default')
  }, SLOW)

  it('retries once, then answers lexical-only with degraded: true and logs the reason', async () => {
    const loader = failing(dir, /^embed-rows\./)
    const log = vi.fn()
    // Not warmed at open: every attempt counted here is a question's.
    const index = await openIndex(loader, { log, warm: false })
    const r = await index.search(QUESTION)
    expect(r.mode).toBe('lexical')
    expect(r.degraded).toBe(true)
    expect(r.degradedReason).toMatch(/embedder "docpilot-minilm-tokenlearn-en-v1" unavailable, searching lexical-only: model rows embed-rows\.[0-9a-f]+\.dir\.gz unreachable/)
    expect(r.results.length).toBeGreaterThan(0)
    // Two attempts, each failing on the model rows' directory (the first read; the rows themselves come by word).
    // The gate's word ranks come from the same rows: after a failed embedding they are not read at all.
    const perAttempt = loader.attempts / 2
    expect(perAttempt).toBe(1)
    expect(log).toHaveBeenCalledTimes(1)
    expect(log).toHaveBeenCalledWith(r.degradedReason)
    // The lexical gate, with its own threshold, still decides.
    const lexical = await (await openIndex(fsPartLoader(dir))).search(QUESTION, { lexicalOnly: true })
    expect(r.gate).toEqual(lexical.gate)
    expect(r.results.map((p) => p.id)).toEqual(lexical.results.map((p) => p.id))

    // The next question tries the embedder again rather than giving up for good.
    await index.search(QUESTION)
    expect(loader.attempts).toBe(4 * perAttempt)
  })

  it('answers hybrid once the model is reachable again', async () => {
    let down = true
    const inner = fsPartLoader(dir)
    const loader: PartLoader = {
      bytes: (name) => (down && name.startsWith('embed') ? Promise.reject(new Error('offline')) : inner.bytes(name)),
      }
    const index = await openIndex(loader, { log: () => {} })
    expect((await index.search(QUESTION)).degraded).toBe(true)
    down = false
    expect(await index.search(QUESTION)).toMatchObject({ mode: 'hybrid', degraded: false })
  })

  it('fetches a question\'s model rows within the embedding limit: slow rows still hybrid, rows that never come degrade', async () => {
    const inner = fsPartLoader(dir)
    const slow = (ms: number): PartLoader => ({
      bytes: async (name) => {
        if (name.startsWith('embed')) await new Promise((r) => setTimeout(r, ms))
        return inner.bytes(name)
      },
      })
    const log = vi.fn()
    // A static model has nothing to load before the first question: its rows come with the question.
    const loaded = await openIndex(slow(400), { log, embedTimeoutMs: 2_000, loadTimeoutMs: 100 })
    expect(await loaded.search(QUESTION)).toMatchObject({ mode: 'hybrid', degraded: false })
    expect(log).not.toHaveBeenCalled()

    // Rows that never arrive in time are bounded by the embedding limit, retried once, then degraded.
    const stuck = await openIndex(slow(5_000), { log: () => {}, embedTimeoutMs: 200, loadTimeoutMs: 10_000 })
    const r = await stuck.search(QUESTION)
    expect(r).toMatchObject({ mode: 'lexical', degraded: true })
    expect(r.degradedReason).toMatch(/embedding the question took longer than 200 ms/)
  })

  it('degrades the same way when the index vectors cannot be fetched', async () => {
    const log = vi.fn()
    const index = await openIndex(failing(dir, /^vectors\./), { log })
    const r = await index.search(QUESTION)
    expect(r).toMatchObject({ mode: 'lexical', degraded: true })
    expect(r.degradedReason).toMatch(/index vectors unavailable/)
    expect(log).toHaveBeenCalledTimes(1)
  })

  it('reads the vector codes once per question: the loader retries a read, the channel does not retry it again', async () => {
    const loader = failing(dir, /^codes\./)
    const index = await openIndex(loader, { log: () => {}, warm: false })
    const r = await index.search(QUESTION)
    expect(r).toMatchObject({ mode: 'lexical', degraded: true })
    expect(r.degradedReason).toMatch(/index vectors unavailable/)
    expect(loader.attempts).toBe(1)
    // A failed read is forgotten: the next question reads again.
    await index.search(QUESTION)
    expect(loader.attempts).toBe(2)
  })
})

describe('a hosted embedder failing', { timeout: SLOW }, () => {
  let fakes: FakeProviders
  let dir: string
  beforeAll(async () => {
    fakes = await startFakeProviders({ embedDims: 32 })
    dir = await build('openai', fakes.env())
  }, SLOW)
  afterAll(() => fakes.close())
  beforeEach(() => fakes.reset())
  const embedCalls = async () => (await fakes.requests()).filter((r) => r.endpoint === 'embed').length

  it('is retried once on a server error, then the question is answered lexical-only', async () => {
    await fakes.control({ member: 'openai', endpoint: 'embed', fault: 'server-error', status: 503 })
    const log = vi.fn()
    const index = await openIndex(fsPartLoader(dir), { transport: envEmbedTransport(fakes.env()), log })
    const r = await index.search(QUESTION)
    expect(r).toMatchObject({ mode: 'lexical', degraded: true })
    expect(r.degradedReason).toMatch(/openai embeddings answered HTTP 503/)
    expect(await embedCalls()).toBe(2)
    expect(log).toHaveBeenCalledTimes(1)
  })

  it('is not retried when refused as too many requests (429): the question is answered lexical-only at once', async () => {
    await fakes.control({ member: 'openai', endpoint: 'embed', fault: 'rate-limit' })
    const log = vi.fn()
    const index = await openIndex(fsPartLoader(dir), { transport: envEmbedTransport(fakes.env()), log })
    const r = await index.search(QUESTION)
    expect(r).toMatchObject({ mode: 'lexical', degraded: true })
    expect(r.degradedReason).toMatch(/openai embeddings answered HTTP 429/)
    expect(await embedCalls()).toBe(1)
  })

  it('succeeds on the retry when only the first call fails', async () => {
    await fakes.control({ member: 'openai', endpoint: 'embed', fault: 'server-error', times: 1 })
    const log = vi.fn()
    const index = await openIndex(fsPartLoader(dir), { transport: envEmbedTransport(fakes.env()), log })
    expect(await index.search(QUESTION)).toMatchObject({ mode: 'hybrid', degraded: false })
    expect(await embedCalls()).toBe(2)
    expect(log).not.toHaveBeenCalled()
  })

  it('bounds a hanging provider by the embed time limit', async () => {
    await fakes.control({ member: 'openai', endpoint: 'embed', fault: 'hang' })
    const index = await openIndex(fsPartLoader(dir), { transport: envEmbedTransport(fakes.env()), log: () => {}, embedTimeoutMs: 300 })
    const r = await index.search(QUESTION)
    expect(r).toMatchObject({ mode: 'lexical', degraded: true })
    expect(r.degradedReason).toMatch(/took longer than 300 ms/)
  })
})

describe('declared lexical-only (embed: false)', { timeout: SLOW }, () => {
  it('searches lexical, is never degraded and logs nothing', async () => {
    const dir = await build(false)
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as Manifest
    expect(manifest.embedder.kind).toBe('none')
    expect(manifest.parts.vectors).toBeUndefined()
    const log = vi.fn()
    const warn = vi.spyOn(console, 'warn').mockImplementation(() => {})
    try {
      const r = await (await openIndex(fsPartLoader(dir), { log })).search(QUESTION)
      expect(r).toMatchObject({ mode: 'lexical', degraded: false })
      expect(r).not.toHaveProperty('degradedReason')
      expect(log).not.toHaveBeenCalled()
      expect(warn).not.toHaveBeenCalled()
    } finally {
      warn.mockRestore()
    }
  })
})

describe('a manifest naming an embedder this docpilot does not know', { timeout: SLOW }, () => {
  let dir: string
  beforeAll(async () => {
    dir = await build('default')
  }, SLOW)
  const withEmbedder = (embedder: object): PartLoader => {
    const inner = fsPartLoader(dir)
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as Manifest
    const replaced = new TextEncoder().encode(JSON.stringify({ ...manifest, embedder }))
    return { ...inner, bytes: async (name) => (name === 'manifest.json' ? replaced : inner.bytes(name)) }
  }

  it('fails to open with the embedder named and the fix', async () => {
    const err = await openIndex(withEmbedder({ id: 'word2vec-x', kind: 'local', model: 'word2vec:x', dims: 300, quantization: 'int8' })).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(EmbedError)
    expect((err as EmbedError).code).toBe('unknown_embedder')
    expect((err as Error).message).toMatch(/manifest\.json names embedder "word2vec-x" \(kind "local", model "word2vec:x"\), which this docpilot does not know\. Rebuild the index with `docpilot index`/)
  })

  it('says so for a hosted provider without an embeddings API', async () => {
    await expect(openIndex(withEmbedder({ id: 'anthropic:x', kind: 'hosted', model: 'x', dims: 8, quantization: 'int8', provider: 'anthropic' }))).rejects.toThrow(
      /on provider "anthropic", which has no embeddings API/,
    )
  })

  it('says so for a manifest with an embedder but no vectors part', async () => {
    const inner = fsPartLoader(dir)
    const manifest = JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8')) as Manifest
    const { vectors: _drop, ...parts } = manifest.parts
    writeFileSync(join(dir, 'manifest.json'), JSON.stringify({ ...manifest, parts }))
    await expect(openIndex(inner)).rejects.toThrow(/names embedder "docpilot-minilm-tokenlearn-en-v1" but no "vectors" and "codes" parts/)
  })
})

describe('one result row per section', { timeout: SLOW }, () => {
  let dir: string
  beforeAll(async () => {
    // One long section cut into many windows, each mentioning the question's words, next to short sections.
    const docs = mkdtempSync(join(tmpdir(), 'dp-sections-'))
    const long = Array.from({ length: 12 }, (_, i) => `Step ${i + 1}: set the signed cookie secret and rotate the cookie key with care.`).join(' ')
    writeFileSync(join(docs, 'cookies.md'), `# Cookies\n\n## Signed cookies\n\n${long}\n\n## Deleting a cookie\n\nCall deleteCookie with the cookie name.\n`)
    writeFileSync(join(docs, 'sessions.md'), '# Sessions\n\n## Session cookie\n\nThe session id lives in a signed cookie.\n')
    dir = join(mkdtempSync(join(tmpdir(), 'dp-sections-out-')), 'index')
    await buildIndex({
      root: docs,
      mode: 'source',
      out: dir,
      config: validateConfig({ chunks: { maxWords: 50, overlapWords: 10 } }, '(test)'),
      docpilotVersion: 'test',
      embed: { env: {}, configDir: tmpdir(), cacheDir: mkdtempSync(join(tmpdir(), 'dp-cache-')) },
    })
  }, SLOW)

  for (const lexicalOnly of [false, true]) {
    it(`${lexicalOnly ? 'lexical-only' : 'hybrid'}: windows of one long section come back as one row, the best one`, async () => {
      const index = await openIndex(fsPartLoader(dir))
      const windows = (await index.chunks([...Array(index.size).keys()])).filter((c) => c.anchor === 'signed-cookies')
      expect(windows.length).toBeGreaterThan(3)
      const r = await index.search('signed cookie secret key', { k: 8, lexicalOnly })
      const sections = r.results.map((p) => `${p.path}#${p.anchor}`)
      expect(new Set(sections).size).toBe(sections.length)
      expect(sections).toContain('cookies.md#signed-cookies')
      expect(sections).toEqual(expect.arrayContaining(['cookies.md#deleting-a-cookie', 'sessions.md#session-cookie']))
      // Scores stay in ranking order after windows are folded.
      expect(r.results.map((p) => p.score)).toEqual([...r.results.map((p) => p.score)].sort((a, b) => b - a))
    })
  }
})

describe('dense candidates scored exactly', () => {
  // Ten chunks; the codes underrate chunk 7, which the words did not find.
  const exactScores = new Map([...Array(10).keys()].map((o) => [o, o === 7 ? 0.9 : 0.3]))
  const estimate = (o: number) => (o === 7 ? 0.25 : 0.3)
  const exactAsked: number[][] = []
  const vectors: PassageVectors = {
    count: 10,
    dims: 2,
    approximate: () => estimate,
    scan: (_q, k) => [...Array(10).keys()].map((index) => ({ index, score: estimate(index) })).sort((a, b) => b.score - a.score).slice(0, k),
    prefetch: () => {},
    exact: async (_q, ordinals) => {
      exactAsked.push([...ordinals])
      return new Map(ordinals.map((o) => [o, exactScores.get(o)!]))
    },
    exactTopK: async () => [],
  }
  const dense: DenseChannel = {
    queryVector: async () => ({ vector: Float32Array.of(1, 0) }),
    vectors: async () => vectors,
    rows: vectors,
    log: () => {},
    ranksOf: async () => [],
    warm: async () => {},
  }
  const manifest = {
    embedder: { id: 'test', kind: 'local', model: 'onnx:test', dims: 2 },
    retrieval: { fusion: { method: 'linear', lexicalWeight: 0.3, denseWeight: 0.7 }, gate: ENCODER_TUNING.gate },
  } as unknown as Manifest

  /** Three lexical hits (0 best) against the ten chunks, with the manifest's retrieval settings changed as given. */
  const rankThree = (retrieval: Partial<Manifest['retrieval']> = {}) =>
    rankHybrid({
      question: 'q',
      k: 3,
      lexical: [0, 1, 2].map((ordinal, i) => ({ ordinal, score: 3 - i, coverage: 1 })),
      evidence: { vocabulary: 1, cooccurrence: 1 },
      dense,
      manifest: { ...manifest, retrieval: { ...manifest.retrieval, ...retrieval } } as Manifest,
    })

  it('ranks a candidate only the codes found by its exact score, not its code estimate', async () => {
    const ranked = await rankThree()
    expect(ranked.hits[0]).toMatchObject({ ordinal: 7, channels: { dense: 0.9 } })
    // One read of exact rows: the lexical candidates and the best by code together.
    expect(exactAsked).toHaveLength(1)
    expect(exactAsked[0]).toEqual(expect.arrayContaining([0, 1, 2, 7]))
  })

  it("adds the lexical hits' coverage with the manifest's coverage weight", async () => {
    // Hit 0 has the better BM25 score, hit 1 holds more of the question.
    const lexical = [
      { ordinal: 0, score: 3, coverage: 0.3 },
      { ordinal: 1, score: 2.5, coverage: 1 },
    ]
    const firstWith = async (coverageWeight: number) => {
      const fusion = { method: 'linear', lexicalWeight: 0.5, denseWeight: 0.5, coverageWeight }
      const ranked = await rankHybrid({
        question: 'q',
        k: 2,
        lexical,
        evidence: { vocabulary: 1, cooccurrence: 1 },
        dense,
        manifest: { ...manifest, retrieval: { ...manifest.retrieval, fusion } } as Manifest,
      })
      return ranked.hits.find((h) => h.ordinal !== 7)!.ordinal
    }
    expect(await firstWith(0)).toBe(0)
    expect(await firstWith(0.5)).toBe(1)
  })

  it("reads the gate's meaning signal from the passage the manifest names: the top result or the top lexical hit", async () => {
    const meaningFrom = async (from: 'results' | 'lexical') => (await rankThree({ gate: { ...ENCODER_TUNING.gate, meaningFrom: from } })).gate.signals.meaning
    // Chunk 7, found by meaning alone, is the top result; chunk 0 the top lexical hit.
    expect(await meaningFrom('results')).toBeCloseTo(0.9, 4)
    expect(await meaningFrom('lexical')).toBeCloseTo(0.3, 4)
    // Both kinds of embedder ship reading the top result (docs/gate.md, "Four docs sites").
    expect([STATIC_TUNING.gate.meaningFrom, ENCODER_TUNING.gate.meaningFrom]).toEqual(['results', 'results'])
  })
})
