/** What dev's and preview's file server hands out: nothing outside its folder, nothing hidden, and only to its own address. */
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { request } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { validateConfig } from '../core/config/validate.ts'
import { createNodeProxy } from '../proxy/node.ts'
import { proxyPlan } from './commands/doctor.ts'
import { safeFile, servedHost, siteFile, siteHostsOf, startSiteServer, type SiteServer } from './site-server.ts'

const work = mkdtempSync(join(tmpdir(), 'docpilot-site-server-'))
const root = join(work, 'site')
const outside = join(work, 'secret')
mkdirSync(join(root, '.git'), { recursive: true })
mkdirSync(join(root, '.well-known'))
mkdirSync(outside)
writeFileSync(join(root, 'index.html'), '<h1>Home</h1>')
writeFileSync(join(root, '.env'), 'OPENAI_API_KEY=sk-in-the-folder')
writeFileSync(join(root, '.git', 'config'), '[core]')
writeFileSync(join(root, '.well-known', 'security.txt'), 'Contact: x')
writeFileSync(join(outside, 'secret.txt'), 'TOPSECRET')
symlinkSync(join(outside, 'secret.txt'), join(root, 'link.txt'))
symlinkSync(outside, join(root, 'linkdir'))
writeFileSync(join(root, 'real.txt'), 'inside')
symlinkSync(join(root, 'real.txt'), join(root, 'alias.txt'))
afterAll(() => rmSync(work, { recursive: true, force: true }))

describe('safeFile', () => {
  it('serves files of the folder, and links that stay inside it', () => {
    expect(siteFile(root, '/')).toBe(join(root, 'index.html'))
    expect(safeFile(root, '/alias.txt')).toBe(join(root, 'alias.txt'))
    expect(safeFile(root, '/.well-known/security.txt')).toBe(join(root, '.well-known', 'security.txt'))
  })

  it('refuses hidden files and folders, and links that lead out of the folder', () => {
    for (const path of ['/.env', '/.git/config', '/%2eenv', '/sub/../.env', '/link.txt', '/linkdir/secret.txt', '/..%2fsecret/secret.txt']) {
      expect(safeFile(root, path), path).toBeUndefined()
    }
  })
})

describe('servedHost', () => {
  it('answers localhost, IP addresses and the host it listens on; not another name (DNS rebinding)', () => {
    expect(servedHost('127.0.0.1:4321', '127.0.0.1')).toBe(true)
    expect(servedHost('localhost:4321', '127.0.0.1')).toBe(true)
    expect(servedHost('[::1]:4321', '::1')).toBe(true)
    expect(servedHost('192.168.1.20:4321', '0.0.0.0')).toBe(true)
    expect(servedHost('docs.test:4321', 'docs.test')).toBe(true)
    expect(servedHost('Docs.Test:4321', 'DOCS.test')).toBe(true)
    // The site's own name, pointed at this machine in a hosts file to try it under its real origin.
    expect(servedHost('docs.example.com', '127.0.0.1', siteHostsOf(['https://docs.example.com']))).toBe(true)
    expect(servedHost('rebind.attacker.example:4321', '127.0.0.1')).toBe(false)
    expect(servedHost('localhost.attacker.example', '127.0.0.1')).toBe(false)
    expect(servedHost(undefined, '127.0.0.1')).toBe(false)
  })
})

describe('the server', () => {
  let server: SiteServer
  beforeAll(async () => {
    const proxy = createNodeProxy({ settings: proxyPlan(validateConfig({ proxy: { siteOrigins: ['http://127.0.0.1'] } }, '(test)'), {}).settings, env: {}, dbPath: ':memory:' })
    server = await startSiteServer({ proxy, page: async (path) => (siteFile(root, path) ? { file: siteFile(root, path)! } : undefined), csp: false, port: 0, host: '127.0.0.1' })
  })
  afterAll(() => server?.close())

  const get = (path: string, host?: string) =>
    new Promise<{ status: number; body: string }>((done, fail) => {
      const req = request(`${server.url}${path}`, { headers: host ? { host } : {} }, (res) => {
        let body = ''
        res.on('data', (d: Buffer) => (body += String(d)))
        res.on('end', () => done({ status: res.statusCode ?? 0, body }))
      })
      req.on('error', fail)
      req.end()
    })

  it('serves its own address and refuses a page of another name pointed at it', async () => {
    expect((await get('/real.txt')).body).toBe('inside')
    const rebound = await get('/real.txt', `rebind.attacker.example:${server.port}`)
    expect(rebound.status).toBe(421)
    expect(rebound.body).not.toContain('inside')
  })

  it('never sends a hidden file or a file a link leads to outside the folder', async () => {
    for (const path of ['/.env', '/link.txt', '/linkdir/secret.txt']) {
      const r = await get(path)
      expect(r.status, path).toBe(404)
      expect(r.body, path).not.toMatch(/TOPSECRET|sk-in-the-folder/)
    }
  })
})
