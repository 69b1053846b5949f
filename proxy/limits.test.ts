import { describe, expect, it } from 'vitest'
import { clientKey, forwardedClient } from './limits.ts'

describe('client identity', () => {
  it('takes the address the nearest trusted proxy appended, never one the client wrote further left', () => {
    expect(forwardedClient('1.1.1.1, 2.2.2.2, 3.3.3.3', 1, '10.0.0.1')).toBe('3.3.3.3')
    expect(forwardedClient('spoofed-by-client, 3.3.3.3', 1, '10.0.0.1')).toBe('3.3.3.3')
    expect(forwardedClient('1.1.1.1, 2.2.2.2, 3.3.3.3', 2, '10.0.0.1')).toBe('2.2.2.2')
    expect(forwardedClient('3.3.3.3', 2, '10.0.0.1')).toBe('10.0.0.1')
    expect(forwardedClient('1.1.1.1', 0, '10.0.0.1')).toBe('10.0.0.1')
    expect(forwardedClient(undefined, 1, '10.0.0.1')).toBe('10.0.0.1')
  })

  it('keys buckets by a fixed-size digest, whatever the size of the address', async () => {
    const long = await clientKey('x'.repeat(8192))
    expect(long).toMatch(/^[0-9a-f]{32}$/)
    expect(await clientKey('1.2.3.4')).toHaveLength(32)
    expect(await clientKey('1.2.3.4')).not.toBe(await clientKey('1.2.3.5'))
  })
})
