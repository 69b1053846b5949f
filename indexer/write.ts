/**
 * Writes an index folder in place. Every part has a content-addressed name
 * (a text or postings shard: its number and a tag of its own content), so a
 * new index's parts go in beside the previous index's without touching them;
 * then manifest.json, replaced atomically, names the new ones; then whatever
 * the folder holds that the new manifest does not name is removed. Until the
 * manifest is replaced the folder serves the previous index as it was, so a
 * run that fails at any point leaves it serving (and removes what it added),
 * and a reader never finds a manifest naming a part that is not there. A
 * re-index after one page changed writes that page's parts and leaves the
 * others where they are, unread.
 *
 * Output is a pure function of the input: same chunks and settings, same
 * bytes (gzip headers carry no time; createdAt comes from the caller).
 */
import { closeSync, linkSync, mkdirSync, openSync, readdirSync, readFileSync, renameSync, statSync, unlinkSync, writeFileSync } from 'node:fs'
import { mkdir, readFile, rm, stat, readdir } from 'node:fs/promises'
import { basename, dirname, join, resolve } from 'node:path'
import { gunzipSync, gzipSync } from 'node:zlib'
import { FORMAT_VERSION, MANIFEST_FILE, type ChunkRecord, type EmbedderIdentity, type Manifest } from '../core/index/format.ts'
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
import { replaceFile } from './cache-file.ts'
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

/**
 * Refuses to write into a folder that holds something other than a docpilot
 * index: one with a manifest, or one a killed run was writing (`ours`).
 */
