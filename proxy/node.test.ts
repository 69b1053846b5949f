import { mkdtempSync, readdirSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { IN_MEMORY, SqliteState, resolveDbPath } from './node.ts'

const tmp = () => mkdtempSync(join(tmpdir(), 'docpilot-node-state-'))

describe('proxy state path', () => {
  it("keeps ':memory:' a name, and resolves every other path against the working directory", () => {
    expect(resolveDbPath('/srv/site', IN_MEMORY)).toBe(':memory:')
    expect(resolveDbPath('/srv/site', '.docpilot/proxy.sqlite')).toBe('/srv/site/.docpilot/proxy.sqlite')
    expect(resolveDbPath('/srv/site', '/var/lib/docpilot.sqlite')).toBe('/var/lib/docpilot.sqlite')
  })

  it("refuses ':memory:' joined to a folder instead of creating a file of that name", () => {
    const dir = tmp()
    expect(() => new SqliteState(join(dir, IN_MEMORY))).toThrow(/':memory:' joined to a folder/)
    expect(readdirSync(dir)).toEqual([])
  })

  it("a file path creates its folder and keeps the day's count when reopened", async () => {
    const file = join(tmp(), 'nested', 'state.sqlite')
    const now = Date.UTC(2026, 0, 1, 12)
    const first = new SqliteState(file)
    expect(await first.spendDaily(1, now)).toEqual({ ok: true, used: 1, resetAt: Date.UTC(2026, 0, 2) })
    first.close()
    const reopened = new SqliteState(file)
    expect(await reopened.spendDaily(1, now)).toEqual({ ok: false, used: 1, resetAt: Date.UTC(2026, 0, 2) })
    // A new UTC day starts over.
    expect((await reopened.spendDaily(1, Date.UTC(2026, 0, 2, 0, 0, 1))).ok).toBe(true)
    reopened.close()
  })
})
