/**
 * How the `docpilot` command is bundled into dist/bin/ (scripts/build-cli.ts
 * runs it at `npm run build:node`).
 *
 * Compiled by tsc alone, one `docpilot index` loads about 190 modules (95 of
 * them zod's), and Node resolves, reads and compiles each: about a third of a
 * second of CPU before any work, paid by every build and re-index. Bundled,
 * it is one script for the commands, its launcher and the parse thread's
 * entry (see cliBundleOptions).
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs'
import { dirname, resolve } from 'node:path'
import type { BuildOptions, Plugin } from 'esbuild'

const ROOT = resolve(import.meta.dirname, '..')

/**
 * Left to Node at run time: packages with native or WebAssembly parts, or that
 * load code themselves (jiti compiles config files), or that only a checkout
 * has; and the MCP server SDK (a quarter of the bundle's text), which only the
 * servers load (`mcp`, `proxy`, `dev`): every run without a code cache
 * compiles the whole bundle's text, whichever command it runs.
 */
const EXTERNAL = ['onnxruntime-node', 'onnxruntime-web', 'jiti', 'better-sqlite3', 'tsx', 'vite', 'playwright-core', '@playwright/test', '@modelcontextprotocol/server']

/**
 * A plugin that rewrites one file of a dependency as it is bundled. `patch`
 * gives the new text, or undefined when the file no longer reads as expected
 * (a new version of the package): the build then stops, naming the plugin,
 * rather than bundle the file unpatched.
 */
function dependencyPatch(name: string, filter: RegExp, patch: (source: string) => string | undefined): Plugin {
  return {
    name,
    setup(b) {
      b.onLoad({ filter }, (args) => {
        const contents = patch(readFileSync(args.path, 'utf8'))
        if (contents === undefined) throw new Error(`${args.path} no longer reads the way scripts/cli-bundle.ts expects; update its ${name} patch`)
        return { contents, loader: 'js' }
      })
    },
  }
}

/**
 * fdir (tinyglobby's crawler) asks Node at load time for picomatch, for a
 * glob method tinyglobby never calls: Node's CommonJS loader then resolves,
 * reads and compiles picomatch's four files again on every run, although the
 * bundle holds it already (tinyglobby matches with it). Here fdir gets the
 * bundled copy.
 */
const fdirWithBundledPicomatch = dependencyPatch('fdir-with-bundled-picomatch', /[\\/]fdir[\\/]dist[\\/]index\.mjs$/, (source) => {
  const lookup = '__require.resolve("picomatch");\n\tpm = __require("picomatch");'
  return source.includes(lookup) ? `import __bundledPicomatch from "picomatch";\n${source.replace(lookup, 'pm = __bundledPicomatch;')}` : undefined
})

/**
 * commander loads Node's child_process module at start (with net, dgram and
 * their streams: ~3 ms of CPU on every run) for the one thing it spawns with,
 * a command kept in another executable, which docpilot has none of. Here it
 * loads the module when it spawns (spawn is all it uses of the module).
 */
