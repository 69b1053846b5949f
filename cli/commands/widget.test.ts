import { mkdtemp, readFile, rm } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { main } from '../main.ts'

let dir: string

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'docpilot-widget-'))
})
afterAll(() => rm(dir, { recursive: true, force: true }))

async function run(argv: string[]) {
  let stdout = ''
  let stderr = ''
  const code = await main(argv, { cwd: dir, env: {}, stdout: (t) => void (stdout += t), stderr: (t) => void (stderr += t), stderrIsTTY: false })
  return { code, stdout, stderr }
}

describe('docpilot widget', () => {
  it('writes the loader, panel and worker and prints the script tag for the index URL', async () => {
    const r = await run(['widget', '--out', 'public/assets', '--index', '/docs-index/'])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    for (const name of ['docpilot.js', 'docpilot-panel.js', 'docpilot-worker.js']) {
      expect((await readFile(join(dir, 'public/assets', name))).length).toBeGreaterThan(0)
    }
    expect(r.stdout).toContain('<script src="/assets/docpilot.js" data-index="/docs-index/" defer></script>')
  }, 120_000)

  it('prints a placeholder src, and says so, for a folder outside the working directory (no `..` path)', async () => {
    const outside = await mkdtemp(join(tmpdir(), 'docpilot-widget-out-'))
    try {
      const out = join(outside, 'w2')
      const r = await run(['widget', '--out', out])
      expect(r.code, r.stderr).toBe(0)
      expect(r.stdout).toContain(`Wrote the widget into ${out}: `)
      expect(r.stdout).toContain(`with src the URL path your site serves ${out} at (it is outside this folder, so docpilot cannot tell;`)
      expect(r.stdout).toContain('<script src="/PATH/TO/w2/docpilot.js" data-index="/docpilot/" defer></script>')
      expect(r.stdout).not.toContain('..')
    } finally {
      await rm(outside, { recursive: true, force: true })
    }
  }, 120_000)

  it('refuses an index that is not a URL path, as a usage error', async () => {
    const r = await run(['widget', '--out', 'x', '--index', 'docpilot'])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/--index must be a URL path/)
  })
})
