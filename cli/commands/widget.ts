/**
 * `docpilot widget`: writes the browser files (loader, panel, retrieval
 * worker) into a folder the site serves, and prints the script tag to paste.
 *
 * An installed package ships them prebuilt in dist/widget/ (built by
 * `prepack`); a source checkout, which has Vite, builds them fresh so they
 * always match the code.
 */
import { cp, readdir, readFile, stat } from 'node:fs/promises'
import { join, relative, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { gzipSync } from 'node:zlib'
import type { Command } from 'commander'
import { UsageError, type CliContext } from '../context.ts'
import { kb } from '../format.ts'

const SHIPPED = fileURLToPath(new URL('../../dist/widget/', import.meta.url))
const DEFAULT_OUT = 'public/docpilot-assets'

interface WidgetFlags {
  out: string
  index: string
  minify: boolean
}

async function hasLoader(dir: string): Promise<boolean> {
  return stat(join(dir, 'docpilot.js')).then(
    (s) => s.isFile(),
    () => false,
  )
}

/** Builds with Vite when this is a source checkout; null when Vite is not installed (a published package). */
async function buildFromSource(out: string, minify: boolean): Promise<string | null> {
  let build: typeof import('../../widget/vite.config.ts').buildWidget
  try {
    build = (await import('../../widget/vite.config.ts')).buildWidget
  } catch {
    return null
  }
  return build(out, { minify })
}

export function defineWidgetCommand(program: Command, ctx: CliContext): void {
  program
    .command('widget')
    .summary('write the panel\'s browser files into your site')
    .description(
      'Write the widget (the small loader script, the panel and the retrieval worker it loads on first open)\n' +
        'into a folder your site serves, and print the script tag to add to your pages.\n' +
        'Serve the folder from the same origin as the index and the /ai/ proxy.',
    )
    .option('--out <dir>', 'folder to write the files into', DEFAULT_OUT)
    .option('--index <url>', 'URL path where the site serves the index (goes into the printed script tag)', '/docpilot/')
    .option('--no-minify', 'keep the code readable (source checkouts only)')
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
      const built = await buildFromSource(out, flags.minify)
      if (!built) {
        if (!(await hasLoader(SHIPPED))) {
          throw new Error(`This docpilot install has no widget files (${SHIPPED} is missing or empty). Reinstall docpilot, or build from a source checkout with \`npm run build:widget\`.`)
        }
        await cp(SHIPPED, out, { recursive: true })
      }
      const files = (await readdir(out)).length
      const loaderGzip = gzipSync(await readFile(join(out, 'docpilot.js'))).length
      const shown = relative(ctx.cwd, out).split('\\').join('/')
      ctx.stdout(`Wrote the widget into ${shown || '.'}: ${files} files; the loader is ${kb(loaderGzip)} gzip, the rest loads when a reader opens the panel.\n`)
      // A site serves public/, dist/ or static/ at its root; the folder below it is the URL path.
      const served = shown.replace(/^(public|dist|static)(\/|$)/, '')
      const src = `/${served ? `${served}/` : ''}docpilot.js`
      ctx.stdout(`\nAdd this to your pages (adjust src to where the folder is served):\n  <script src="${src}" data-index="${flags.index}" defer></script>\n`)
    })
}
