/** `docpilot index`: build the static index from a docs folder or a built site. */
import { existsSync } from 'node:fs'
import { join, relative, resolve } from 'node:path'
import type { Command } from 'commander'
import { MANIFEST_FILE, type Manifest } from '../../core/index/format.ts'
import { buildIndex, createdAtFromEnv, type EmbedSummary } from '../../indexer/build.ts'
import type { FetchCost, PartKind } from '../../indexer/fetch-cost.ts'
import { defaultCacheDir } from '../../indexer/cache-dir.ts'
import { CONFIG_OPTION_HELP, configNamed } from '../config-file.ts'
import { loadConfigFor, UsageError, type CliContext } from '../context.ts'
import { counted, kb } from '../format.ts'
import { DEFAULT_SITE_OUT, siteOutFor } from '../site-out.ts'
import { docsPage } from '../package-root.ts'
import type { LlmsResult } from '../../indexer/llms.ts'

interface IndexFlags {
  site?: string | boolean
  out?: string
  config?: string
  include?: string[]
  exclude?: string[]
  allowShrink?: boolean
  siteOut?: string
  /** false with --no-llms. */
  llms: boolean
}


export function defineIndexCommand(program: Command, ctx: CliContext): void {
  program
    .command('index')
    .summary('build the search index from your docs')
    .description(
      'Read Markdown/MDX pages (or a built HTML site with --site) and write the static index the panel searches:\n' +
        'manifest.json plus content-addressed parts. The old index stays in place until the new one is complete.\n' +
        'Page paths in the index are relative to the folder you name; narrow what is read with --include.',
    )
    .argument('[dir]', 'docs folder (default: docs.dir or docs.site from the config)')
    .option('--site [dir]', 'index a built HTML site (like Pagefind): the folder given here, or [dir]')
    .option('--out <dir>', 'where to write the index (default: `out` from the config, .docpilot/index)')
    .option('--include <glob...>', 'only files matching these globs, relative to the folder (default: **/*.md **/*.mdx, or **/*.html with --site)')
    .option('--exclude <glob...>', 'skip files matching these globs')
    .option('--site-out <dir>', `your site's output folder, served at urls.base: llms.txt, llms-full.txt and a .md copy of each page go there (default: llms.siteOut from the config, ${DEFAULT_SITE_OUT})`)
    .option('--no-llms', 'skip llms.txt, llms-full.txt and the page copies')
    .option('--config <file>', CONFIG_OPTION_HELP)
    .option('--allow-shrink', 'replace the index even when this run indexes no page, or under half the pages of the index already in --out')
    .addHelpText(
      'after',
      `
Examples:
  $ docpilot index ./docs
  $ docpilot index --site dist --out dist/docpilot
  $ docpilot index ./docs --out dist/docpilot --site-out dist   # llms.txt at dist/llms.txt
  $ docpilot index ../astro --include 'src/content/docs/en/**/*.mdx'   # paths stay relative to ../astro

The manifest's createdAt is SOURCE_DATE_EPOCH when set, else 1970-01-01: the same docs always give byte-identical files.`,
    )
    .action(async (dir: string | undefined, flags: IndexFlags) => {
      // The index writes its cache folder anyway: the validated config is kept there too (config-memo.ts).
      const loaded = await loadConfigFor(ctx, flags.config, { cacheDir: defaultCacheDir(ctx.cwd, ctx.env), version: ctx.version })
      const { config } = loaded
      const siteDir = typeof flags.site === 'string' ? flags.site : undefined
      if (siteDir && dir) throw new UsageError(`give the site folder once: either \`docpilot index ${dir} --site\` or \`docpilot index --site ${siteDir}\``)
      const mode = flags.site || (!dir && !config.docs.dir && config.docs.site) ? 'site' : 'source'
      const fromFlags = siteDir ?? dir
      const fromConfig = mode === 'site' ? config.docs.site : config.docs.dir
      if (!fromFlags && !fromConfig) {
        throw new UsageError(
          mode === 'site'
            ? `name the built site folder, e.g. \`docpilot index --site dist\`, or set docs.site in ${configNamed(ctx.cwd, loaded)}`
            : `name the docs folder, e.g. \`docpilot index ./docs\`, or set docs.dir in ${configNamed(ctx.cwd, loaded)}`,
        )
      }
      const root = fromFlags ? resolve(ctx.cwd, fromFlags) : resolve(loaded.dir, fromConfig!)
      const out = flags.out ? resolve(ctx.cwd, flags.out) : resolve(loaded.dir, config.out)
      const llms = flags.llms && config.llms.enabled ? { siteOut: siteOutFor(ctx, loaded, flags.siteOut) } : undefined

      const progress = await makeProgress(ctx)
      // Parts are written beside the index the site serves and the manifest switched last, so a stop at any
      // point leaves a whole index: the one before this run, or this run's once its manifest is in place.
      const interrupted = () => {
        progress.stop()
        ctx.stderr(
          existsSync(join(out, MANIFEST_FILE))
            ? `\ninterrupted: ${out} is left whole (the index before this run, unless this one had finished writing); run docpilot index again to finish\n`
            : `\ninterrupted: no index was written at ${out}; run docpilot index again\n`,
        )
        process.exit(130)
      }
      process.once('SIGINT', interrupted)
      let result
      try {
        result = await buildIndex({
          root,
          mode,
          out,
          config,
          docpilotVersion: ctx.version,
          createdAt: createdAtFromEnv(ctx.env),
          include: flags.include,
          exclude: flags.exclude,
          ...(flags.allowShrink ? { allowShrink: true } : {}),
          onCollect: progress.update,
          onWarnings: (warnings) => {
            progress.stop()
            for (const w of warnings) ctx.stderr(`warning: ${w.file}: ${w.message}\n`)
          },
          onEmbed: progress.embedded,
          embed: { env: ctx.env, configDir: loaded.dir, cacheDir: defaultCacheDir(ctx.cwd, ctx.env) },
          ...(llms ? { llms } : {}),
        })
      } finally {
        process.off('SIGINT', interrupted)
        progress.stop()
      }

      const rel = relative(ctx.cwd, result.dir)
      const shown = rel && !rel.startsWith('..') ? rel : result.dir
      // Shard folders are listed as one line each: thousands of files, fetched a few at a time.
      const groups = new Map<string, { raw: number; gzip: number; files: number }>()
      for (const p of result.parts) {
        const key = p.name.includes('/') ? `${p.name.slice(0, p.name.indexOf('/'))}/` : p.name
        const g = groups.get(key) ?? { raw: 0, gzip: 0, files: 0 }
        groups.set(key, { raw: g.raw + p.raw, gzip: g.gzip + p.gzip, files: g.files + 1 })
      }
      ctx.stdout(
        [
          `Indexed ${counted(result.files.length, 'file')} into ${counted(result.chunks, 'chunk')} in ${(result.ms / 1000).toFixed(1)} s` +
            (result.skipped ? `; skipped ${result.skipped} (see the warnings)` : '') +
            (result.noindex ? `; left out ${result.noindex} not meant for search (noindex, generated indexes)` : '') +
            (result.warnings.length ? ` (${counted(result.warnings.length, 'warning')})` : ''),
          `  ${shown}: ${result.parts.length} files, ${kb(result.bytes.raw)} raw, ${kb(result.bytes.gzip)} gzip`,
          ...[...groups].map(([name, g]) => `    ${(g.files > 1 ? `${name} (${g.files} files)` : name).padEnd(44)} ${kb(g.raw).padStart(10)} raw ${kb(g.gzip).padStart(10)} gzip`),
          ...embedLines(result.embed, result.chunks),
          ...firstQuestionLines(result.firstQuestion),
          ...chainLines(result.chat),
          ...llmsLines(ctx, result.llms),
          '',
        ].join('\n'),
      )
    })
}

