/**
 * `docpilot index` without the terminal: collect chunks from the sources,
 * embed them with the index's one embedder (unchanged chunks come from the
 * embedding cache), then write the index folder. Returns what the summary prints.
 */
import { join, resolve } from 'node:path'
import type { DocpilotConfig } from '../core/config/schema.ts'
import { publicChat, resolveChain, type ResolvedChain } from '../core/chain/resolve.ts'
import { EmbedError } from '../core/embed/types.ts'
import { MANIFEST_FILE, type EmbedderIdentity, type Manifest } from '../core/index/format.ts'
import { collectChunks, type CollectOptions, type CollectWarning } from './collect.ts'
import { suggestFromQuestions, type HeadingQuestion } from './suggest.ts'
import { checkSiteOut, excludeSiteOut, writeAgentFiles, type LlmsResult } from './llms.ts'
import { defaultCacheDir } from './cache-dir.ts'
import { autoEmbedFailure, checkModelFolder, denseFileSize, denseParts, embedChunks, resolveIndexEmbedder, type EmbedContext } from './embed.ts'
import { coldFetchCost, sampleQuestions, type FetchCost } from './fetch-cost.ts'
import { firstQuestionCost } from './fetch-cost-memo.ts'
import { PageCache } from './page-cache.ts'
import { ranksFor } from './ranks.ts'
import { assertNotShrinking, writeIndex, type WriteIndexInput, type WriteIndexResult } from './write.ts'
import { now } from './clock.ts'
import { isFile } from './stat.ts'

export interface BuildOptions {
  /** Docs folder, or the built site folder when mode is 'site'. Chunk paths are relative to it. */
  root: string
  mode: CollectOptions['mode']
  out: string
  config: DocpilotConfig
  docpilotVersion: string
  /** Defaults to createdAtFromEnv(process.env). */
  createdAt?: string
  /** Override docs.include / docs.exclude from the config. */
  include?: string[]
  exclude?: string[]
  onCollect?: (done: number, total: number, file: string) => void
  /** Warnings as they arise: the files' as soon as every file is read (before a shrink check can stop the run), then the agent files' one. */
  onWarnings?: (warnings: CollectWarning[]) => void
  /** Chunks embedded so far (cached ones count as done at once). */
  onEmbed?: (done: number, total: number) => void
  onPart?: WriteIndexInput['onPart']
  /** Replace the index at `out` even with an empty or much smaller one (see assertNotShrinking). */
  allowShrink?: boolean
  /**
   * Where the embedder's keys, relative model folders and the embedding cache
   * come from. Defaults: process.env, the working directory, DOCPILOT_CACHE_DIR
   * or .docpilot/cache there.
   */
  embed?: Partial<Omit<EmbedContext, 'chat'>>
  /** Also write llms.txt, llms-full.txt and the page copies into this site output folder (indexer/llms.ts). */
  llms?: { siteOut: string }
}

/** What the dense channel of the new index holds; absent when the config says embed: false. */
export interface EmbedSummary {
  identity: EmbedderIdentity
  /** Why this embedder, in words. */
  why: string
  /** Chunks sent to the embedder this run, and chunks whose vectors came from the cache. */
  embedded: number
  reused: number
  vectorBytes: number
  ms: number
}

export interface BuildResult extends Omit<WriteIndexResult, 'loader'> {
  /** Pages indexed (that gave chunks). */
  files: string[]
  /** Files matched but skipped (each has a warning). */
  skipped: number
  /** Built pages left out as asking not to be in a search index (robots noindex), without a warning. */
  noindex: number
  chunks: number
  warnings: CollectWarning[]
  embed?: EmbedSummary
  /** The agent files written (BuildOptions.llms). */
  llms?: LlmsResult
  /** The public chat chain written into the manifest (empty: readers get search answers). */
  chat: Manifest['chat']
  /** What a reader's first question downloads, measured on sample questions made of the docs' own headings (at an earlier build when `earlier` says so). */
  firstQuestion: FetchCost
  ms: number
}

/**
 * The manifest's creation time. Output must be byte-identical for the same
 * input, so the wall clock is never read: builds honour SOURCE_DATE_EPOCH
 * (the reproducible-builds convention, seconds since 1970) and otherwise
 * write the epoch itself. The corpus digest, not the date, identifies an index.
 */
export function createdAtFromEnv(env: Record<string, string | undefined>): string {
  const raw = env.SOURCE_DATE_EPOCH?.trim()
  if (raw && /^\d+$/.test(raw)) return new Date(Number(raw) * 1000).toISOString()
  return new Date(0).toISOString()
}

