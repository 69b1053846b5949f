/**
 * `docpilot index` without the terminal: collect chunks from the sources,
 * then write the index folder. Returns what the summary prints.
 */
import type { DocpilotConfig } from '../core/config/schema.ts'
import { collectChunks, type CollectOptions, type CollectWarning } from './collect.ts'
import { writeIndex, type WriteIndexInput, type WriteIndexResult } from './write.ts'

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
  onPart?: WriteIndexInput['onPart']
}

export interface BuildResult extends WriteIndexResult {
  files: string[]
  chunks: number
  warnings: CollectWarning[]
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
  const started = performance.now()
  const { config } = opts
  const collected = await collectChunks(
    {
      root: opts.root,
      mode: opts.mode,
      include: opts.include ?? config.docs.include,
      exclude: opts.exclude ?? config.docs.exclude,
      contentSelector: config.docs.contentSelector,
      slugger: config.anchors.slugger,
      urls: config.urls,
      chunks: config.chunks,
    },
    opts.onCollect,
  )
  const written = await writeIndex({
    chunks: collected.chunks,
    files: collected.files.length,
    out: opts.out,
    docpilotVersion: opts.docpilotVersion,
    createdAt: opts.createdAt ?? createdAtFromEnv(process.env),
    gate: config.gate,
    onPart: opts.onPart,
  })
  return {
    ...written,
    files: collected.files,
    chunks: collected.chunks.length,
    warnings: collected.warnings,
    ms: performance.now() - started,
  }
}
