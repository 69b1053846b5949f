import { mkdtempSync, realpathSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { readSource } from './read-source.ts'

describe('readSource', () => {
  it('reads a file whole, at the limit exactly, and refuses it one byte over', async () => {
    const root = mkdtempSync(join(tmpdir(), 'docpilot-read-'))
    const text = 'x'.repeat(10_000)
    writeFileSync(join(root, 'page.md'), text)
    const read = await readSource(root, 'page.md', 10_000)
    expect(read.ok && new TextDecoder().decode(read.bytes)).toBe(text)
    expect(await readSource(root, 'page.md', 9_999)).toEqual({ ok: false, reason: expect.stringMatching(/^is 10000 bytes, over the per-file limit/) })
  })

  it.skipIf(process.platform !== 'linux')('reads a file that reports no size (as /proc files do) past its first buffer, and stops at the limit', async () => {
    const whole = await readSource(realpathSync('/proc/self'), 'maps', 1 << 20)
    expect(whole.ok && whole.bytes.length).toBeGreaterThan(8192)
    expect(await readSource(realpathSync('/proc/self'), 'maps', 5000)).toEqual({ ok: false, reason: expect.stringMatching(/^holds more than 5000 bytes, over the per-file limit/) })
  })
})
