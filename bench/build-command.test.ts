import { describe, expect, it } from 'vitest'
import { buildProcessEnv, EXTRA_CA_CERTS, extraCaCertsCost, runBuildCommand } from './build-command.ts'

describe('runBuildCommand', () => {
  it('runs the build without the machine CA bundle variable, keeping the rest of its environment', async () => {
    const env = { ...process.env, [EXTRA_CA_CERTS]: '/nonexistent/ca.pem', BENCH_MARK: 'kept' }
    const script = `process.exit(process.env.${EXTRA_CA_CERTS} !== undefined ? 3 : process.env.BENCH_MARK === 'kept' ? 0 : 4)`
    const timing = await runBuildCommand('probe', ['-e', script], env)
    expect(timing.cpuMs).toBeGreaterThanOrEqual(0)
  })

  it('names the command and its exit code when a build fails', async () => {
    await expect(runBuildCommand('probe', ['-e', 'console.error("boom"); process.exit(2)'])).rejects.toThrow(/probe exited with code 2:\nboom/)
  })
})

describe('buildProcessEnv', () => {
  it('leaves the environment passed in untouched', () => {
    const env = { [EXTRA_CA_CERTS]: '/etc/ca.pem', PATH: '/bin' }
    expect(buildProcessEnv(env)).toEqual({ PATH: '/bin' })
    expect(env[EXTRA_CA_CERTS]).toBe('/etc/ca.pem')
  })
})

describe('extraCaCertsCost', () => {
  it('is measured only on a machine that sets the variable', () => {
    const saved = process.env[EXTRA_CA_CERTS]
    delete process.env[EXTRA_CA_CERTS]
    try {
      expect(extraCaCertsCost(1)).toBeUndefined()
    } finally {
      if (saved !== undefined) process.env[EXTRA_CA_CERTS] = saved
    }
  })
})
