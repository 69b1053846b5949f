/**
 * Runs one index build as a command, the way a site's build step runs it
 * (`node <cli> ...`), and times it. A failure names the command and ends
 * with the last lines it wrote to stderr.
 */
import { spawn } from 'node:child_process'
import { timeChild, type Timing } from './cpu-time.ts'

export function runBuildCommand(label: string, args: string[], env: NodeJS.ProcessEnv = process.env): Promise<Timing> {
  return timeChild(
    () =>
      new Promise<void>((done, fail) => {
        const child = spawn(process.execPath, args, { env, stdio: ['ignore', 'ignore', 'pipe'] })
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
