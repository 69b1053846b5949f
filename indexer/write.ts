/**
 * Writes an index folder: content-addressed, gzip-compressed parts, then
 * manifest.json last, all inside a temp folder that replaces the old index
 * by rename. A run that fails at any point leaves the previous index as it
 * was, and never a folder that looks complete but is not.
 *
 * Output is a pure function of the input: same chunks and settings, same
 * bytes (gzip headers carry no time; createdAt comes from the caller).
 */
import { randomBytes } from 'node:crypto'
import { linkSync, readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { mkdir, readFile, rename, rm, stat, writeFile, readdir } from 'node:fs/promises'
import { basename, dirname, join, resolve } from 'node:path'
import { gunzipSync, gzipSync } from 'node:zlib'
import { FORMAT_VERSION, isShardSet, MANIFEST_FILE, shardFile, type ChunkRecord, type EmbedderIdentity, type Manifest, type ShardSet } from '../core/index/format.ts'
import { DEFAULT_LEXICAL_SETTINGS, type LexicalSettings } from '../core/retrieval/lexical.ts'
import { DEFAULT_POSTINGS_SHARD_BYTES } from '../core/index/postings.ts'
import { memoryPartLoader, type PartLoader } from '../core/index/parts.ts'
import { tuningFor } from '../core/retrieval/tuning.ts'
import { corpusParts, type CorpusInput, type CorpusParts } from './corpus-parts.ts'
import type { DenseParts } from './embed.ts'
import { fsPartLoaderSync } from './fs-parts.ts'
import { PartRecord } from './part-record.ts'
import { pendingBinary, pendingBinaryRead, plainOf, type PendingPart } from './pending-part.ts'
import type { RanksPart } from './ranks.ts'
import { exists } from './stat.ts'
import { removeFolder } from './remove-folder.ts'
import { sha256 } from './sha256.ts'
import { readWriteState, saveWriteState, writeStateFile } from './write-state.ts'

/**
 * Chunks per text shard: a result fetches one shard of about this many
 * neighbours. Each shard is a file to create at every full build, and file
 * creation is the costliest step of writing an index (astro: 508 shards at 8,
 * 254 at 16). 16 costs a first question about 8 KB more text than 8 (median
 * over the dev questions: astro 168.5 -> 177.9 KB, hono 102.6 -> 109.1 KB,
 * still well under Pagefind's bytes to its first result); 32 would cost 24 KB.
 */
export const DEFAULT_SHARD_SIZE = 16

export const NO_EMBEDDER: EmbedderIdentity = { id: 'none', kind: 'none', model: '', dims: 0, quantization: 'none' }

export interface WriteIndexInput {
  chunks: readonly ChunkRecord[]
  /** Number of source files the chunks came from. */
  files: number
  out: string
  docpilotVersion: string
  createdAt: string
  /** The owner's gate settings; what they leave out comes from the tuning for the index's embedder. */
  gate?: { threshold?: number; lexicalThreshold?: number; vocabularyFloor?: number; subjectFloor?: number }
  /** The gate's word ranks (indexer/ranks.ts); absent: the gate weighs every word alike. */
  ranks?: RanksPart
  embedder?: EmbedderIdentity
  /** The dense channel's parts (vectors, model files) and the embedder identity naming them. */
  dense?: DenseParts
  chat?: Manifest['chat']
  panel?: Manifest['panel']
  insights?: Manifest['insights']
  lexicalSettings?: LexicalSettings
  /** Chunks per text shard. */
  shardSize?: number
  /** Raw JSON bytes per lexical postings shard. */
  postingsShardBytes?: number
  /**
   * Where this run leaves what the next one reuses: the record of the parts
   * it stores (part-record.ts: a re-index links unchanged parts without
   * reading them back, else compares each with the previous copy), each
   * chunk's lexical counts (lexical-cache.ts) and what a re-index patches
   * the corpus parts from (write-state.ts).
   */
  cacheDir?: string
  /** The id of the page each path's chunks came from (PageCache.pageId): lets a re-index patch the parts of the pages that changed. */
  pageId?: CorpusInput['pageId']
  /** Each chunk's embedDigest, in chunk order (collect.ts takes them): the lexical cache keys chunks by them. */
  embedDigests?: CorpusInput['embedDigests']
  /** Called after each part is on disk (progress; a throw aborts the write). */
  onPart?: (name: string) => void | Promise<void>
}

export interface PartSize {
  name: string
  raw: number
  gzip: number
}

export interface WriteIndexResult {
  dir: string
  manifest: Manifest
  parts: PartSize[]
  bytes: { raw: number; gzip: number }
  /** The index just written, as a reader loads it: from the bytes this run held, the rest from `dir`. */
  loader: PartLoader
  /**
   * Chunks whose lexical and text parts this run made: all of them, or on a
   * re-index that patched the previous index (corpus-parts.ts) those of the pages that changed.
   */
  chunksMade: number
}

/** The out folder exists but is not an index docpilot may replace. */
export class OutDirError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'OutDirError'
  }
}

