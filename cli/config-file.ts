/**
 * Finds and loads docpilot.config.{ts,mts,cts,js,mjs,cjs,json}: from --config
 * when given, else from the working directory. Validation happens before
 * anything runs.
 *
 * JavaScript and TypeScript configs load through jiti (pure JavaScript, no
 * native binary), which reads ESM and CommonJS, with or without types,
 * whatever the project's package.json "type" says: an owner's project made by
 * `npm init -y` is CommonJS, and its docpilot.config.ts is still ESM syntax.
 */
import { readFile } from 'node:fs/promises'
import { dirname, relative, resolve } from 'node:path'
import { ConfigError } from '../core/config/config-error.ts'
import type { DocpilotConfig } from '../core/config/schema.ts'
import { isFile } from '../indexer/stat.ts'
import { validatedConfig, type ConfigMemo } from './config-memo.ts'

const EXTENSIONS = ['ts', 'mts', 'cts', 'js', 'mjs', 'cjs', 'json']
export const CONFIG_NAMES = EXTENSIONS.map((ext) => `docpilot.config.${ext}`)

export interface LoadedConfig {
  /** Absolute path of the config file, or null when none exists (defaults apply). */
  file: string | null
  /** Folder relative paths in the config resolve against (the config's folder, else cwd). */
  dir: string
  config: DocpilotConfig
}

/** The file name as the owner would write it: relative to cwd when inside it. */
function display(file: string, cwd: string): string {
  const rel = relative(cwd, file)
  return rel && !rel.startsWith('..') ? rel : file
}

/** The config file a message should send the owner to: the one loaded, else the one to create. */
export function configNamed(cwd: string, loaded: Pick<LoadedConfig, 'file'>): string {
  return loaded.file ? display(loaded.file, cwd) : 'docpilot.config.ts'
}

/** JSON.parse says what is wrong but rarely where; a parser that tracks positions (loaded only then) says where. */
async function jsonSyntaxError(text: string, shown: string, err: Error): Promise<ConfigError> {
  const { parse: parseJsonWithLocations } = await import('@humanwhocodes/momoa')
  try {
    parseJsonWithLocations(text)
  } catch (located) {
    const { line, column, message } = located as { line?: number; column?: number; message: string }
    if (line && column) return new ConfigError(`${shown}:${line}:${column}`, [`not valid JSON: ${message.replace(/\s*\(\d+:\d+\)$/, '')}`])
  }
  return new ConfigError(shown, [`not valid JSON: ${err.message}`])
}

/**
 * jiti reports a syntax error as "ParseError: <message> \n <file>:<line>:<column>", its column
 * counted from 0 (Babel's); editors, Node and the JSON errors above count from 1.
 */
function loadError(err: Error, shown: string): ConfigError {
  const parse = /^(?:\w*Error: )?([^\n]*?)\s*\n\s*\S+?:(\d+):(\d+)\s*$/.exec(err.message)
  if (parse) return new ConfigError(`${shown}:${parse[2]}:${Number(parse[3]) + 1}`, [`syntax error: ${parse[1] || 'unexpected token'}`])
  const code = (err as NodeJS.ErrnoException).code
  const missing = code === 'MODULE_NOT_FOUND' || code === 'ERR_MODULE_NOT_FOUND' ? /Cannot find (?:module|package) '([^']+)'/.exec(err.message) : null
  if (missing && /^\.{0,2}\//.test(missing[1]!)) {
    return new ConfigError(shown, [`it imports "${missing[1]}", which does not exist; check the path (relative to the file that imports it)`])
  }
  if (missing) return new ConfigError(shown, [`it imports "${missing[1]}", which is not installed here; install it or remove the import`])
  return new ConfigError(shown, [`running it failed: ${err.message.split('\n')[0]}`])
}

/**
 * jiti hands back `module.exports = { ... }` as the module itself, indistinguishable from an ES
 * module with named exports only. It is the config when it names a config field; otherwise the
 * file most likely forgot `export default`.
 */
