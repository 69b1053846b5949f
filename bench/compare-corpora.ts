/**
 * The shared input of the side-by-side benchmarks: for one corpus, docpilot's
 * index, the chunk records read back from it, those chunks rendered to HTML,
 * and the Pagefind and Orama builds over exactly the same chunks.
 * Everything lands in one work folder per corpus and is built once per run;
 * those first builds are also the first timed round of the build benchmark.
 */
import { gunzipSync, gzipSync } from 'node:zlib'
import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { basename, join, relative, resolve } from 'node:path'
import type { DocpilotConfigInput } from '../core/config/schema.ts'
import type { AnyOrama } from '@orama/orama'
import type { ChunkRecord } from '../core/index/format.ts'
import { CHAIN } from '../core/providers/table.ts'
import { openIndex, type DocIndex } from '../core/retrieval/search.ts'
import { DEV_CORPORA, devSetFile } from '../fixtures/dev-corpora.ts'
import { fsPartLoader } from '../indexer/fs-parts.ts'
import { runBuildCommand } from './build-command.ts'
import { compiledCli } from './compiled-cli.ts'
import { timeInProcess, type Timing } from './cpu-time.ts'
import { renderPages } from './render-html.ts'
import { buildOrama, type OramaBundle } from './peers/orama.ts'
import { buildPagefind, writeSite } from './peers/pagefind.ts'
import { loadIndexVectors } from './peers/docpilot-vectors.ts'

export interface CorpusSpec {
  name: string
  /** Corpus folder; chunk paths are relative to it, as the question sets' gold paths are. */
  root: string
  include?: string[]
  /** The docpilot.config a site owner would write for it (everything else default, so `embed` is 'auto'). */
  config: DocpilotConfigInput
  /** The owner's own config file instead of `config` (`--corpus DIR --config FILE`). */
  configFile?: string
  /** The dev question set that goes with it. */
  questions: string
}

export const CORPORA: CorpusSpec[] = DEV_CORPORA.map((c) => ({
  name: c.name,
  root: c.root,
  ...(c.include ? { include: [...c.include] } : {}),
  config: c.config,
  questions: devSetFile(c.sets[0]),
}))

/** Default work folder (git-ignored); a run can put it elsewhere (tests use a temp folder). */
/**
 * Any docs folder as a corpus (`npm run bench -- --corpus DIR --questions FILE`):
 * named after the folder, indexed with docpilot's defaults (or the owner's
 * config file), gold paths in the question file relative to DIR.
 */
export function corpusFromDir(dir: string, questions: string, opts: { include?: string[]; configFile?: string } = {}): CorpusSpec {
  const root = resolve(dir)
  return {
    name: basename(root),
    root,
    config: {},
    questions,
    ...(opts.include?.length ? { include: opts.include } : {}),
    ...(opts.configFile ? { configFile: resolve(opts.configFile) } : {}),
  }
}

export const DEFAULT_WORK_ROOT = resolve(import.meta.dirname, 'results/work')

export interface FileSize {
  file: string
  raw: number
  gzip: number
}

/**
 * Raw = the content's uncompressed size; gzip = what a host sends. Files a
 * tool stores gzipped already (docpilot's `.json.gz` parts, Pagefind's `.pf_*`)
 * count as stored; everything else is gzipped at level 9.
 */
export async function measureFile(path: string, rel: string): Promise<FileSize> {
  const bytes = await readFile(path)
  if (bytes.length > 2 && bytes[0] === 0x1f && bytes[1] === 0x8b) {
    return { file: rel, raw: gunzipSync(bytes).length, gzip: bytes.length }
  }
  return { file: rel, raw: bytes.length, gzip: gzipSync(bytes, { level: 9 }).length }
}

export async function measureDir(dir: string): Promise<FileSize[]> {
  const entries = await readdir(dir, { recursive: true, withFileTypes: true })
  const files = entries.filter((e) => e.isFile()).map((e) => join(e.parentPath, e.name))
  return Promise.all(files.sort().map((f) => measureFile(f, relative(dir, f))))
}

export const sumSizes = (sizes: FileSize[]) =>
  sizes.reduce((s, f) => ({ raw: s.raw + f.raw, gzip: s.gzip + f.gzip }), { raw: 0, gzip: 0 })

/**
 * The environment `docpilot index` runs in: no provider keys or base URLs, so
 * `embed: 'auto'` resolves the same on every machine (the offline default
 * model) and nothing leaves the machine.
 */
function buildEnv(cacheDir: string): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = { ...process.env, DOCPILOT_CACHE_DIR: cacheDir }
  for (const p of CHAIN) {
    if (p.keyEnv) delete env[p.keyEnv]
    delete env[p.baseUrlEnv]
  }
  delete env.SOURCE_DATE_EPOCH
  return env
}

