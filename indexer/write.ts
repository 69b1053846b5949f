/**
 * Writes an index folder: content-addressed, gzip-compressed parts, then
 * manifest.json last, all inside a temp folder that replaces the old index
 * by rename. A run that fails at any point leaves the previous index as it
 * was, and never a folder that looks complete but is not.
 *
 * Output is a pure function of the input: same chunks and settings, same
 * bytes (gzip headers carry no time; createdAt comes from the caller).
 */
import { createHash, randomBytes } from 'node:crypto'
import { linkSync, readFileSync, writeFileSync } from 'node:fs'
import { mkdir, readFile, rename, rm, stat, writeFile, readdir } from 'node:fs/promises'
import { basename, dirname, join, resolve } from 'node:path'
import { gunzipSync, gzipSync } from 'node:zlib'
import { FORMAT_VERSION, isShardSet, MANIFEST_FILE, shardFile, type ChunkRecord, type EmbedderIdentity, type Manifest, type ShardSet } from '../core/index/format.ts'
import { chunkTermCounter, countLexicalPostings, DEFAULT_LEXICAL_SETTINGS, type LexicalSettings } from '../core/retrieval/lexical.ts'
import { DEFAULT_POSTINGS_SHARD_BYTES, sectionRuns, splitLexicalIndex } from '../core/index/postings.ts'
import { encodeTextShard, memoryPartLoader, type PartLoader } from '../core/index/parts.ts'
import { tuningFor } from '../core/retrieval/tuning.ts'
import type { DenseParts } from './embed.ts'
import { fsPartLoaderSync } from './fs-parts.ts'
import { LexicalCache } from './lexical-cache.ts'
import { PartRecord } from './part-record.ts'
import type { RanksPart } from './ranks.ts'
import { exists } from './stat.ts'

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
  gate?: { threshold?: number; lexicalThreshold?: number; vocabularyFloor?: number }
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
   * reading them back, else compares each with the previous copy) and each
   * chunk's lexical counts (lexical-cache.ts).
   */
  cacheDir?: string
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
}

/** The out folder exists but is not an index docpilot may replace. */
export class OutDirError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'OutDirError'
  }
}