/** What a reader's browser downloads for a first question, as measured by the build. */
function firstQuestionLines(cost: FetchCost): string[] {
  const order: PartKind[] = ['manifest', 'lexical', 'postings', 'model', 'vectors', 'texts']
  const names: Record<PartKind, string> = { manifest: 'manifest', lexical: 'lexical head', postings: 'postings', model: 'model rows', vectors: 'vectors', texts: 'result texts' }
  const split = order.filter((k) => cost.byKind[k]).map((k) => `${names[k]} ${kb(cost.byKind[k]!)}`)
  const changed = cost.earlier?.pagesChanged
  const when = cost.earlier ? `; measured at an earlier build, ${changed === 0 ? 'no page' : changed === 1 ? '1 page' : `${changed} pages`} changed since` : ''
  if (cost.questions.length === 0) return ["  A reader's first question: not measured (no heading or passage holds a word to ask with)."]
  return [
    `  A reader's first question downloads about ${kb(cost.median)} of index (median of ${cost.questions.length} sample questions made of your headings, ` +
      `at most ${kb(cost.max)}${when}): ${split.join(', ')}. Later questions fetch only parts they have not seen; every part is cacheable forever.`,
  ]
}

/** Who answers readers: the chain the manifest carries, and the rationing note when it applies. */
function chainLines(chat: Manifest['chat']): string[] {
  const lines = chat.chain.length
    ? [`  Answers: ${chat.chain.map((m) => `${m.provider} (${m.models.length > 1 ? `${m.models[0]} +${m.models.length - 1}` : m.models[0]})`).join(' → ')}; \`docpilot doctor --proxy\` lists the routes and keys.`]
    : ['  Answers: no provider in this environment or config, so readers get search answers. Name one with chat.provider, or set its key variable when indexing (only whether it is set is read).']
  if (chat.rationing?.note) lines.push(`  Note: ${chat.rationing.note}`)
  return lines
}