/**
 * zlib's level for the JSON parts. Level 9 took twice the CPU of 6 (astro:
 * about 235 against 117 ms a build) for 0.26% fewer bytes (1,187,846 against
 * 1,190,949), and build CPU is one of the index's standing bars.
 */
export const GZIP_LEVEL = 6

/** Deterministic gzip: node's zlib writes no timestamp or file name into the header. */
export function gzip(data: string | Uint8Array): Uint8Array {
  return gzipSync(typeof data === 'string' ? Buffer.from(data) : data, { level: GZIP_LEVEL })
}

const encoded = (part: PendingPart): Uint8Array => (part.gzipped ? gzip(plainOf(part)) : plainOf(part))

/** Refuses to replace a folder that holds something other than a docpilot index. */
async function checkReplaceable(out: string): Promise<void> {
  const info = await stat(out).catch(() => null)
  if (!info) return
  if (!info.isDirectory()) throw new OutDirError(`${out} exists and is not a folder. Choose another --out.`)
  const entries = await readdir(out)
  if (entries.length && !entries.includes(MANIFEST_FILE)) {
    throw new OutDirError(`${out} is not empty and holds no manifest.json, so it is not an index docpilot may replace. Choose an empty or new folder with --out.`)
  }
}

/**
 * A new index must keep at least this share of the previous index's pages;
 * a run that indexes fewer (every file skipped, a wrong --include, a half
 * checkout) fails and leaves the old index serving readers.
 */
export const MIN_KEPT_SHARE = 0.5

/** The run would replace a good index with an empty or much smaller one. */
export class ShrinkError extends Error {
  override name = 'ShrinkError'
}

/**
 * Refuses an index run that produced no chunks, or fewer than MIN_KEPT_SHARE
 * of the pages of the index already at `out`, unless the owner said the
 * shrink is deliberate (`--allow-shrink`). Called before any embedding work.
 */
export async function assertNotShrinking(out: string, run: { pages: number; chunks: number; allowShrink?: boolean }): Promise<void> {
  if (run.allowShrink) return
  const how = 'Fix the warnings above, or pass --allow-shrink if this is deliberate.'
  if (run.chunks === 0) throw new ShrinkError(`No page produced any text to index, so no index was written${(await exists(join(out, MANIFEST_FILE))) ? ` and the one in ${out} is left as it was` : ''}. ${how}`)
  const previous = (await previousManifest(out))?.corpus?.files
  if (typeof previous === 'number' && run.pages < previous * MIN_KEPT_SHARE) {
    throw new ShrinkError(
      `This run indexed ${run.pages} page${run.pages === 1 ? '' : 's'}, fewer than ${MIN_KEPT_SHARE * 100}% of the ${previous} in the index at ${out}, which is left as it was. ${how}`,
    )
  }
}

/**
 * The manifest of the index a run is about to replace, read as far as it
 * goes: not through readManifest, because an index of an older format must
 * still be guarded against shrinking, and its parts reused where they match.
 */
async function previousManifest(out: string): Promise<Partial<Manifest> | undefined> {
  return readFile(join(out, MANIFEST_FILE), 'utf8').then(
    (text) => JSON.parse(text) as Partial<Manifest>,
    () => undefined,
  )
}

/** Temp folders (and swapped-out old indexes) of runs that were killed before they could remove them. */
async function removeStaleTemps(out: string): Promise<void> {
  const prefix = `.${basename(out)}.tmp-`
  const names = await readdir(dirname(out)).catch(() => [] as string[])
  for (const name of names) {
    if (!name.startsWith(prefix)) continue
    const pid = Number(/^(\d+)-/.exec(name.slice(prefix.length))?.[1])
    if (Number.isInteger(pid) && isRunning(pid)) continue
    await rm(join(dirname(out), name), { recursive: true, force: true })
  }
}