async function checkReplaceable(out: string, ours: boolean): Promise<void> {
  const info = await stat(out).catch(() => null)
  if (!info) return
  if (!info.isDirectory()) throw new OutDirError(`${out} exists and is not a folder. Choose another --out.`)
  const entries = await readdir(out)
  if (entries.length && !ours && !entries.includes(MANIFEST_FILE)) {
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
export async function assertNotShrinking(out: string, run: { pages: number; chunks: number; warnings?: number; allowShrink?: boolean }): Promise<void> {
  if (run.allowShrink) return
  const how = run.warnings
    ? 'Fix the warnings above, or pass --allow-shrink if this is deliberate.'
    : 'Check that this is the docs folder you meant (and docs.include/docs.exclude), or pass --allow-shrink if pages were removed on purpose.'
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

/** Temp folders (and swapped-out old indexes) that runs of docpilot before format 3 left when killed. */
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

/** Another live run is writing the same index folder. */
export class IndexBusyError extends Error {
  override name = 'IndexBusyError'
}

/**
 * Takes the index folder `out` for this run: a lock file beside it holding
 * the run's process id, made only if absent. Two runs writing one folder in
 * place would remove each other's new parts, so a live holder makes this
 * one stop; a dead one's lock (a killed run) is taken over, and says the
 * folder is docpilot's even without a manifest (`stale`).
 */
function lockIndex(out: string): { stale: boolean; release: () => void } {
  const lock = join(dirname(out), `.${basename(out)}.lock`)
  let stale = false
  for (;;) {
    try {
      const fd = openSync(lock, 'wx')
      writeFileSync(fd, String(process.pid))
      closeSync(fd)
      // A run stopped with Ctrl+C exits through process.exit (the CLI's handler), which runs no finally: the lock
      // goes with the process, unless the folder has no manifest yet (a first run stopped while writing parts).
      // Then the dead holder's lock is what tells the next run the folder is docpilot's to replace (`stale`).
      const onExit = () => {
        if (present(join(out, MANIFEST_FILE))) rmSync(lock)
      }
      process.once('exit', onExit)
      return {
        stale,
        release: () => {
          process.off('exit', onExit)
          unlinkSync(lock)
        },
      }
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
    const holder = Number(readFileSync(lock, 'utf8').trim())
    if (holder && holder !== process.pid && isRunning(holder)) {
      throw new IndexBusyError(`Another docpilot run (process ${holder}) is writing the index at ${out}. Run again once it has finished; if no such run exists, delete ${lock}.`)
    }
    unlinkSync(lock)
    stale = true
  }
}

/** Whether `path` is there, as a file or anything else. */
function present(path: string): boolean {
  try {
    closeSync(openSync(path, 'r'))
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code !== 'ENOENT'
  }
}

/**
 * Puts `bytes` at `to`: written directly when the name is new (no index
 * names it yet), else written beside it and renamed over it, so a name the
 * previous index may serve never holds half a file. Returns whether `to`
 * is a file this run created.
 */
function writeInto(to: string, bytes: Uint8Array): boolean {
  try {
    writeFileSync(to, bytes, { flag: 'wx' })
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
  }
  const tmp = `${to}.${process.pid}.tmp`
  writeFileSync(tmp, bytes)
  renameSync(tmp, to)
  return false
}

/** Links `from` at `to`, over whatever `to` holds. Undefined when the file system cannot link; else whether `to` is new. */
function linkInto(from: string, to: string): boolean | undefined {
  try {
    linkSync(from, to)
    return true
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EEXIST') return undefined
  }
  // Already a link to it (a rename between two links to one file would do nothing and leave the temp name).
  if (sameFile(from, to)) return false
  const tmp = `${to}.${process.pid}.tmp`
  try {
    linkSync(from, tmp)
  } catch {
    return undefined
  }
  renameSync(tmp, to)
  return false
}

function sameFile(a: string, b: string): boolean {
  try {
    const [x, y] = [statSync(a), statSync(b)]
    return x.ino === y.ino && x.dev === y.dev
  } catch {
    return false
  }
}

/**
 * The bytes stored at `path` when they hold `part`'s content (a part already
 * in place that the record cannot vouch for: a lost cache, a stamp changed
 * by a copy), else undefined.
 */
function storedAs(path: string, part: PendingPart): Uint8Array | undefined {
  let stored: Uint8Array
  try {
    stored = readFileSync(path)
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
  return Buffer.from(plain.buffer, plain.byteOffset, plain.byteLength).equals(plainOf(part)) ? stored : undefined
}

/** What storing a part did: its stored size, its bytes when this run holds them, and whether its file is new. */
interface Stored {
  size: number
  bytes?: Uint8Array
  created?: boolean
}

/**
 * Puts a part at its name in the index folder `out`: left as it is when the
 * record vouches for the file there, else linked to `source` (a copy of a
 * binary part its maker keeps, named by its content: the static model's rows
 * pack in the cache), else left as it is when its bytes already match, else
 * compressed and written. Synchronous, like the compression: for the ~580
 * parts of a large site, promise-API stats, links and writes cost more CPU
 * than the file system work itself.
 */
function storePart(part: PendingPart, out: string, record: PartRecord | undefined, source: string | undefined): Stored {
  const to = `${out}/${part.name}`
  const size = record?.unchanged(part.name, to, part.content)
  if (size !== undefined) {
    record!.carry(part.name, part.name)
    // A part stored as it is needs no read to be at hand (one its maker left on disk stays there: the loader reads the index's copy).
    return part.gzipped || !part.plain ? { size } : { size, bytes: part.plain }
  }
  if (part.kept !== undefined) return storeKept(part, to, `${out}/${part.kept}`, part.kept, record)
  if (source !== undefined && !part.gzipped) {
    const created = linkInto(source, to)
    if (created !== undefined) {
      record?.keep(part.name, part.content, part.raw)
      // Held for the loader only when this run holds it already (a first build's pack): reading 17 MB to hold
      // what the loader can read from the index when asked would undo the link.
      return { size: part.raw, created, ...(part.plain ? { bytes: part.plain } : {}) }
    }
  }
  let bytes = storedAs(to, part)
  let created = false
  if (!bytes) {
    bytes = encoded(part)
    created = writeInto(to, bytes)
  }
  record?.keep(part.name, part.content, bytes.length)
  return { size: bytes.length, bytes, created }
}

/** A part kept from the previous index no longer holds what the write state says: the corpus parts are made in full instead. */
class KeptPartChanged extends Error {}

/**
 * Puts a part this run did not make (corpus-parts.ts kept it from the
 * previous index, at `from`) at `to`: left as it is, or linked, when the
 * record vouches for the previous copy, else only once its bytes are
 * checked against the content.
 */
function storeKept(part: PendingPart, to: string, from: string, was: string, record: PartRecord | undefined): Stored {
  const size = from === to ? undefined : record?.unchanged(was, from, part.content)
  if (size !== undefined) {
    const created = linkInto(from, to)
    if (created !== undefined) {
      record!.carry(part.name, was)
      return { size, created }
    }
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
  const created = from === to ? false : (linkInto(from, to) ?? writeInto(to, stored))
  record?.keep(part.name, part.content, stored.length)
  return { size: stored.length, bytes: stored, created }
}

export async function writeIndex(input: WriteIndexInput): Promise<WriteIndexResult> {
  const out = resolve(input.out)
  await mkdir(dirname(out), { recursive: true })
  const lock = lockIndex(out)
  try {
    await checkReplaceable(out, lock.stale)
    await removeStaleTemps(out)
    return await writeLocked(input, out)
  } finally {
    lock.release()
  }
}

async function writeLocked(input: WriteIndexInput, out: string): Promise<WriteIndexResult> {
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
    return await writeParts(input, out, corpus, stateFile)
  } catch (error) {
    if (!(error instanceof KeptPartChanged)) throw error
    return writeParts(input, out, await corpusParts(corpusInput), stateFile)
  }
}

async function writeParts(input: WriteIndexInput, out: string, corpus: CorpusParts, stateFile: string | undefined): Promise<WriteIndexResult> {
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
  const record = input.cacheDir ? await PartRecord.open(input.cacheDir, out) : undefined
  const stored = new Map<string, number>()
  // The bytes of the parts this run wrote or read, for the loader it returns.
  const held = new Map<string, Uint8Array>()
  // What this run added to the folder, removed again if it fails before the manifest names it.
  const created: string[] = []
  const madeOut = !present(out)
  try {
    for (const dir of new Set(['.', ...all.map((p) => dirname(p.name))])) mkdirSync(join(out, dir), { recursive: true })
    for (const part of all) {
      const result = storePart(part, out, record, sources.get(part.name))
      stored.set(part.name, result.size)
      if (result.bytes) held.set(part.name, result.bytes)
      if (result.created) created.push(part.name)
      await input.onPart?.(part.name)
    }
    // Last: the manifest names the new parts, all in place by now.
    const manifestFile = join(out, MANIFEST_FILE)
    if (textOf(manifestFile) !== manifestJson) await replaceFile(manifestFile, manifestJson)
  } catch (error) {
    if (madeOut) await rm(out, { recursive: true, force: true })
    else for (const name of created) rmSync(`${out}/${name}`)
    throw error
  }
  await removeUnnamed(out, new Set([MANIFEST_FILE, ...all.map((p) => p.name)]))
  await record?.save()
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

/** The file's text, or undefined when it cannot be read. */
function textOf(path: string): string | undefined {
  try {
    return readFileSync(path, 'utf8')
  } catch {
    return undefined
  }
}

/** Removes the file at `path` if it is there. */
function rmSync(path: string): void {
  try {
    unlinkSync(path)
  } catch {
    // Already gone: nothing to undo.
  }
}

/**
 * Removes what the index folder holds besides the parts the manifest names
 * (`named`, and the manifest): the previous index's parts that changed, and
 * any other file or folder (a killed run's parts, an older format's shard
 * folders). Folders of named parts keep only those parts.
 */
async function removeUnnamed(out: string, named: ReadonlySet<string>): Promise<void> {
  const folders = new Set([...named].map((name) => dirname(name)).filter((d) => d !== '.'))
  for (const entry of readdirSync(out, { withFileTypes: true })) {
    const path = `${out}/${entry.name}`
    if (!entry.isDirectory()) {
      if (!named.has(entry.name)) rmSync(path)
    } else if (!folders.has(entry.name)) {
      await removeFolder(path)
    } else {
      for (const inner of readdirSync(path, { withFileTypes: true })) {
        if (named.has(`${entry.name}/${inner.name}`)) continue
        if (inner.isDirectory()) await removeFolder(`${path}/${inner.name}`)
        else rmSync(`${path}/${inner.name}`)
      }
    }
  }
}