const commanderSpawnOnDemand = dependencyPatch('commander-spawn-on-demand', /[\\/]commander[\\/]lib[\\/]command\.js$/, (source) => {
  const eager = "const childProcess = require('node:child_process');"
  const onlySpawn = (source.match(/childProcess\./g) ?? []).length === (source.match(/childProcess\.spawn\(/g) ?? []).length
  return source.includes(eager) && onlySpawn ? source.replace(eager, "const childProcess = { spawn: (...args) => require('node:child_process').spawn(...args) };") : undefined
})

/**
 * Writes each file in ASCII. esbuild escapes non-ASCII characters in strings,
 * templates and names, but leaves them in comments and regular expression
 * literals (a dependency's `—` or `“`), and one such character in 2 MB makes
 * V8 hold the whole script in two bytes per character: the launcher then
 * decodes 4 MB where, given ASCII, it copies 2 (code-cache.ts). Escaped as
 * `\uXXXX`, a comment says the same, and a pattern matches the same (a
 * surrogate pair escaped is one code point in a `u` pattern too). A
 * character escaped already (`\é`, in a pattern) would become a backslash
 * and a `u`: the build fails there instead.
 */
export const asciiOutput: Plugin = {
  name: 'ascii-output',
  setup(b) {
    b.onEnd((result) => {
      for (const file of result.outputFiles ?? []) {
        const escaped = /\\[^\x00-\x7f]/.exec(file.text)
        if (escaped) throw new Error(`${file.path}: "${escaped[0]}" at ${escaped.index} cannot be written in ASCII without changing what it means; see asciiOutput in scripts/cli-bundle.ts`)
        mkdirSync(dirname(file.path), { recursive: true })
        writeFileSync(file.path, file.text.replace(/[^\x00-\x7f]/g, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`))
      }
    })
  },
}

/** What every file of the CLI is built with. */
const SHARED: BuildOptions = {
  absWorkingDir: ROOT,
  bundle: true,
  platform: 'node',
  target: 'node20',
  external: EXTERNAL,
  // core/ gunzips with fflate, which also runs in the browser; Node has gunzip built in (node-gunzip.ts).
  alias: { fflate: './scripts/node-gunzip.ts' },
  plugins: [fdirWithBundledPicomatch, commanderSpawnOnDemand, asciiOutput],
  // asciiOutput writes the files.
  write: false,
  legalComments: 'eof',
  logLevel: 'warning',
}

/**
 * A CommonJS file of the CLI: `import.meta.url` is the file's URL, as in an
 * ES module, and the script is strict, as the ES modules it is built from
 * ("use strict" first: a directive counts only at the top).
 */
const COMMONJS: BuildOptions = {
  format: 'cjs',
  banner: { js: "'use strict';\nvar __docpilotModuleUrl = require('node:url').pathToFileURL(__filename).href;" },
  define: { 'import.meta.url': '__docpilotModuleUrl' },
  // Any other import.meta (dirname, resolve) would be an empty object in CommonJS: a build error, not a silent undefined.
  logOverride: { 'empty-import-meta': 'error' },
}

/**
 * esbuild's options for the CLI, written to `outdir`: three files.
 *
 * - main.cjs, every command in one CommonJS script, which cli/launch.ts
 *   compiles with V8's code cache (cli/code-cache.ts: Node 20 cannot cache
 *   an ES module's code). V8 compiles a function only when it first runs, so
 *   the commands a run does not use cost it a quick scan of their text. The
 *   packages it leaves outside are loaded with require().
 * - parse-worker.js, the parse thread's entry (an ES module), where
 *   indexer/parse-pool.ts looks for it beside main.cjs.
 * - launch.cjs, what bin/docpilot.cjs requires (cli/launch.ts): one file, so
 *   that starting loads one module, not six, and CommonJS, so that a run never
 *   starts Node's ES module loader (~7 ms of CPU).
 */
export function cliBundleOptions(outdir: string): BuildOptions[] {
  return [
    {
      ...SHARED,
      ...COMMONJS,
      entryPoints: { main: 'cli/main.ts' },
      outfile: `${outdir}/main.cjs`,
      // import() of a package left outside (jiti, for a docpilot.config.ts) becomes require(): a script compiled by
      // vm.Script may run import() only through an experimental Node option, which prints a warning.
      supported: { 'dynamic-import': false },
    },
    { ...SHARED, ...COMMONJS, entryPoints: { launch: 'cli/launch.ts' }, outfile: `${outdir}/launch.cjs` },
    {
      ...SHARED,
      entryPoints: { 'parse-worker': 'indexer/parse-worker.ts' },
      outdir,
      format: 'esm',
      // Some bundled dependencies are CommonJS and require Node's built-in
      // modules; an ES module has no `require` of its own to give them.
      banner: { js: "import { createRequire as __docpilotCreateRequire } from 'node:module'; const require = __docpilotCreateRequire(import.meta.url);" },
    },
  ]
}
