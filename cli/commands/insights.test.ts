/** `docpilot insights` through the CLI's main: the config is read and validated as every command's is. */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runMain } from '../test-helpers.ts'

let dir: string

const run = (argv: string[]) => runMain(argv, dir)

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'docpilot-insights-'))
  // A proxy database that never stored an event (no events table), as a proxy with insights off leaves it.
  new Database(join(dir, 'proxy.sqlite')).close()
})
afterAll(() => rm(dir, { recursive: true, force: true }))

describe('docpilot insights', () => {
  it('stops at a config with a typo, naming the file and the field, instead of reporting 0 turns', async () => {
    await writeFile(join(dir, 'docpilot.config.json'), JSON.stringify({ insights: { enabeld: true } }))
    const r = await run(['insights', '--db', 'proxy.sqlite', '--out', 'report'])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('Invalid config docpilot.config.json: insights.enabeld is not a known setting; did you mean insights.enabled?')
    expect(r.stdout).toBe('')
  })

  it('says insights are off in the config when there is nothing to report, and how to turn them on', async () => {
    await writeFile(join(dir, 'docpilot.config.json'), JSON.stringify({ out: 'nowhere' }))
    const off = await run(['insights', '--db', 'proxy.sqlite', '--out', 'report'])
    expect(off.code).toBe(0)
    expect(off.stdout).toContain('0 turns')
    expect(off.stdout).toContain('insights.enabled is off in docpilot.config.json, so the panel sends no records and the proxy stores none. Set insights: { enabled: true }')
    // The config's own index folder is where it looks for pages.
    expect(off.stderr).toContain('No index at nowhere:')
    await writeFile(join(dir, 'docpilot.config.json'), JSON.stringify({ insights: { enabled: true } }))
    const on = await run(['insights', '--db', 'proxy.sqlite', '--out', 'report'])
    expect(on.code).toBe(0)
    expect(on.stdout).not.toContain('insights.enabled is off')
  })

  it('says an --out that is a file is a file, not "EEXIST: file already exists, mkdir"', async () => {
    await writeFile(join(dir, 'docpilot.config.json'), '{}')
    await writeFile(join(dir, 'notes.md'), '')
    const r = await run(['insights', '--db', 'proxy.sqlite', '--out', 'notes.md'])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain(`${join(dir, 'notes.md')} is a file, and a folder is needed there; choose another path (EEXIST)\n`)
    expect(r.stderr).not.toContain('mkdir')
  })
})