export async function buildIndex(opts: BuildOptions): Promise<BuildResult> {
  const started = now()
  const { config } = opts
  // The chain is resolved once, before any work: the embedder ('auto' follows its head) and the manifest share it.
  const ctx = embedContext(opts)
  if (opts.llms) checkSiteOut({ siteOut: opts.llms.siteOut, root: opts.root, mode: opts.mode })
  await checkModelFolder(config.embed, ctx.configDir)
  const shape = {
    mode: opts.mode,
    contentSelector: config.docs.contentSelector,
    slugger: config.anchors.slugger,
    urls: config.urls,
    chunks: config.chunks,
    limits: { maxFileBytes: config.docs.maxFileBytes, maxNesting: config.docs.maxNesting },
  }
  // The parse time backstop is left out of the page cache's key: a page cut by it is never cached.
  const limits = { ...shape.limits, parseTimeoutMs: config.docs.parseTimeoutMs }
  const pages = await PageCache.open(ctx.cacheDir, shape, opts.docpilotVersion, resolve(opts.out))
  const collected = await collectChunks(
    {
      ...shape,
      limits,
      root: opts.root,
      include: opts.include ?? config.docs.include,
      exclude: [...(opts.exclude ?? config.docs.exclude ?? []), ...excludeSiteOut(opts.root, opts.llms?.siteOut)],
      cache: pages,
      pages: Boolean(opts.llms),
    },
    opts.onCollect,
  )
  await pages.save()
  opts.onWarnings?.(collected.warnings)
  await assertNotShrinking(resolve(opts.out), { pages: collected.files.length, chunks: collected.chunks.length, warnings: collected.warnings.length, ...(opts.allowShrink ? { allowShrink: true } : {}) })
  const embedStarted = now()
  const indexEmbedder = await resolveIndexEmbedder(config.embed, ctx)
  let dense: WriteIndexInput['dense']
  let embed: EmbedSummary | undefined
  if (indexEmbedder) {
    const cache = { cacheDir: ctx.cacheDir, scope: resolve(opts.out) }
    const run = await embedChunks(indexEmbedder, collected.chunks, { ...cache, onProgress: opts.onEmbed, digests: collected.digests }).catch(async (err: unknown) => {
      if (!indexEmbedder.auto || !(err instanceof EmbedError)) throw err
      const kept = (await isFile(join(resolve(opts.out), MANIFEST_FILE))) ? `; the one in ${opts.out} is left as it was` : ''
      throw new EmbedError(autoEmbedFailure(err, indexEmbedder, `No index was written${kept}.`), err.code, { cause: err })
    })
    dense = await denseParts(indexEmbedder, run, cache)
    embed = {
      identity: dense.identity,
      why: indexEmbedder.why,
      embedded: run.embedded,
      reused: run.reused,
      vectorBytes: dense.files.filter((f) => f.name === dense!.codesPart || f.name === dense!.vectorsPart).reduce((s, f) => s + denseFileSize(f), 0),
      ms: now() - embedStarted,
    }
  }
  // The panel walks the chain the build environment resolves: which members hold a key or base URL
  // (only whether a variable is set is read; no value reaches the manifest).
  const chat = publicChat(ctx.chain, config.chat)
  const { loader, ...written } = await writeIndex({
    chunks: collected.chunks,
    files: collected.files.length,
    out: opts.out,
    docpilotVersion: opts.docpilotVersion,
    createdAt: opts.createdAt ?? createdAtFromEnv(process.env),
    gate: config.gate,
    ranks: await ranksFor(dense),
    ...(dense ? { dense } : {}),
    chat,
    panel: { suggestions: panelSuggestions(config.panel.suggestions, collected.questions) },
    ...(config.insights.enabled ? { insights: { questions: config.feedback.storeText } } : {}),
    cacheDir: ctx.cacheDir,
    pageId: (path) => pages.pageId(path),
    embedDigests: collected.digests,
    onPart: opts.onPart,
  })
  const questions = sampleQuestions(collected.chunks)
  const firstQuestion = await firstQuestionCost({
    cacheDir: ctx.cacheDir,
    scope: resolve(opts.out),
    manifest: written.manifest,
    questions,
    pages: new Map(collected.files.map((file) => [file, pages.pageId(file)])),
    measure: () => coldFetchCost(loader, questions),
  })
  const llms = opts.llms
    ? await writeAgentFiles(collected.pages, { siteOut: opts.llms.siteOut, root: opts.root, mode: opts.mode, files: collected.files, config, record: { cacheDir: ctx.cacheDir, scope: resolve(opts.out) }, pageId: (path) => pages.pageId(path) })
    : undefined
  if (llms?.sharedWith) {
    const shared = { file: llms.dir, message: sharedSiteOut(llms.sharedWith) }
    collected.warnings.push(shared)
    opts.onWarnings?.([shared])
  }
  return {
    ...written,
    firstQuestion,
    files: collected.files,
    skipped: collected.skipped,
    noindex: collected.noindex,
    chunks: collected.chunks.length,
    warnings: collected.warnings,
    ...(embed ? { embed } : {}),
    ...(llms ? { llms } : {}),
    chat,
    ms: now() - started,
  }
}

function sharedSiteOut(otherIndex: string): string {
  return (
    `the index in ${otherIndex} also writes its agent files into this folder: llms.txt and llms-full.txt now list this run's pages only, ` +
    "the other index's page copies are kept, and neither run removes the copies of pages deleted since " +
    `(each folder of agent files belongs to one index: give each its own --site-out, or llms.siteOut, or delete ${otherIndex} if nothing uses it)`
  )
}

/** The owner's suggestions as written, none for `false`, else questions derived from the headings. */
function panelSuggestions(configured: DocpilotConfig['panel']['suggestions'], questions: readonly HeadingQuestion[]): string[] {
  if (configured === false) return []
  return configured ?? suggestFromQuestions(questions)
}

function embedContext(opts: BuildOptions): EmbedContext & { chain: ResolvedChain } {
  const env = opts.embed?.env ?? process.env
  const cwd = process.cwd()
  return {
    env,
    chat: opts.config.chat,
    chain: resolveChain(opts.config.chat, env, { budget: opts.config.budget }),
    configDir: opts.embed?.configDir ?? cwd,
    cacheDir: opts.embed?.cacheDir ?? defaultCacheDir(cwd, env),
    ...(opts.embed?.fetch ? { fetch: opts.embed.fetch } : {}),
  }
}