/**
 * One docpilot build of the corpus into `out`, run as a site owner runs it:
 * `docpilot index` with the corpus's config file, in its own process (as
 * Pagefind's CLI is), from the compiled CLI an installed package runs
 * (compiled-cli.ts). Without `cacheDir` the build starts from an empty cache,
 * so every round is a full build; with one (kept between builds) it is the
 * re-index a site's next deploy runs. Whatever `docpilot index` produces by
 * default (lexical, dense, model files) is what the other benchmarks measure.
 */
export async function buildDocpilot(spec: CorpusSpec, out: string, cacheDir?: string): Promise<Timing> {
  // A re-index keeps what a site keeps between deploys: the cache, and the config file where it was, with
  // the site folder its agent files go to beside it. A fresh folder per run would rewrite every page copy.
  const home = cacheDir ? `${cacheDir}.home` : await mkdtemp(`${out}.tmp-`)
  let configFile = spec.configFile
  if (!configFile) {
    await mkdir(home, { recursive: true })
    configFile = join(home, 'docpilot.config.json')
    await writeFile(configFile, JSON.stringify(spec.config))
  }
  const args = [await compiledCli(), 'index', spec.root, '--out', out, '--config', configFile]
  if (spec.include?.length) args.push('--include', ...spec.include)
  try {
    return await runBuildCommand(`docpilot index ${spec.root}`, args, buildEnv(cacheDir ?? join(home, 'cache')))
  } finally {
    if (!cacheDir) await rm(home, { recursive: true, force: true })
  }
}

export interface PreparedCorpus {
  spec: CorpusSpec
  dir: string
  docpilotDir: string
  index: DocIndex
  chunks: ChunkRecord[]
  /** Chunk vectors in index order, when the docpilot index has a dense channel. */
  vectors: Float32Array[] | null
  siteDir: string
  pagefindDir: string
  oramaDir: string
  /** Time of these builds, by engine label: the build benchmark's first round. */
  firstBuild: Record<string, Timing>
  /** The Orama databases those builds made, kept for the quality benchmark (`bm25`, `hybrid`). */
  oramaDbs: Record<string, AnyOrama>
}

const prepared = new Map<string, Promise<PreparedCorpus>>()

/** Builds every engine's index for the corpus once per process and work folder. */
export function prepareCorpus(spec: CorpusSpec, workRoot: string = DEFAULT_WORK_ROOT): Promise<PreparedCorpus> {
  const key = join(workRoot, spec.name)
  let p = prepared.get(key)
  if (!p) {
    p = doPrepare(spec, key)
    // A failed build is not remembered: the next benchmark tries again and reports its own error.
    p.catch(() => prepared.delete(key))
    prepared.set(key, p)
  }
  return p
}

/** Orama's build as a site would run it: insert the chunks, save, write the JSON it ships. */
export async function buildOramaFile(file: string, chunks: ChunkRecord[], vectors?: Float32Array[]): Promise<Timing & { db: AnyOrama }> {
  let db: AnyOrama | undefined
  const t = await timeInProcess(async () => {
    const built = await buildOrama(chunks, vectors)
    db = built.db
    await writeOrama(file, built.bundle)
  })
  return { ...t, db: db! }
}

async function doPrepare(spec: CorpusSpec, dir: string): Promise<PreparedCorpus> {
  await rm(dir, { recursive: true, force: true })
  await mkdir(dir, { recursive: true })
  const firstBuild: Record<string, Timing> = {}
  const docpilotDir = join(dir, 'docpilot')
  firstBuild.docpilot = await buildDocpilot(spec, docpilotDir)
  const index = await openIndex(fsPartLoader(docpilotDir))
  // The peers get docpilot's own chunks, read back from its index.
  const chunks = await index.chunks(Array.from({ length: index.size }, (_, i) => i))
  const vectors = await loadIndexVectors(docpilotDir, index)

  const siteDir = join(dir, 'site')
  await writeSite(renderPages(chunks), siteDir)
  const pagefindDir = join(dir, 'pagefind')
  firstBuild.Pagefind = await buildPagefind(siteDir, pagefindDir)

  const oramaDir = join(dir, 'orama')
  await mkdir(oramaDir, { recursive: true })
  const { db: bm25, ...bm25Time } = await buildOramaFile(join(oramaDir, 'bm25.json'), chunks)
  firstBuild['Orama BM25'] = bm25Time
  const oramaDbs: Record<string, AnyOrama> = { bm25 }
  if (vectors) {
    const { db: hybrid, ...hybridTime } = await buildOramaFile(join(oramaDir, 'hybrid.json'), chunks, vectors)
    firstBuild['Orama hybrid'] = hybridTime
    oramaDbs.hybrid = hybrid
  }
  return { spec, dir, docpilotDir, index, chunks, vectors, siteDir, pagefindDir, oramaDir, oramaDbs, firstBuild }
}

export function writeOrama(file: string, bundle: OramaBundle): Promise<void> {
  return writeFile(file, JSON.stringify(bundle))
}
