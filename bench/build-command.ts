/**
 * Runs one index build as a command, the way a site's build step runs it
 * (`node <cli> ...`), and times it. A failure names the command and ends
 * with the last lines it wrote to stderr.
 */
import { spawn, spawnSync } from 'node:child_process'
import { childrenCpuMs, timeChild, type Timing } from './cpu-time.ts'
import { median } from './stats.ts'

/**
 * The variable a machine behind a TLS-inspecting proxy sets to its CA bundle.
 * Node 20 reads and parses the whole file at every process start, before any
 * script runs (this machine's bundle, 144 certificates: `node -e 0` takes
 * about 70 ms of CPU with it, 25 without), and no index build makes a TLS
 * connection (the bench builds with the offline model). Left in, it would
 * time the sandbox's proxy set-up as part of every build, most of a
 * re-index's fixed cost, and no site's build machine pays it.
 */
export const EXTRA_CA_CERTS = 'NODE_EXTRA_CA_CERTS'

/** `env` as builds run in it: without EXTRA_CA_CERTS (Pagefind's runner is a Node script too, so both engines alike). */
export function buildProcessEnv(env: NodeJS.ProcessEnv = process.env): NodeJS.ProcessEnv {
  const { [EXTRA_CA_CERTS]: _, ...rest } = env
  return rest
}

export function runBuildCommand(label: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<Timing> {
  return timeChild(
    () =>
      new Promise<void>((done, fail) => {
        const child = spawn(process.execPath, args, { env: buildProcessEnv(env), stdio: ['ignore', 'ignore', 'pipe'] })
        let err = ''
        child.stderr.on('data', (d: Buffer) => (err += d.toString()))
        child.on('error', fail)
        child.on('exit', (code) => {
          if (code === 0) return done()
          const tail = err.trim().split('\n').slice(-8).join('\n')
          fail(new Error(`${label} exited with code ${code}${tail ? `:\n${tail}` : ''}`))
        })
      }),
  )
}

/**
 * CPU ms of Node starting and exiting (`node -e 0`) in `env`: the median of
 * `rounds` rounds of ten starts each, since the kernel counts children's CPU
 * in 10 ms ticks.
 */
function nodeStartMs(env: NodeJS.ProcessEnv, rounds: number): number {
  const perStart: number[] = []
  for (let round = 0; round < rounds; round++) {
    const before = childrenCpuMs()
    for (let i = 0; i < 10; i++) spawnSync(process.execPath, ['-e', '0'], { env, stdio: 'ignore' })
    perStart.push((childrenCpuMs() - before) / 10)
  }
  return median(perStart)
}

/** What Node's own start-up costs with this machine's EXTRA_CA_CERTS and without it (as builds run); undefined when it is not set. */
export function extraCaCertsCost(rounds = 3): { file: string; withMs: number; withoutMs: number } | undefined {
  const file = process.env[EXTRA_CA_CERTS]
  if (!file) return undefined
  return { file, withMs: nodeStartMs(process.env, rounds), withoutMs: nodeStartMs(buildProcessEnv(), rounds) }
}
