import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { readSource, SETTLE_MS, settledAt, sourceFingerprint } from './read-source.ts'

describe('readSource', () => {
  it('reads a file whole, at the limit exactly, and refuses it one byte over', async () => {
    const root = mkdtempSync(join(tmpdir(), 'docpilot-read-'))
    const text = 'x'.repeat(10_000)
    writeFileSync(join(root, 'page.md'), text)
    const read = readSource(root, 'page.md', 10_000)
    expect(read.ok && new TextDecoder().decode(read.bytes)).toBe(text)
    expect(readSource(root, 'page.md', 9_999)).toEqual({ ok: false, reason: expect.stringMatching(/^is 10000 bytes, over the per-file limit/) })
  })

  it.skipIf(process.platform !== 'linux')('reads a file that reports no size (as /proc files do) past its first buffer, and stops at the limit', async () => {
    const whole = readSource(realpathSync('/proc/self'), 'maps', 1 << 20)
    expect(whole.ok && whole.bytes.length).toBeGreaterThan(8192)
    expect(readSource(realpathSync('/proc/self'), 'maps', 5000)).toEqual({ ok: false, reason: expect.stringMatching(/^holds more than 5000 bytes, over the per-file limit/) })
  })
})

describe('a source file fingerprint', () => {
  it('is what a later stat of the unchanged file finds, and changes with the file', async () => {
    const root = mkdtempSync(join(tmpdir(), 'docpilot-read-'))
    writeFileSync(join(root, 'page.md'), 'one')
    const read = readSource(root, 'page.md', 10_000)
    expect(read.ok && read.fingerprint.id).toBe(sourceFingerprint(root, 'page.md'))
    writeFileSync(join(root, 'page.md'), 'two!')
    expect(read.ok && read.fingerprint.id).not.toBe(sourceFingerprint(root, 'page.md'))
    expect(sourceFingerprint(root, 'gone.md')).toBeUndefined()
    expect(sourceFingerprint(root, 'page.md/under-a-file.md')).toBeUndefined()
    expect(sourceFingerprint(root, '.')).toBeUndefined()
  })

  it('is trusted only when the file last changed well before the read', () => {
    const ns = (ms: number) => BigInt(ms) * 1_000_000n
    const read = 1_700_000_000_000
    // Stamps with fractions of a second: a tick of the kernel clock is milliseconds.
    expect(settledAt({ mtimeNs: ns(read - SETTLE_MS.fine - 1) + 1n, ctimeNs: ns(read - SETTLE_MS.fine - 1) + 1n }, read)).toBe(true)
    expect(settledAt({ mtimeNs: ns(read - 5000) + 1n, ctimeNs: ns(read - 10) + 1n }, read)).toBe(false)
    // Whole seconds: a change later in the same second gets the same stamp.
    expect(settledAt({ mtimeNs: ns(read - 1000), ctimeNs: ns(read - 1000) }, read)).toBe(false)
    expect(settledAt({ mtimeNs: ns(read - SETTLE_MS.whole - 1000), ctimeNs: ns(read - SETTLE_MS.whole - 1000) }, read)).toBe(true)
  })

  it('of a file just written is not settled', async () => {
    const root = mkdtempSync(join(tmpdir(), 'docpilot-read-'))
    writeFileSync(join(root, 'page.md'), 'one')
    const read = readSource(root, 'page.md', 10_000)
    expect(read.ok && read.fingerprint.settled).toBe(false)
  })
})
