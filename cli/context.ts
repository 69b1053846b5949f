/**
 * What every command gets from main: where it runs, where it writes, and
 * the two error kinds that decide the exit code (usage 2, failure 1).
 */
import { resolve } from 'node:path'
import { loadConfig, type LoadedConfig } from './config-file.ts'
import type { ConfigMemo } from './config-memo.ts'

export interface CliContext {
  cwd: string
  env: Record<string, string | undefined>
  stdout: (text: string) => void
  stderr: (text: string) => void
  /** Draw progress bars only on a terminal; plain lines otherwise. */
  stderrIsTTY: boolean
  version: string
}

/** The command line itself is wrong: exit code 2. */
export class UsageError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'UsageError'
  }
}

export function loadConfigFor(ctx: CliContext, explicit?: string, memo?: ConfigMemo): Promise<LoadedConfig> {
  return loadConfig({ cwd: ctx.cwd, explicit, ...(memo ? { memo } : {}) })
}

/** --index when given (relative to cwd), else the config's `out` (relative to the config's folder). */
export function indexDirFor(ctx: CliContext, loaded: LoadedConfig, flag?: string): string {
  return flag ? resolve(ctx.cwd, flag) : resolve(loaded.dir, loaded.config.out)
}

/** Parses a positive whole number option (commander calls this with the raw text). */
export function positiveInt(name: string): (raw: string) => number {
  return (raw) => {
    const n = Number(raw)
    if (!Number.isInteger(n) || n < 1) throw new UsageError(`${name} must be a whole number of 1 or more (got "${raw}")`)
    return n
  }
}

/** Parses --port: 0 (any free port) to 65535. */
export function portNumber(raw: string): number {
  const n = Number(raw)
  if (!Number.isInteger(n) || n < 0 || n > 65535) throw new UsageError(`--port must be a whole number from 0 to 65535 (got "${raw}")`)
  return n
}

/** Keeps a server command running until Ctrl+C (or SIGTERM), then closes what it serves. */
export function serveUntilStopped(close: () => void | Promise<void>): Promise<void> {
  return new Promise<void>((done) => {
    const stop = () => void Promise.resolve(close()).then(done)
    process.once('SIGINT', stop)
    process.once('SIGTERM', stop)
  })
}
