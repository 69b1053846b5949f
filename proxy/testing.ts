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

export interface WorkerStartOptions extends StartOptions {
  configDir?: string
  /** Worker name (unique per test run: the dev registry is keyed by it). */
  name?: string
  /**
   * Name of a running Worker whose `ProxyLimits` Durable Object this one binds to
   * (through wrangler's dev registry), as every isolate of a deployed Worker shares
   * one object. Unset: this Worker owns the object.
   */
  limitsFrom?: string
  /** WRANGLER_REGISTRY_PATH: a folder private to the test, so parallel runs never meet. */
  registryPath?: string
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

/**
 * The Node proxy as its own process (`docpilot proxy --settings`), for state
 * shared between processes: two of these on one SQLite file are two servers.
 * Its environment holds only `opts.env` (and PATH), never the test's own.
 */
export async function startNodeProcess(opts: StartOptions): Promise<RunningProxy> {
  const dir = mkdtempSync(join(tmpdir(), 'docpilot-node-proxy-'))
  const settingsFile = join(dir, 'settings.json')
  writeFileSync(settingsFile, JSON.stringify(parseProxySettings(opts.settings)))
  return onFreshPorts(async () => {
    const port = await freePort()
    const child = spawn(process.execPath, [join(ROOT, 'bin/docpilot.cjs'), 'proxy', '--port', String(port), '--db', opts.statePath, '--settings', settingsFile], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', ...opts.env },
      stdio: ['ignore', 'pipe', 'pipe'],
      detached: true,
    })
    return waitForStart(child, 'docpilot proxy', `http://127.0.0.1:${port}`, (output) => output.includes('docpilot proxy on'), 'node')
  })
}

/** Waits until `ready` says the child is serving; on failure stops its process group and throws with its output. */
async function waitForStart<R extends Runtime>(
  child: ChildProcess,
  what: string,
  url: string,
  ready: (output: string) => boolean | Promise<boolean>,
  runtime: R,
): Promise<RunningProxy & { runtime: R }> {
  track(child)
  let output = ''
  child.stdout?.on('data', (d: Buffer) => (output += d.toString()))
  child.stderr?.on('data', (d: Buffer) => (output += d.toString()))
  const stop = () => stopGroup(child)
  // Generous: the machine is shared, and a cold workerd or tsx start can take many seconds.
  const deadline = Date.now() + START_TIMEOUT_MS
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) throw new Error(`${what} exited (${child.exitCode ?? child.signalCode}):\n${output}`)
    if (await ready(output)) return { runtime, url, stop }
    if (Date.now() > deadline) {
      await stop()
      throw new Error(`${what} did not come up on ${url} within ${START_TIMEOUT_MS / 1000} s:\n${output}`)
    }
    await new Promise((r) => setTimeout(r, 250))
  }
}

const START_TIMEOUT_MS = 120_000

/**
 * freePort() hands out a port that was free a moment ago; another process
 * (any outgoing connection takes an ephemeral port) can bind it before the
 * server does. Start again on fresh ports when that is what failed.
 */
async function onFreshPorts<T>(start: () => Promise<T>): Promise<T> {
  for (let attempt = 1; ; attempt++) {
    try {
      return await start()
    } catch (err) {
      if (attempt >= 3 || !/address already in use|EADDRINUSE/i.test(String(err))) throw err
    }
  }
}

const KEY_VARS = new Set(CHAIN.flatMap((s) => (s.keyEnv ? [s.keyEnv] : [])))

/** A TOML basic string: JSON's escapes are a subset TOML accepts. */
const tomlString = (s: string) => JSON.stringify(s)

