/**
 * Test support for the CLI (not shipped: the bundle starts from bin/, which never imports it):
 * the command run in-process through main, its two streams captured.
 */
import { main } from './main.ts'

export interface CliRun {
  code: number
  stdout: string
  stderr: string
}

/** Runs `docpilot <argv>` through main in `cwd`, with `env` as its whole environment, as a pipe (no TTY) would see it. */
export async function runMain(argv: string[], cwd: string, env: Record<string, string | undefined> = {}): Promise<CliRun> {
  let stdout = ''
  let stderr = ''
  const code = await main(argv, { cwd, env, stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), stderrIsTTY: false })
  return { code, stdout, stderr }
}
