import { gunzipSync as fflateGunzipSync, gzipSync as fflateGzipSync } from 'fflate'
import { gzipSync as zlibGzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { gunzipSync } from './node-gunzip.ts'

const text = new TextEncoder().encode('{"pages":[["guides/routing.md","/guides/routing/","Routing"]]}'.repeat(50))

describe('gunzipSync on node:zlib (the bundled CLI\'s fflate)', () => {
  it('gives the bytes fflate gives, for gzip written by zlib (the index writer) and by fflate', () => {
    for (const gz of [new Uint8Array(zlibGzipSync(text)), fflateGzipSync(text)]) {
      expect(gunzipSync(gz)).toEqual(fflateGunzipSync(gz))
      expect(gunzipSync(gz)).toEqual(text)
    }
  })

  it('returns a Uint8Array of its own, as fflate does, not a Buffer that may view a shared pool', () => {
    const out = gunzipSync(new Uint8Array(zlibGzipSync(new Uint8Array([1, 2, 3]))))
    expect(Buffer.isBuffer(out)).toBe(false)
    expect(out.byteOffset).toBe(0)
    expect(out.buffer.byteLength).toBe(3)
  })

  it('throws on a damaged stream, which zlib checks against its CRC', () => {
    const gz = new Uint8Array(zlibGzipSync(text))
    gz[gz.length - 6]! ^= 0xff
    expect(() => gunzipSync(gz)).toThrow()
  })
})