/** Whether a process with this id is alive (a concurrent run's temp folder is left alone). */
function isRunning(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * Where the index being replaced may hold a part already (its name there): a
 * content-addressed part under its own name; a shard under the same number in
 * that index's set of the same kind (a set's folder is named by all its
 * shards, so one changed page renames the folder while most shards stay as
 * they were).
 */
function previousLocations(previous: Partial<Manifest> | undefined): (name: string) => string | undefined {
  if (!previous?.parts) return () => undefined
  const sets = new Map<string, ShardSet>()
  for (const value of Object.values(previous.parts)) {
    if (isShardSet(value)) sets.set(value.dir.slice(0, value.dir.lastIndexOf('.')), value)
  }
  return (name) => {
    const slash = name.indexOf('/')
    if (slash < 0) return name
    const set = sets.get(name.slice(0, name.lastIndexOf('.', slash)))
    const n = Number(name.slice(slash + 1, name.indexOf('.', slash)))
    return set && Number.isInteger(n) && n < set.count ? shardFile(set, n) : undefined
  }
}

/**
 * Puts a part into the new index as a hard link to the previous index's copy
 * when that copy holds the same content (a re-index after a small change
 * keeps most parts: no compression, no write). Returns the stored bytes, or
 * undefined when the part must be written.
 */
function linkUnchanged(from: string | undefined, to: string, part: PendingPart): Uint8Array | undefined {
  if (!from) return undefined
  let stored: Uint8Array
  try {
    stored = readFileSync(from)
  } catch {
    return undefined
  }
  let plain: Uint8Array = stored
  if (part.gzipped) {
    try {
      plain = gunzipSync(stored)
    } catch {
      return undefined
    }
  }
  if (!Buffer.from(plain.buffer, plain.byteOffset, plain.byteLength).equals(plainOf(part))) return undefined
  return hardLink(from, to) ? stored : undefined
}

/** Whether `to` is now a hard link to `from` (a file system without hard links gets a fresh copy instead). */
function hardLink(from: string, to: string): boolean {
  try {
    linkSync(from, to)
    return true
  } catch {
    return false
  }
}

/**
 * Puts a part into the new index at `to`: linked to the previous index's copy
 * (`was`, its name there) when the record vouches for it, else linked to
 * `source` (a copy of a binary part its maker keeps, named by its content:
 * the static model's rows pack in the cache), else linked to the previous
 * copy when its bytes match, else compressed and written. Returns the stored size, and the stored bytes
 * when this run holds them. Synchronous, like the compression: for
 * the ~580 parts of a large site, promise-API stats, links and writes cost
 * more CPU than the file system work itself.
 */
function storePart(
  part: PendingPart,
  to: string,
  out: string,
  was: string | undefined,
  record: PartRecord | undefined,
  source: string | undefined,
): { size: number; bytes?: Uint8Array } {
  if (part.kept !== undefined) return storeKept(part, to, join(out, part.kept), part.kept, record)
  const from = was === undefined ? undefined : join(out, was)
  if (was !== undefined && from && record) {
    const size = record.unchanged(was, from, part.content)
    if (size !== undefined && hardLink(from, to)) {
      record.carry(part.name, was)
      // A part stored as it is needs no read to be at hand (one its maker left on disk stays there: the loader reads the index's copy).
      return part.gzipped || !part.plain ? { size } : { size, bytes: part.plain }
    }
  }
  if (source !== undefined && !part.gzipped && hardLink(source, to)) {
    record?.keep(part.name, part.content, part.raw)
    // Held for the loader only when this run holds it already (a first build's pack): a run into a new folder,
    // or one whose previous copy the record cannot vouch for (its stamp changed), comes this way with a warm
    // cache too, and reading 17 MB to hold what the loader can read from the index when asked undoes the link.
    return part.plain ? { size: part.raw, bytes: part.plain } : { size: part.raw }
  }
  let bytes = linkUnchanged(from, to, part)
  if (!bytes) {
    bytes = encoded(part)
    writeFileSync(to, bytes)
  }
  record?.keep(part.name, part.content, bytes.length)
  return { size: bytes.length, bytes }
}

/** A part kept from the previous index no longer holds what the write state says: the corpus parts are made in full instead. */
class KeptPartChanged extends Error {}

/**
 * Puts a part this run did not make (corpus-parts.ts kept it from the
 * previous index) into the new index: linked when the record vouches for the
 * previous copy, else only once its bytes are checked against the content.
 */
