/**
 * Starting the proxy for tests and benchmarks, the same way on both runtimes:
 * Node in-process on a real port, and Workers through a real `wrangler dev`
 * (workerd) in its own process group, with a throwaway wrangler.toml that
 * carries the settings and `.dev.vars` that carries the keys.
 */
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:net'
import { tmpdir } from 'node:os'
import { dirname, join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'
import { CHAIN } from '../core/providers/table.ts'
import { serveProxy } from './node.ts'
import type { ProxySettingsInput } from './settings.ts'
import { parseProxySettings } from './settings.ts'

const HERE = dirname(fileURLToPath(import.meta.url))
const ROOT = resolve(HERE, '..')

export type Runtime = 'node' | 'workers'

export interface RunningProxy {
  runtime: Runtime
  url: string
  stop(): Promise<void>
}

export interface StartOptions {
  settings: ProxySettingsInput
  env: Record<string, string>
  /** Node: the SQLite file. Workers: the --persist-to folder. Reuse it to restart on the same state. */
  statePath: string
}

export async function freePort(): Promise<number> {
  return new Promise((resolvePort, reject) => {
    const srv = createServer()
    srv.once('error', reject)
    srv.listen(0, '127.0.0.1', () => {
      const addr = srv.address()
      const port = typeof addr === 'object' && addr ? addr.port : 0
      srv.close(() => resolvePort(port))
    })
  })
}

export async function startNodeProxy(opts: StartOptions): Promise<RunningProxy> {
  const served = await serveProxy({ settings: parseProxySettings(opts.settings), env: opts.env, dbPath: opts.statePath })
  return {
    runtime: 'node',
    url: served.url,
    stop: async () => served.close(),
  }
}

const KEY_VARS = new Set(CHAIN.flatMap((s) => (s.keyEnv ? [s.keyEnv] : [])))

/** A TOML basic string: JSON's escapes are a subset TOML accepts. */
const tomlString = (s: string) => JSON.stringify(s)

export function workerConfig(settings: ProxySettingsInput, env: Record<string, string>): { toml: string; devVars: string } {
  const vars = Object.entries(env).filter(([k]) => !KEY_VARS.has(k))
  const secrets = Object.entries(env).filter(([k]) => KEY_VARS.has(k))
  const toml = [
    'name = "docpilot-proxy-test"',
    `main = ${tomlString(join(HERE, 'worker.ts'))}`,
    'compatibility_date = "2025-09-01"',
    '',
    '[vars]',
    `DOCPILOT_PROXY = ${tomlString(JSON.stringify(parseProxySettings(settings)))}`,
    ...vars.map(([k, v]) => `${k} = ${tomlString(v)}`),
    '',
    '[[durable_objects.bindings]]',
    'name = "LIMITS"',
    'class_name = "ProxyLimits"',
    '',
    '[[migrations]]',
    'tag = "v1"',
    'new_sqlite_classes = ["ProxyLimits"]',
    '',
    '[[d1_databases]]',
    'binding = "FEEDBACK_DB"',
    'database_name = "docpilot-feedback"',
    'database_id = "00000000-0000-0000-0000-000000000000"',
    '',
  ].join('\n')
  const devVars = secrets.map(([k, v]) => `${k}=${JSON.stringify(v)}`).join('\n') + '\n'
  return { toml, devVars }
}

const WRANGLER_ENV = { CLOUDFLARE_CF_FETCH_ENABLED: 'false', WRANGLER_SEND_METRICS: 'false', NO_COLOR: '1' }

function stopGroup(child: ChildProcess): Promise<void> {
  return new Promise((done) => {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return done()
    const pid = child.pid
    const timer = setTimeout(() => {
      try {
        process.kill(-pid, 'SIGKILL')
      } catch {
        /* already gone */
      }
    }, 5000)
    child.once('exit', () => {
      clearTimeout(timer)
      done()
    })
    try {
      process.kill(-pid, 'SIGTERM')
    } catch {
      clearTimeout(timer)
      done()
    }
  })
}

/** Runs wrangler's CLI in the prepared folder (e.g. `d1 execute` against the same local state). */
export function wranglerCli(configDir: string, args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  return new Promise((done) => {
    const child = spawn(join(ROOT, 'node_modules/.bin/wrangler'), [...args, '-c', join(configDir, 'wrangler.toml')], {
      cwd: configDir,
      env: { ...process.env, ...WRANGLER_ENV },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let stdout = ''
    let stderr = ''
    child.stdout.on('data', (d: Buffer) => (stdout += d.toString()))
    child.stderr.on('data', (d: Buffer) => (stderr += d.toString()))
    child.on('exit', (code) => done({ code: code ?? 1, stdout, stderr }))
  })
}

export interface RunningWorker extends RunningProxy {
  configDir: string
}

export async function startWorkerProxy(opts: StartOptions & { configDir?: string }): Promise<RunningWorker> {
  const configDir = opts.configDir ?? mkdtempSync(join(tmpdir(), 'docpilot-wrangler-'))
  const { toml, devVars } = workerConfig(opts.settings, opts.env)
  writeFileSync(join(configDir, 'wrangler.toml'), toml)
  writeFileSync(join(configDir, '.dev.vars'), devVars)
  const port = await freePort()
  const inspector = await freePort()
  const child = spawn(
    join(ROOT, 'node_modules/.bin/wrangler'),
    ['dev', '-c', join(configDir, 'wrangler.toml'), '--ip', '127.0.0.1', '--port', String(port), '--inspector-port', String(inspector),
      '--persist-to', opts.statePath, '--show-interactive-dev-session=false', '--log-level', 'warn'],
    // Its own process group: workerd is a grandchild and must go down with it.
    { cwd: configDir, env: { ...process.env, ...WRANGLER_ENV }, stdio: ['ignore', 'pipe', 'pipe'], detached: true },
  )
  let output = ''
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()))
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()))
  const url = `http://127.0.0.1:${port}`
  const stop = () => stopGroup(child)
  const deadline = Date.now() + 90_000
  for (;;) {
    if (child.exitCode !== null) throw new Error(`wrangler dev exited (${child.exitCode}):\n${output}`)
    try {
      // Outside /ai: no rate-limit token is spent waiting for the Worker to come up.
      const res = await fetch(`${url}/`, { signal: AbortSignal.timeout(2000) })
      await res.arrayBuffer()
      break
    } catch {
      if (Date.now() > deadline) {
        await stop()
        throw new Error(`wrangler dev did not come up on ${url}:\n${output}`)
      }
      await new Promise((r) => setTimeout(r, 250))
    }
  }
  return { runtime: 'workers', url, configDir, stop }
}

export function startProxy(runtime: Runtime, opts: StartOptions): Promise<RunningProxy> {
  return runtime === 'node' ? startNodeProxy(opts) : startWorkerProxy(opts)
}