export function workerConfig(
  settings: ProxySettingsInput,
  env: Record<string, string>,
  opts: { name?: string; limitsFrom?: string } = {},
): { toml: string; devVars: string } {
  const vars = Object.entries(env).filter(([k]) => !KEY_VARS.has(k))
  const secrets = Object.entries(env).filter(([k]) => KEY_VARS.has(k))
  const limits = opts.limitsFrom
    ? ['[[durable_objects.bindings]]', 'name = "LIMITS"', 'class_name = "ProxyLimits"', `script_name = ${tomlString(opts.limitsFrom)}`]
    : ['[[durable_objects.bindings]]', 'name = "LIMITS"', 'class_name = "ProxyLimits"', '', '[[migrations]]', 'tag = "v1"', 'new_sqlite_classes = ["ProxyLimits"]']
  const toml = [
    `name = ${tomlString(opts.name ?? 'docpilot-proxy-test')}`,
    `main = ${tomlString(join(HERE, 'worker.ts'))}`,
    'compatibility_date = "2025-09-01"',
    'compatibility_flags = ["enable_request_signal"]',
    '',
    '[alias]',
    `"onnxruntime-web" = ${tomlString(join(HERE, 'onnx-unavailable.ts'))}`,
    '',
    '[vars]',
    `DOCPILOT_PROXY = ${tomlString(JSON.stringify(parseProxySettings(settings)))}`,
    ...vars.map(([k, v]) => `${k} = ${tomlString(v)}`),
    '',
    ...limits,
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

/** Process groups this test process started and has not stopped yet. */
const liveGroups = new Set<number>()

function killGroup(pid: number, signal: NodeJS.Signals): void {
  try {
    process.kill(-pid, signal)
  } catch {
    /* already gone */
  }
}

// If the test process ends without stopping them (a crash, a killed worker), take the groups down too:
// an orphaned workerd holds a port and a core on a shared machine.
process.once('exit', () => {
  for (const pid of liveGroups) killGroup(pid, 'SIGKILL')
})

function track(child: ChildProcess): void {
  const pid = child.pid
  if (pid === undefined) return
  liveGroups.add(pid)
  child.once('exit', () => {
    // wrangler may exit before workerd, its grandchild: make sure the whole group is gone.
    killGroup(pid, 'SIGKILL')
    liveGroups.delete(pid)
  })
}

/** SIGTERM to the child's process group, SIGKILL after 5 s; resolves once the child has exited. */
function stopGroup(child: ChildProcess): Promise<void> {
  return new Promise((done) => {
    if (child.exitCode !== null || child.signalCode !== null || child.pid === undefined) return done()
    const pid = child.pid
    const timer = setTimeout(() => killGroup(pid, 'SIGKILL'), 5000)
    child.once('exit', () => {
      clearTimeout(timer)
      done()
    })
    killGroup(pid, 'SIGTERM')
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

export async function startWorkerProxy(opts: WorkerStartOptions): Promise<RunningWorker> {
  const configDir = opts.configDir ?? mkdtempSync(join(tmpdir(), 'docpilot-wrangler-'))
  const { toml, devVars } = workerConfig(opts.settings, opts.env, {
    ...(opts.name ? { name: opts.name } : {}),
    ...(opts.limitsFrom ? { limitsFrom: opts.limitsFrom } : {}),
  })
  writeFileSync(join(configDir, 'wrangler.toml'), toml)
  writeFileSync(join(configDir, '.dev.vars'), devVars)
  const running = await onFreshPorts(async () => {
    const port = await freePort()
    const inspector = await freePort()
    const child = spawn(
      join(ROOT, 'node_modules/.bin/wrangler'),
      ['dev', '-c', join(configDir, 'wrangler.toml'), '--ip', '127.0.0.1', '--port', String(port), '--inspector-port', String(inspector),
        '--persist-to', opts.statePath, '--show-interactive-dev-session=false', '--log-level', 'warn'],
      // Its own process group: workerd is a grandchild and must go down with it.
      {
        cwd: configDir,
        env: { ...process.env, ...WRANGLER_ENV, ...(opts.registryPath ? { WRANGLER_REGISTRY_PATH: opts.registryPath } : {}) },
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      },
    )
    const url = `http://127.0.0.1:${port}`
    return waitForStart(child, 'wrangler dev', url, async () => {
      try {
        // Outside /ai: no rate-limit token is spent waiting for the Worker to come up.
        const res = await fetch(`${url}/`, { signal: AbortSignal.timeout(2000) })
        await res.arrayBuffer()
        return true
      } catch {
        return false
      }
    }, 'workers')
  })
  return { ...running, configDir }
}

export function startProxy(runtime: Runtime, opts: StartOptions): Promise<RunningProxy> {
  return runtime === 'node' ? startNodeProxy(opts) : startWorkerProxy(opts)
}
