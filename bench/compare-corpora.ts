/**
 * The shared input of the side-by-side benchmarks: for one corpus, docpilot's
 * index, the chunk records read back from it, those chunks rendered to HTML,
 * and the Pagefind and Orama builds over exactly the same chunks.
 * Everything lands in one work folder per corpus and is built once per run.
 */
import { gunzipSync, gzipSync } from 'node:zlib'
import { mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join, relative, resolve } from 'node:path'
import { ConfigSchema, type DocpilotConfig, type DocpilotConfigInput } from '../core/config/schema.ts'
import type { ChunkRecord } from '../core/index-format.ts'
import { openIndex, type DocIndex } from '../core/retrieval/search.ts'
import { buildIndex } from '../indexer/build.ts'
import { fsPartLoader } from '../indexer/fs-parts.ts'
import { renderPages } from './render-html.ts'
import { buildOrama, type OramaBundle } from './peers/orama.ts'
import { buildPagefind, writeSite } from './peers/pagefind.ts'
import { loadIndexVectors } from './peers/docpilot-vectors.ts'

const SHARED = resolve(import.meta.dirname, '../../shared')

export interface CorpusSpec {
  name: 'hono' | 'astro'
  /** Corpus folder; chunk paths are relative to it, as the question sets' gold paths are. */
  root: string
  include?: string[]
  config: DocpilotConfigInput
  /** The dev question set that goes with it. */
  questions: string
}

export const CORPORA: CorpusSpec[] = [
  {
    name: 'hono',
    root: join(SHARED, 'corpora/hono'),
    config: { anchors: { slugger: 'vitepress' } },
    questions: join(SHARED, 'eval/hono-dev.jsonl'),
  },
  {
    name: 'astro',
    root: join(SHARED, 'corpora/astro'),
    include: ['src/content/docs/en/**/*.md', 'src/content/docs/en/**/*.mdx'],
    config: { anchors: { slugger: 'starlight' }, urls: { stripPrefix: 'src/content/docs/en/', trailingSlash: true } },
    questions: join(SHARED, 'eval/astro-dev.jsonl'),
  },
]

export const WORK_ROOT = resolve(import.meta.dirname, 'results/work')

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

export function corpusConfig(spec: CorpusSpec): DocpilotConfig {
  return ConfigSchema.parse(spec.config)
}

/** One docpilot build of the corpus into `out`; wall time in ms. */
export async function buildDocpilot(spec: CorpusSpec, out: string): Promise<number> {
  const t0 = performance.now()
  await buildIndex({
    root: spec.root,
    mode: 'source',
    out,
    config: corpusConfig(spec),
    include: spec.include,
    docpilotVersion: 'bench',
  })
  return performance.now() - t0
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
  /** Orama database names written to oramaDir (`bm25`, and `hybrid` when vectors exist). */
  oramaIndexes: string[]
}

const prepared = new Map<string, Promise<PreparedCorpus>>()

/** Builds every engine's index for the corpus once per process. */
export function prepareCorpus(spec: CorpusSpec): Promise<PreparedCorpus> {
  let p = prepared.get(spec.name)
  if (!p) {
    p = doPrepare(spec)
    prepared.set(spec.name, p)
  }
  return p
}

async function doPrepare(spec: CorpusSpec): Promise<PreparedCorpus> {
  const dir = join(WORK_ROOT, spec.name)
  await rm(dir, { recursive: true, force: true })
  await mkdir(dir, { recursive: true })
  const docpilotDir = join(dir, 'docpilot')
  await buildDocpilot(spec, docpilotDir)
  const index = await openIndex(fsPartLoader(docpilotDir))
  // The peers get docpilot's own chunks, read back from its index.
  const chunks = await index.chunks(Array.from({ length: index.size }, (_, i) => i))
  const vectors = await loadIndexVectors(docpilotDir, index)

  const siteDir = join(dir, 'site')
  await writeSite(renderPages(chunks), siteDir)
  const pagefindDir = join(dir, 'pagefind')
  await buildPagefind(siteDir, pagefindDir)

  const oramaDir = join(dir, 'orama')
  await mkdir(oramaDir, { recursive: true })
  const oramaIndexes = ['bm25']
  await writeOrama(join(oramaDir, 'bm25.json'), (await buildOrama(chunks)).bundle)
  if (vectors) {
    await writeOrama(join(oramaDir, 'hybrid.json'), (await buildOrama(chunks, vectors)).bundle)
    oramaIndexes.push('hybrid')
  }
  return { spec, dir, docpilotDir, index, chunks, vectors, siteDir, pagefindDir, oramaDir, oramaIndexes }
}

export function writeOrama(file: string, bundle: OramaBundle): Promise<void> {
  return writeFile(file, JSON.stringify(bundle))
}