function storeKept(part: PendingPart, to: string, from: string, was: string, record: PartRecord | undefined): { size: number; bytes?: Uint8Array } {
  const size = record?.unchanged(was, from, part.content)
  if (size !== undefined && hardLink(from, to)) {
    record!.carry(part.name, was)
    return { size }
  }
  let stored: Buffer
  let plain: Uint8Array
  try {
    stored = readFileSync(from)
    plain = part.gzipped ? gunzipSync(stored) : stored
  } catch {
    throw new KeptPartChanged()
  }
  if (sha256(plain) !== part.content) throw new KeptPartChanged()
  if (!hardLink(from, to)) writeFileSync(to, stored)
  record?.keep(part.name, part.content, stored.length)
  return { size: stored.length, bytes: stored }
}

export async function writeIndex(input: WriteIndexInput): Promise<WriteIndexResult> {
  const out = resolve(input.out)
  await checkReplaceable(out)
  await removeStaleTemps(out)
  const shardSize = input.shardSize ?? DEFAULT_SHARD_SIZE
  const settings = input.lexicalSettings ?? DEFAULT_LEXICAL_SETTINGS
  const postingsShardBytes = input.postingsShardBytes ?? DEFAULT_POSTINGS_SHARD_BYTES
  const corpusInput: CorpusInput = {
    chunks: input.chunks,
    out,
    settings,
    shardSize,
    postingsShardBytes,
    version: input.docpilotVersion,
    ...(input.cacheDir ? { cacheDir: input.cacheDir } : {}),
    ...(input.pageId ? { pageId: input.pageId } : {}),
    ...(input.embedDigests ? { embedDigests: input.embedDigests } : {}),
  }
  const previous = await previousManifest(out)
  const stateFile = input.cacheDir ? writeStateFile(input.cacheDir, out, [settings, shardSize, postingsShardBytes], input.docpilotVersion) : undefined
  const state = stateFile && previous ? await readWriteState(stateFile) : undefined
  const corpus = await corpusParts(corpusInput, state && previous ? { state, manifest: previous } : undefined)
  try {
    return await writeParts(input, out, corpus, previous, stateFile)
  } catch (error) {
    if (!(error instanceof KeptPartChanged)) throw error
    return writeParts(input, out, await corpusParts(corpusInput), previous, stateFile)
  }
}