/** Where the agent files went and what they weigh; how to serve them. */
function llmsLines(ctx: CliContext, llms: LlmsResult | undefined): string[] {
  if (!llms) return ['  Agents: no llms.txt or page copies (turned off by --no-llms or llms.enabled: false).']
  const rel = relative(ctx.cwd, llms.dir)
  const where = rel && !rel.startsWith('..') ? rel : llms.dir
  const lines = [
    `  Agents: llms.txt ${kb(llms.bytes.llmsTxt)}, llms-full.txt ${kb(llms.bytes.llmsFull)}, ${llms.pages} page copies (${kb(llms.bytes.copies)}) in ${where}; ` +
      `serve that folder at urls.base (${docsPage(ctx.cwd, 'agents.md')}).`,
  ]
  if (llms.untitled !== undefined) {
    lines.push(`  Note: llms.txt is titled "${llms.untitled}", the docs folder's name, as no page is served at urls.base to take a title from: set llms.title to your site's name.`)
  }
  return lines
}

/** The dense channel in the summary: which embedder and why, what was embedded vs reused, vector bytes. */
function embedLines(embed: EmbedSummary | undefined, chunks: number): string[] {
  if (!embed) return ['  Vectors: none (embed: false declares lexical-only search).']
  const { identity } = embed
  return [
    `  Vectors: ${identity.id} (${identity.dims} dims, ${identity.quantization}), ${embed.why}`,
    `    embedded ${counted(embed.embedded, 'chunk')}, reused ${embed.reused} from the cache, in ${(embed.ms / 1000).toFixed(1)} s; ` +
      `${kb(embed.vectorBytes)} of vectors (${kb(Math.round((embed.vectorBytes / Math.max(chunks, 1)) * 1000))} per 1k chunks)`,
  ]
}

/** A bar on a terminal (its library loaded only there); otherwise a line at each quarter, so logs stay short. */
async function makeProgress(ctx: CliContext) {
  if (ctx.stderrIsTTY) {
    const { default: cliProgress } = await import('cli-progress')
    const bar = new cliProgress.SingleBar(
      { format: 'indexing [{bar}] {value}/{total} files  {file}', stream: process.stderr, clearOnComplete: true, hideCursor: true },
      cliProgress.Presets.shades_classic,
    )
    let started = false
    return {
      update(done: number, total: number, file: string) {
        if (!started) bar.start(total, 0, { file: '' })
        started = true
        bar.update(done, { file })
      },
      embedded(done: number, total: number) {
        if (started) bar.stop()
        started = false
        if (done === total) return
        ctx.stderr(`embedding: ${done}/${total} chunks\r`)
      },
      stop: () => started && bar.stop(),
    }
  }
  return {
    update: quarterLines(ctx, 'indexing', 'files'),
    embedded: quarterLines(ctx, 'embedding', 'chunks'),
    stop: () => {},
  }
}

/** A progress line each time `done` crosses into the next quarter of `total`. */
function quarterLines(ctx: CliContext, label: string, unit: string): (done: number, total: number) => void {
  let last = -1
  return (done, total) => {
    const quarter = Math.floor((done / Math.max(total, 1)) * 4)
    if (quarter !== last) ctx.stderr(`${label}: ${done}/${total} ${unit}\n`)
    last = quarter
  }
}
