/**
 * The wrangler.toml that deploys the proxy as a Cloudflare Worker for an
 * owner's config: the package's proxy/wrangler.toml as the template, `main`
 * pointing at the Worker entry inside this install (wrangler bundles it, with
 * hono and zod resolved from the owner's node_modules), and DOCPILOT_PROXY
 * holding the routes, models and limits `doctor --proxy` computed. Written
 * again, only `main` and DOCPILOT_PROXY change: the owner's own edits (routes,
 * the D1 database id, a name) stay.
 */
import { existsSync, statSync } from 'node:fs'
import { mkdir, readFile, writeFile } from 'node:fs/promises'
import { dirname, join, relative } from 'node:path'
import type { ProxySettings } from '../proxy/settings.ts'
import { FROM_SOURCES, PACKAGE_ROOT } from './package-root.ts'
import { UsageError } from './context.ts'

export const DEFAULT_WRANGLER_FILE = 'docpilot-proxy/wrangler.toml'

/** The Worker entry: compiled in an install, the TypeScript source in a checkout (wrangler bundles either). */
const WORKER_ENTRY = join(PACKAGE_ROOT, FROM_SOURCES ? 'proxy/worker.ts' : 'dist/proxy/worker.js')
/** What the Worker bundles in place of the ONNX runtime (proxy/onnx-unavailable.ts). */
const ONNX_STUB = join(PACKAGE_ROOT, FROM_SOURCES ? 'proxy/onnx-unavailable.ts' : 'dist/proxy/onnx-unavailable.js')
const TEMPLATE = join(PACKAGE_ROOT, 'proxy/wrangler.toml')

const MAIN_LINE = /^main\s*=.*$/m
const SETTINGS_LINE = /^DOCPILOT_PROXY\s*=.*$/m
const ONNX_ALIAS_LINE = /^"onnxruntime-web"\s*=.*$/m
const ALIAS_TABLE = /^\[alias\][ \t]*$/m

/** A TOML literal string when the JSON allows it (no quote to escape), else a basic string. */
export function tomlString(json: string): string {
  return json.includes("'") ? JSON.stringify(json) : `'${json}'`
}

export function settingsLine(settings: ProxySettings): string {
  return `DOCPILOT_PROXY = ${tomlString(JSON.stringify(settings))}`
}

/** A path from the config file's folder, as wrangler resolves `main` and aliases. */
function fromConfig(file: string, target: string): string {
  const rel = relative(dirname(file), target).split('\\').join('/')
  return rel.startsWith('.') ? rel : `./${rel}`
}

function fill(text: string, file: string, settings: ProxySettings): string {
  const alias = `"onnxruntime-web" = ${JSON.stringify(fromConfig(file, ONNX_STUB))}`
  // A config written before the alias existed gets it: into its own [alias] table, or a new one at the end.
  const withAlias = ONNX_ALIAS_LINE.test(text)
    ? text.replace(ONNX_ALIAS_LINE, alias)
    : ALIAS_TABLE.test(text)
      ? text.replace(ALIAS_TABLE, `[alias]\n${alias}`)
      : `${text.trimEnd()}\n\n[alias]\n${alias}\n`
  return withAlias.replace(MAIN_LINE, `main = ${JSON.stringify(fromConfig(file, WORKER_ENTRY))}`).replace(SETTINGS_LINE, settingsLine(settings))
}

/** Writes (or updates) the Worker's config at `path` (`file` is how the owner named it); returns whether it was new. */
export async function writeWranglerConfig(path: string, file: string, settings: ProxySettings): Promise<{ created: boolean }> {
  if (existsSync(path)) {
    if (statSync(path).isDirectory()) {
      throw new UsageError(`--wrangler ${file} is a folder; name the file to write, e.g. --wrangler ${join(file, 'wrangler.toml')}`)
    }
    const text = await readFile(path, 'utf8')
    if (!SETTINGS_LINE.test(text) || !MAIN_LINE.test(text)) {
      throw new Error(`${file} has no \`main =\` and \`DOCPILOT_PROXY =\` lines to update; is it a docpilot Worker config? Name another file, or remove it to start over.`)
    }
    await writeFile(path, fill(text, path, settings))
    return { created: false }
  }
  const template = await readFile(TEMPLATE, 'utf8')
  const body = template.slice(template.search(/^name\s*=/m))
  const header = [
    '# The docpilot proxy on Cloudflare Workers, written by `docpilot doctor --proxy --wrangler`.',
    '# Run that again after changing the config: only `main` and DOCPILOT_PROXY are rewritten.',
    `#   npx wrangler secret put <KEY VARIABLE> -c ${file}`,
    `#   npx wrangler deploy -c ${file}`,
    '',
  ].join('\n')
  await mkdir(dirname(path), { recursive: true })
  await writeFile(path, header + fill(body, path, settings).replace(/^# Replace with the output of.*\n(#.*\n)*/m, '# Routes, models and limits for your config (a Worker cannot read docpilot.config.*).\n'))
  return { created: true }
}
