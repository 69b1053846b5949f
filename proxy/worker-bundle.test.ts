/**
 * The Worker an owner deploys, bundled the way `wrangler deploy` bundles it
 * (dry run) from the config `docpilot doctor --proxy --wrangler` writes: it
 * builds, it fits Cloudflare's upload limit for the Free plan (3 MB after
 * compression), and the ONNX runtime stays out of it (the alias puts
 * proxy/onnx-unavailable.ts in its place).
 */
import { spawnSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { afterAll, describe, expect, it } from 'vitest'
import { writeWranglerConfig } from '../cli/wrangler-config.ts'
import { parseProxySettings } from './settings.ts'

const WRANGLER = new URL('../node_modules/.bin/wrangler', import.meta.url).pathname
const FREE_PLAN_LIMIT = 3 * 1024 * 1024

describe('the deployed Worker bundle', () => {
  const dir = mkdtempSync(join(tmpdir(), 'docpilot-worker-bundle-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('builds from the written config, fits the Free plan, and carries no ONNX runtime', async () => {
    const config = join(dir, 'docpilot-proxy', 'wrangler.toml')
    await writeWranglerConfig(config, 'docpilot-proxy/wrangler.toml', parseProxySettings({ routes: [] }))
    expect(readFileSync(config, 'utf8')).toMatch(/^"onnxruntime-web" = ".+onnx-unavailable\.ts"$/m)
    const out = join(dir, 'bundle')
    const run = spawnSync(WRANGLER, ['deploy', '--dry-run', '--outdir', out, '-c', config], {
      cwd: dir,
      env: { ...process.env, CLOUDFLARE_CF_FETCH_ENABLED: 'false', WRANGLER_SEND_METRICS: 'false', NO_COLOR: '1' },
      encoding: 'utf8',
    })
    expect(run.status, run.stderr + run.stdout).toBe(0)
    const bundle = readFileSync(join(out, 'worker.js'))
    expect(gzipSync(bundle).length).toBeLessThan(FREE_PLAN_LIMIT)
    const text = bundle.toString('utf8')
    expect(text).toContain('the ONNX embedder does not run on Cloudflare Workers')
    expect(text).not.toMatch(/node_modules\/onnxruntime-web\//)
    // The MCP route is in it.
    expect(text).toContain('search_docs')
  }, 120_000)
})
