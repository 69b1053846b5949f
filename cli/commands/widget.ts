/**
 * `docpilot widget`: writes the browser files (loader, panel, retrieval
 * worker) into a folder the site serves, and prints the script tag to paste.
 *
 * An installed package ships them prebuilt in dist/widget/ (built by
 * `prepack`); a source checkout, which has Vite, builds them fresh so they
 * always match the code.
 */
import { existsSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { basename, isAbsolute, join, relative, resolve } from 'node:path'
import { gzipSync } from 'node:zlib'
import type { Command } from 'commander'
import { DEFAULT_INDEX_OUT } from '../../core/config/index-out.ts'
import { MANIFEST_FILE } from '../../core/index/format.ts'
import { UsageError, type CliContext } from '../context.ts'
import { kb } from '../format.ts'
import { readIndexManifest } from '../index-dir.ts'
import { onnxNoteFor, writeWidget } from '../widget-files.ts'
import { FROM_SOURCES } from '../package-root.ts'
import { defaultCacheDir } from '../../indexer/cache-dir.ts'

const DEFAULT_OUT = 'public/docpilot-assets'

/** The folder a site generator serves at the site's root: the widget folder's path below it is its URL path. */
const SITE_ROOT = /^(public|dist|static)(?:\/|$)/

/**
 * The index folders the printed script tag may point at, most likely first:
 * its --index path below the site folder the widget goes into (`rel`, from
 * the working directory), then where `docpilot index` writes by default.
 */
export function indexDirsFor(cwd: string, rel: string, indexUrl: string): string[] {
  const root = SITE_ROOT.exec(rel)?.[1]
  const served = root && indexUrl.startsWith('/') ? [resolve(cwd, root, `.${indexUrl}`)] : []
  return [...served, resolve(cwd, DEFAULT_INDEX_OUT)]
}

/**
 * The ONNX runtime note for the first of `dirs` that holds an index: only an
 * index with an ONNX embedder loads the runtime. None when no index is found
 * (or it cannot be read): the default embedder needs no runtime, and an ONNX
 * index cannot be built without onnxruntime-web installed.
 */
export async function onnxNoteForIndex(note: string | undefined, dirs: readonly string[]): Promise<string | undefined> {
  const dir = note === undefined ? undefined : dirs.find((d) => existsSync(join(d, MANIFEST_FILE)))
  if (dir === undefined) return undefined
  const manifest = await readIndexManifest(dir).catch(() => undefined)
  return manifest && onnxNoteFor(manifest.embedder, note)
}

interface WidgetFlags {
  out: string
  index: string
  /** Only a checkout has the option (false with --no-minify); an install's files are prebuilt, minified. */
  minify?: boolean
}

export function defineWidgetCommand(program: Command, ctx: CliContext): void {
  const command = program
    .command('widget')
    .summary('write the panel\'s browser files into your site')
    .description(
      'Write the widget (the small loader script, the panel and the retrieval worker it loads on first open)\n' +
        'into a folder your site serves, and print the script tag to add to your pages.\n' +
        'Serve the folder from the same origin as the index and the /ai/ proxy.',
    )
    .option('--out <dir>', 'folder to write the files into', DEFAULT_OUT)
    .option('--index <url>', 'URL path where the site serves the index (goes into the printed script tag)', '/docpilot/')
  // Only a checkout builds the files, so only there can they be left unminified.
  if (FROM_SOURCES) command.option('--no-minify', 'keep the code readable (a checkout of docpilot only)')
  command
    .addHelpText(
      'after',
      `
Examples:
  $ docpilot widget                                  files into ${DEFAULT_OUT}/
  $ docpilot widget --out dist/docpilot-assets --index /docpilot/
  $ docpilot index ./docs --out dist/docpilot && docpilot widget --out dist/docpilot-assets`,
    )
    .action(async (flags: WidgetFlags) => {
      if (!flags.index.startsWith('/') && !/^https?:\/\//.test(flags.index)) {
        throw new UsageError(`--index must be a URL path like /docpilot/ (got "${flags.index}")`)
      }
      const out = resolve(ctx.cwd, flags.out)
      // `docpilot index` replaces its folder whole, so widget files written there vanish at the next index run.
      if (existsSync(join(out, MANIFEST_FILE))) {
        throw new UsageError(
          `${flags.out} holds an index (${MANIFEST_FILE}); the next \`docpilot index\` replaces that folder whole and would delete the widget. ` +
            `Write the widget into a folder of its own, e.g. --out ${DEFAULT_OUT}`,
        )
      }
      const { files, note } = await writeWidget(out, { ...(flags.minify === false ? { minify: false } : {}), cacheDir: defaultCacheDir(ctx.cwd, ctx.env) })
      const loaderGzip = gzipSync(await readFile(join(out, 'docpilot.js'))).length
      const rel = relative(ctx.cwd, out).split('\\').join('/')
      // A folder outside the working directory (or on another drive) has no URL this command can know.
      const inside = !isAbsolute(rel) && rel !== '..' && !rel.startsWith('../')
      const onnx = await onnxNoteForIndex(note, indexDirsFor(ctx.cwd, inside ? rel : '', flags.index))
      ctx.stdout(`Wrote the widget into ${inside ? rel || '.' : out}: ${files} files; the loader is ${kb(loaderGzip)} gzip, the rest loads when a reader opens the panel.\n`)
      if (onnx) ctx.stdout(`${onnx}\n`)
      if (!inside) {
        ctx.stdout(
          `\nAdd this to your pages, with src the URL path your site serves ${out} at (it is outside this folder, so docpilot cannot tell; ` +
            `run the command from your site's folder to get it filled in):\n  <script src="/PATH/TO/${basename(out)}/docpilot.js" data-index="${flags.index}" defer></script>\n`,
        )
        return
      }
      // A site serves public/, dist/ or static/ at its root; the folder below it is the URL path.
      const served = rel.replace(SITE_ROOT, '')
      const src = `/${served ? `${served}/` : ''}docpilot.js`
      ctx.stdout(`\nAdd this to your pages (adjust src to where the folder is served):\n  <script src="${src}" data-index="${flags.index}" defer></script>\n`)
    })
}