function digest(data: string | Uint8Array): string {
  return createHash('sha256').update(data).digest('hex')
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

interface PendingPart {
  name: string
  /** The part's content; JSON parts are stored gzip-compressed. */
  plain: Uint8Array
  gzipped: boolean
  /**
   * What identifies the content (PartRecord): the digest of a JSON part; the
   * name of a binary part, which its maker names by its content.
   */
  content: string
}

const encoded = (part: PendingPart): Uint8Array => (part.gzipped ? gzip(part.plain) : part.plain)

function pendingJson(name: string, json: string, content: string): PendingPart {
  return { name, plain: Buffer.from(json), gzipped: true, content }
}

const pendingBinary = (name: string, bytes: Uint8Array): PendingPart => ({ name, plain: bytes, gzipped: false, content: name })

function jsonPart(kind: string, value: unknown): PendingPart {
  const json = JSON.stringify(value)
  const content = digest(json)
  return pendingJson(`${kind}.${content.slice(0, 16)}.json.gz`, json, content)
}

/**
 * Numbered gzip JSON parts in one folder named by the digest of them all (see
 * ShardSet), from their JSON; `digest` is that digest in full.
 */
function jsonShards<Extra extends Pick<ShardSet, 'per' | 'firsts'>>(
  kind: string,
  jsons: readonly string[],
  extra: Extra,
): { set: ShardSet & Extra; parts: PendingPart[]; digest: string } {
  const digests = jsons.map(digest)
  const all = createHash('sha256')
  for (const d of digests) all.update(d)
  const whole = all.digest('hex')
  const set = { dir: `${kind}.${whole.slice(0, 16)}`, count: jsons.length, ext: '.json.gz', ...extra }
  return { set, parts: jsons.map((json, i) => pendingJson(shardFile(set, i), json, digests[i]!)), digest: whole }
}

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
async function previousLocations(out: string): Promise<(name: string) => string | undefined> {
  const previous = await previousManifest(out)
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
  if (!Buffer.from(plain.buffer, plain.byteOffset, plain.byteLength).equals(part.plain)) return undefined
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
 * (`was`, its name there) when the record vouches for it or its bytes match,
 * else compressed and written. Returns the stored size, and the stored bytes
 * when this run holds them. Synchronous, like the compression: for
 * the ~580 parts of a large site, promise-API stats, links and writes cost
 * more CPU than the file system work itself.
 */
function storePart(part: PendingPart, to: string, out: string, was: string | undefined, record: PartRecord | undefined): { size: number; bytes?: Uint8Array } {
  const from = was === undefined ? undefined : join(out, was)
  if (was !== undefined && from && record) {
    const size = record.unchanged(was, from, part.content)
    if (size !== undefined && hardLink(from, to)) {
      record.carry(part.name, was)
      // A part stored as it is needs no read to be at hand.
      return part.gzipped ? { size } : { size, bytes: part.plain }
    }
  }
  let bytes = linkUnchanged(from, to, part)
  if (!bytes) {
    bytes = encoded(part)
    writeFileSync(to, bytes)
  }
  record?.keep(part.name, part.content, bytes.length)
  return { size: bytes.length, bytes }
}

export async function writeIndex(input: WriteIndexInput): Promise<WriteIndexResult> {
  const out = resolve(input.out)
  await checkReplaceable(out)
  await removeStaleTemps(out)
  const shardSize = input.shardSize ?? DEFAULT_SHARD_SIZE
  const settings = input.lexicalSettings ?? DEFAULT_LEXICAL_SETTINGS
  const chunks = input.chunks

  const lexicalCache = input.cacheDir ? await LexicalCache.open(input.cacheDir, settings, input.docpilotVersion, out) : undefined
  const termsOf = chunkTermCounter(settings)
  const counted = lexicalCache ? lexicalCache.countPostings(chunks, termsOf) : countLexicalPostings(chunks, settings, termsOf)
  const split = splitLexicalIndex(counted, sectionRuns(chunks), input.postingsShardBytes ?? DEFAULT_POSTINGS_SHARD_BYTES)
  const lexical = jsonPart('lexical', split.head)
  const postings = jsonShards('postings', split.shardJsons, { firsts: split.firsts })
  const shardTexts = []
  for (let i = 0; i < chunks.length; i += shardSize) shardTexts.push(JSON.stringify(encodeTextShard(chunks.slice(i, i + shardSize))))
  const texts = jsonShards('texts', shardTexts, { per: shardSize })

  const embedder = input.dense?.identity ?? input.embedder ?? NO_EMBEDDER
  const tuned = tuningFor(embedder)
  const gate = {
    ...tuned.gate,
    ...(input.gate?.vocabularyFloor !== undefined ? { vocabularyFloor: input.gate.vocabularyFloor } : {}),
    ...(input.gate?.threshold !== undefined ? { threshold: input.gate.threshold } : {}),
    ...(input.gate?.lexicalThreshold !== undefined ? { lexicalThreshold: input.gate.lexicalThreshold } : {}),
  }
  const manifest: Manifest = {
    format: FORMAT_VERSION,
    docpilot: input.docpilotVersion,
    createdAt: input.createdAt,
    // What was indexed: the text shards hold every chunk field, in order, and decode back to them, so
    // their digest (made anyway, to name them) identifies the corpus without hashing the chunks again.
    corpus: { digest: texts.digest, files: input.files, chunks: chunks.length },
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
  const denseFiles = (input.dense?.files ?? []).map((f) => pendingBinary(f.name, f.bytes))
  const rankFiles = input.ranks?.name && input.ranks.bytes ? [pendingBinary(input.ranks.name, input.ranks.bytes)] : []
  const all: PendingPart[] = [lexical, ...postings.parts, ...texts.parts, ...denseFiles, ...rankFiles]
  const previous = await previousLocations(out)
  const record = input.cacheDir ? await PartRecord.open(input.cacheDir, out) : undefined
  const stored = new Map<string, number>()
  // The bytes of the parts this run wrote or read, for the loader it returns.
  const held = new Map<string, Uint8Array>()

  await mkdir(dirname(out), { recursive: true })
  const tmp = join(dirname(out), `.${basename(out)}.tmp-${process.pid}-${randomBytes(4).toString('hex')}`)
  try {
    await mkdir(tmp)
    for (const dir of new Set(all.map((p) => dirname(p.name)).filter((d) => d !== '.'))) await mkdir(join(tmp, dir), { recursive: true })
    for (const part of all) {
      const { size, bytes } = storePart(part, join(tmp, part.name), out, previous(part.name), record)
      stored.set(part.name, size)
      if (bytes) held.set(part.name, bytes)
      await input.onPart?.(part.name)
    }
    // Last: a folder with a manifest is a complete index.
    await writeFile(join(tmp, MANIFEST_FILE), manifestJson)
    await swapInto(tmp, out)
    await record?.save()
    await lexicalCache?.save()
  } catch (err) {
    await rm(tmp, { recursive: true, force: true })
    throw err
  }

  const parts: PartSize[] = [
    { name: MANIFEST_FILE, raw: Buffer.byteLength(manifestJson), gzip: gzip(manifestJson).length },
    ...all.map((p) => ({ name: p.name, raw: p.plain.length, gzip: stored.get(p.name)! })),
  ]
  const bytes = parts.reduce((s, p) => ({ raw: s.raw + p.raw, gzip: s.gzip + p.gzip }), { raw: 0, gzip: 0 })
  held.set(MANIFEST_FILE, Buffer.from(manifestJson))
  return { dir: out, manifest, parts, bytes, loader: memoryPartLoader(held, fsPartLoaderSync(out)) }
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
  await rm(old, { recursive: true, force: true })
}
