/**
 * Validated configs kept between `docpilot index` runs, so that a run whose
 * config has not changed never loads the schema library: zod costs about
 * 45 ms of CPU to load and 10 to validate, on every build and re-index.
 *
 * One file per config file (or per folder without one), holding the config's
 * value as JSON, the docpilot version and what validation made of them; a run
 * with the same value and version takes the validated config from it. Only
 * a value that JSON gives back exactly is looked up or kept: a TypeScript
 * config can hold what JSON cannot say (a function, undefined), which
 * validation must see.
 */
import { readFile } from 'node:fs/promises'
import { isDeepStrictEqual } from 'node:util'
import type { DocpilotConfig } from '../core/config/schema.ts'
import { cacheFile, replaceFile } from '../indexer/cache-file.ts'

export interface ConfigMemo {
  cacheDir: string
  /** The docpilot version: another one may validate (and default) differently. */
  version: string
}

interface Memo {
  version: string
  raw: string
  config: DocpilotConfig
}

/** `raw` as JSON when JSON gives it back exactly, else undefined. */
function exactJson(raw: unknown): string | undefined {
  const text = JSON.stringify(raw)
  return text !== undefined && isDeepStrictEqual(JSON.parse(text), raw) ? text : undefined
}

/** `raw` validated (ConfigError when it is not a valid config), from the memo when it holds this value. */
export async function validatedConfig(raw: unknown, shown: string, where: string, memo?: ConfigMemo): Promise<DocpilotConfig> {
  const text = memo && exactJson(raw)
  const file = memo && text !== undefined ? cacheFile(memo.cacheDir, 'config', where, '.json') : undefined
  if (file) {
    const kept = await readFile(file, 'utf8').then((json) => JSON.parse(json) as Memo, () => undefined)
    if (kept?.version === memo!.version && kept.raw === text) return kept.config
  }
  const { validateConfig } = await import('../core/config/validate.ts')
  const config = validateConfig(raw, shown)
  const saved = exactJson(config)
  // An unwritable cache only costs the next run the validation.
  if (file && saved !== undefined) await replaceFile(file, JSON.stringify({ version: memo!.version, raw: text!, config } satisfies Memo)).catch(() => {})
  return config
}
