import { describe, expect, it } from 'vitest'
import { clientBlock, clientKey, forwardedClient } from './limits.ts'

describe('client identity', () => {
  it('takes the address the nearest trusted proxy appended, never one the client wrote further left', () => {
    expect(forwardedClient('1.1.1.1, 2.2.2.2, 3.3.3.3', 1, '10.0.0.1')).toBe('3.3.3.3')
    expect(forwardedClient('spoofed-by-client, 3.3.3.3', 1, '10.0.0.1')).toBe('3.3.3.3')
    expect(forwardedClient('1.1.1.1, 2.2.2.2, 3.3.3.3', 2, '10.0.0.1')).toBe('2.2.2.2')
    expect(forwardedClient('3.3.3.3', 2, '10.0.0.1')).toBe('10.0.0.1')
    expect(forwardedClient('1.1.1.1', 0, '10.0.0.1')).toBe('10.0.0.1')
    expect(forwardedClient(undefined, 1, '10.0.0.1')).toBe('10.0.0.1')
  })

  it('counts an IPv6 client by its /64, however it writes the address, and an IPv4-mapped one as IPv4', () => {
    const block = '2001:db8:aa:bb::/64'
    for (const a of ['2001:db8:aa:bb::1', '2001:0db8:00aa:00bb:ffff:1:2:3', '[2001:db8:aa:bb:0:0:0:9]', '2001:DB8:AA:BB::7%eth0']) expect(clientBlock(a)).toBe(block)
    expect(clientBlock('2001:db8:aa:bc::1')).toBe('2001:db8:aa:bc::/64')
    expect(clientBlock('::1')).toBe('0:0:0:0::/64')
    expect(clientBlock('::ffff:203.0.113.7')).toBe('203.0.113.7')
    expect(clientBlock('203.0.113.7')).toBe('203.0.113.7')
    expect(clientBlock('unknown')).toBe('unknown')
    // A front proxy that appends the client's port: the port is not part of who the client is.
    expect(clientBlock('203.0.113.7:5123')).toBe('203.0.113.7')
    expect(clientBlock('[2001:db8:aa:bb::1]:443')).toBe(block)
  })

  it('keys buckets by a fixed-size digest, whatever the size of the address', async () => {
    const long = await clientKey('x'.repeat(8192))
    expect(long).toMatch(/^[0-9a-f]{32}$/)
    expect(await clientKey('1.2.3.4')).toHaveLength(32)
    expect(await clientKey('1.2.3.4')).not.toBe(await clientKey('1.2.3.5'))
  })
})
