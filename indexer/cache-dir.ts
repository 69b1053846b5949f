/**
 * Where docpilot keeps what it reuses between runs (page journals, embeddings,
 * rows packs, the CLI's code cache): `.docpilot/cache` in the folder a command
 * runs from, or DOCPILOT_CACHE_DIR.
 */
import { join, resolve } from 'node:path'
import type { Env } from '../core/chain/resolve.ts'

export function defaultCacheDir(cwd: string, env: Env): string {
  return env.DOCPILOT_CACHE_DIR ? resolve(cwd, env.DOCPILOT_CACHE_DIR) : join(cwd, '.docpilot', 'cache')
}
