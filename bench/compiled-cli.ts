/**
 * docpilot's CLI as an installed package runs it: the bundled JavaScript in
 * dist/bin/ that `npm pack` builds (`npm run build:node`), not the TypeScript
 * sources a checkout runs through tsx. Builds are timed with process start
 * included, so timing the checkout's launcher would charge every build the
 * TypeScript compiler's start-up, which no site owner pays.
 *
 * Compiled once per bench process; the launcher it returns runs what
 * bin/docpilot.cjs runs in an installed package, dist/bin/launch.cjs, code
 * cache included, and as it does, from a CommonJS script (bin/docpilot.cjs
 * itself picks the sources whenever they sit beside it, as they do in this
 * checkout).
 */
import { spawn } from 'node:child_process'
import { mkdtemp, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'

const ROOT = resolve(import.meta.dirname, '..')
const NPM = process.platform === 'win32' ? 'npm.cmd' : 'npm'

let compiled: Promise<string> | undefined

function buildNode(): Promise<void> {
  return new Promise((done, fail) => {
    const child = spawn(NPM, ['run', '--silent', 'build:node'], { cwd: ROOT, stdio: ['ignore', 'ignore', 'pipe'] })
    let err = ''
    child.stderr.on('data', (d: Buffer) => (err += d.toString()))
    child.on('error', fail)
    child.on('exit', (code) => (code === 0 ? done() : fail(new Error(`npm run build:node exited with code ${code}:\n${err.trim().split('\n').slice(-8).join('\n')}`))))
  })
}

/** A launcher script that runs the compiled CLI with its arguments (compiles dist/ on first use). */
export function compiledCli(): Promise<string> {
  compiled ??= (async () => {
    await buildNode()
    const launcher = join(await mkdtemp(join(tmpdir(), 'docpilot-bench-cli-')), 'docpilot.cjs')
    const launch = join(ROOT, 'dist/bin/launch.cjs')
    await writeFile(launcher, `require(${JSON.stringify(launch)}).launch(process.argv.slice(2)).then((code) => { process.exitCode = code })\n`)
    return launcher
  })()
  return compiled
}