async function writeParts(input: WriteIndexInput, out: string, corpus: CorpusParts, previousIndex: Partial<Manifest> | undefined, stateFile: string | undefined): Promise<WriteIndexResult> {
  const { lexical, postings, texts } = corpus
  const settings = input.lexicalSettings ?? DEFAULT_LEXICAL_SETTINGS
  const embedder = input.dense?.identity ?? input.embedder ?? NO_EMBEDDER
  const tuned = tuningFor(embedder)
  const gate = {
    ...tuned.gate,
    ...(input.gate?.vocabularyFloor !== undefined ? { vocabularyFloor: input.gate.vocabularyFloor } : {}),
    ...(input.gate?.subjectFloor !== undefined ? { subjectFloor: input.gate.subjectFloor } : {}),
    ...(input.gate?.threshold !== undefined ? { threshold: input.gate.threshold } : {}),
    ...(input.gate?.lexicalThreshold !== undefined ? { lexicalThreshold: input.gate.lexicalThreshold } : {}),
  }
  const manifest: Manifest = {
    format: FORMAT_VERSION,
    docpilot: input.docpilotVersion,
    createdAt: input.createdAt,
    // What was indexed: the text shards hold every chunk field, in order, and decode back to them, so
    // their digest (made anyway, to name them) identifies the corpus without hashing the chunks again.
    corpus: { digest: texts.digest, files: input.files, chunks: input.chunks.length },
    embedder,
    parts: {
      lexical: lexical.name,
      postings: postings.set,
      texts: texts.set,
      ...(input.dense ? { codes: input.dense.codesPart, vectors: input.dense.vectorsPart } : {}),
      ...(input.ranks?.name ? { ranks: input.ranks.name } : {}),
    },
    lexical: settings,
    retrieval: {
      fusion: input.dense ? { ...tuned.fusion } : {},
      gate: { ...gate, weights: { ...gate.weights } },
      ...(input.ranks ? { ranks: { words: input.ranks.words, source: input.ranks.name ? 'list' : 'model' } } : {}),
    },
    chat: input.chat ?? { chain: [] },
    ...(input.panel ? { panel: input.panel } : {}),
    ...(input.insights ? { insights: input.insights } : {}),
  }
  const manifestJson = JSON.stringify(manifest, null, 2) + '\n'
  // Vectors and model files are binary and stored as they are (already compact, or served compressed).
  const denseFiles = (input.dense?.files ?? []).map((f) => ('bytes' in f ? pendingBinary(f.name, f.bytes) : pendingBinaryRead(f.name, f.size, f.read)))
  const sources = new Map((input.dense?.files ?? []).flatMap((f) => ('file' in f && f.file !== undefined ? [[f.name, f.file] as const] : [])))
  const rankFiles = input.ranks?.name && input.ranks.bytes ? [pendingBinary(input.ranks.name, input.ranks.bytes)] : []
  const all: PendingPart[] = [lexical, ...postings.parts, ...texts.parts, ...denseFiles, ...rankFiles]
  const previous = previousLocations(previousIndex)
  const record = input.cacheDir ? await PartRecord.open(input.cacheDir, out) : undefined
  const stored = new Map<string, number>()
  // The bytes of the parts this run wrote or read, for the loader it returns.
  const held = new Map<string, Uint8Array>()

  const unchanged = previousIndex && record ? alreadyWritten(out, manifestJson, all, record) : undefined
  if (unchanged) {
    for (const [name, size] of unchanged) {
      stored.set(name, size)
      await input.onPart?.(name)
    }
  } else {
    await mkdir(dirname(out), { recursive: true })
    const tmp = join(dirname(out), `.${basename(out)}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`)
    try {
      await mkdir(tmp)
      for (const dir of new Set(all.map((p) => dirname(p.name)).filter((d) => d !== '.'))) await mkdir(join(tmp, dir), { recursive: true })
      for (const part of all) {
        const { size, bytes } = storePart(part, join(tmp, part.name), out, previous(part.name), record, sources.get(part.name))
        stored.set(part.name, size)
        if (bytes) held.set(part.name, bytes)
        await input.onPart?.(part.name)
      }
      // Last: a folder with a manifest is a complete index.
      await writeFile(join(tmp, MANIFEST_FILE), manifestJson)
      await swapInto(tmp, out)
      await record?.save()
    } catch (err) {
      await rm(tmp, { recursive: true, force: true })
      throw err
    }
  }
  // What the next run reuses, once this run's index is the one at `out`.
  await corpus.save()
  if (stateFile) await saveWriteState(stateFile, corpus.state)

  const parts: PartSize[] = [
    { name: MANIFEST_FILE, raw: Buffer.byteLength(manifestJson), gzip: gzip(manifestJson).length },
    ...all.map((p) => ({ name: p.name, raw: p.raw, gzip: stored.get(p.name)! })),
  ]
  const bytes = parts.reduce((s, p) => ({ raw: s.raw + p.raw, gzip: s.gzip + p.gzip }), { raw: 0, gzip: 0 })
  held.set(MANIFEST_FILE, Buffer.from(manifestJson))
  return { dir: out, manifest, parts, bytes, loader: memoryPartLoader(held, fsPartLoaderSync(out)), chunksMade: corpus.made }
}

/**
 * The stored size of each part when the index at `out` already is, byte for
 * byte, the one these parts and manifest make (a re-run that changed
 * nothing): the same manifest, every part where it would go and vouched for
 * by the record, nothing else in the folder. Then the run leaves the folder
 * as it is rather than linking every part into a new one. Undefined otherwise.
 */
function alreadyWritten(out: string, manifestJson: string, parts: readonly PendingPart[], record: PartRecord): Map<string, number> | undefined {
  try {
    if (readFileSync(join(out, MANIFEST_FILE), 'utf8') !== manifestJson) return undefined
    const folders = new Set(parts.map((p) => dirname(p.name)).filter((d) => d !== '.'))
    if (readdirSync(out, { recursive: true }).length !== parts.length + 1 + folders.size) return undefined
  } catch {
    return undefined
  }
  const sizes = new Map<string, number>()
  for (const part of parts) {
    if (part.kept !== undefined && part.kept !== part.name) return undefined
    const size = record.unchanged(part.name, join(out, part.name), part.content)
    if (size === undefined) return undefined
    sizes.set(part.name, size)
  }
  return sizes
}

/** Puts the finished temp folder at `out`, keeping the old index until the new one is in place. */
async function swapInto(tmp: string, out: string): Promise<void> {
  if (!(await exists(out))) {
    await rename(tmp, out)
    return
  }
  const old = `${tmp}.old`
  await rename(out, old)
  try {
    await rename(tmp, out)
  } catch (err) {
    await rename(old, out)
    throw err
  }
  await removeFolder(old)
}