async function commonJsExports(mod: object): Promise<object | undefined> {
  const { ConfigSchema } = await import('../core/config/schema.ts')
  return Object.keys(mod).some((key) => Object.hasOwn(ConfigSchema.shape, key)) ? mod : undefined
}

const isEmptyObject = (value: unknown): boolean => typeof value === 'object' && value !== null && !Array.isArray(value) && !Object.keys(value).length

/**
 * A CommonJS file that assigns no export still loads, as `{}`: every default, and the owner's settings
 * silently ignored. `module.exports = {}` (all defaults, on purpose) says so in its text.
 */
async function mentionsAnExport(file: string): Promise<boolean> {
  return /\bmodule\.exports\b|\bexports\.|\bexport\b/.test(await readFile(file, 'utf8'))
}

/**
 * A JSON config's top-level `"$schema"` names the JSON schema an editor completes and checks the file with
 * (JSON has no `import type`); it is no setting of docpilot's, so it is taken off before validation.
 */
function withoutSchemaKey(value: unknown, shown: string): unknown {
  if (value === null || typeof value !== 'object' || Array.isArray(value) || !Object.hasOwn(value, '$schema')) return value
  const { $schema, ...config } = value as Record<string, unknown>
  if (typeof $schema !== 'string') {
    throw new ConfigError(shown, [`$schema must be a string, the URL or path of the JSON schema your editor reads (got ${JSON.stringify($schema)}); or remove it`])
  }
  return config
}

async function readExport(file: string, shown: string): Promise<unknown> {
  if (file.endsWith('.json')) {
    const text = await readFile(file, 'utf8')
    let value: unknown
    try {
      value = JSON.parse(text)
    } catch (err) {
      throw await jsonSyntaxError(text, shown, err as Error)
    }
    return withoutSchemaKey(value, shown)
  }
  const { createJiti } = await import('jiti')
  // No caches: a config is read once per run, and an owner's edit must always be seen.
  const jiti = createJiti(import.meta.url, { moduleCache: false, fsCache: false })
  let mod: { default?: unknown }
  try {
    mod = (await jiti.import(file)) as { default?: unknown }
  } catch (err) {
    throw loadError(err as Error, shown)
  }
  const value = 'default' in mod ? mod.default : await commonJsExports(mod)
  if (value === undefined || (isEmptyObject(value) && !(await mentionsAnExport(file)))) {
    throw new ConfigError(shown, ['the file has no default export; write `export default { ... }` (or `module.exports = { ... }` in CommonJS)'])
  }
  try {
    return typeof value === 'function' ? await (value as () => unknown)() : await value
  } catch (err) {
    // The exported function (or promise) failed: as much the config's failure as a throw at its top level.
    throw loadError(err instanceof Error ? err : new Error(String(err)), shown)
  }
}

/** `memo`: keep the validated config between runs (config-memo.ts), for a command that writes a cache folder anyway. */
export async function loadConfig(opts: { cwd: string; explicit?: string; memo?: ConfigMemo }): Promise<LoadedConfig> {
  const { cwd } = opts
  let file: string | null = null
  if (opts.explicit) {
    file = resolve(cwd, opts.explicit)
    if (!(await isFile(file))) throw new ConfigError(display(file, cwd), ['the file does not exist; check the --config path'])
  } else {
    const found = []
    for (const name of CONFIG_NAMES) if (await isFile(resolve(cwd, name))) found.push(name)
    if (found.length > 1) {
      throw new ConfigError(found[0]!, [`found ${found.join(' and ')} in ${cwd}; keep one, or pick one with --config`])
    }
    if (found[0]) file = resolve(cwd, found[0])
  }
  if (!file) return { file: null, dir: cwd, config: await validatedConfig({}, '(defaults)', cwd, opts.memo) }
  const shown = display(file, cwd)
  return { file, dir: dirname(file), config: await validatedConfig(await readExport(file, shown), shown, file, opts.memo) }
}

/** The --config option's help line, naming every file name looked for. */
export const CONFIG_OPTION_HELP = `config file (default: docpilot.config.{${EXTENSIONS.join(',')}} in the working directory)`
