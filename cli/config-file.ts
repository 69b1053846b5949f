/**
 * Finds and loads docpilot.config.{ts,mts,js,mjs,json}: from --config when
 * given, else from the working directory. TypeScript configs load directly
 * because the CLI runs under tsx. Validation happens before anything runs.
 */
import { readFile, stat } from 'node:fs/promises'
import { dirname, relative, resolve } from 'node:path'
import { pathToFileURL } from 'node:url'
import { ConfigError, validateConfig } from '../core/config/validate.ts'
import type { DocpilotConfig } from '../core/config/schema.ts'

export const CONFIG_NAMES = ['docpilot.config.ts', 'docpilot.config.mts', 'docpilot.config.js', 'docpilot.config.mjs', 'docpilot.config.json']

export interface LoadedConfig {
  /** Absolute path of the config file, or null when none exists (defaults apply). */
  file: string | null
  /** Folder relative paths in the config resolve against (the config's folder, else cwd). */
  dir: string
  config: DocpilotConfig
}

const isFile = (path: string) =>
  stat(path).then(
    (s) => s.isFile(),
    () => false,
  )

/** The file name as the owner would write it: relative to cwd when inside it. */
function display(file: string, cwd: string): string {
  const rel = relative(cwd, file)
  return rel && !rel.startsWith('..') ? rel : file
}

async function readExport(file: string, shown: string): Promise<unknown> {
  if (file.endsWith('.json')) {
    const text = await readFile(file, 'utf8')
    try {
      return JSON.parse(text)
    } catch (err) {
      throw new ConfigError(shown, [`the file is not valid JSON (${(err as Error).message}); fix the syntax`])
    }
  }
  let mod: { default?: unknown }
  try {
    mod = (await import(pathToFileURL(file).href)) as { default?: unknown }
  } catch (err) {
    throw new ConfigError(shown, [`the file could not be loaded (${(err as Error).message.split('\n')[0]}); fix the error above it`])
  }
  if (!('default' in mod)) throw new ConfigError(shown, ['the file has no default export; write `export default { ... }`'])
  const value = typeof mod.default === 'function' ? await (mod.default as () => unknown)() : await mod.default
  return value
}

export async function loadConfig(opts: { cwd: string; explicit?: string }): Promise<LoadedConfig> {
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
  if (!file) return { file: null, dir: cwd, config: validateConfig({}, '(defaults)') }
  const shown = display(file, cwd)
  return { file, dir: dirname(file), config: validateConfig(await readExport(file, shown), shown) }
}
