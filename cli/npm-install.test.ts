/**
 * The package as a stranger gets it: `npm pack` (which builds dist/ at
 * prepack), then a fresh `npm init -y` project that installs the tarball from
 * the registry and runs the README's "Add it to your site" code blocks as
 * written, in order, plus every other command once. Nothing here may reach
 * into the checkout: the project only has what the tarball and its
 * dependencies bring. One install serves every case.
 *
 * The README's blocks run as written, with three stand-ins an owner would not
 * need: `npm install docpilot` installs the tarball, servers get `--port 0`
 * (parallel runs never collide) and are stopped after a few requests, and
 * "build your site" (the owner's generator) is played by writing the docs as
 * HTML pages with the README's script tag, plus the static folder, into dist/.
 */
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { existsSync, lstatSync, readdirSync, readFileSync, statSync } from 'node:fs'
import { cp, mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { builtinModules, createRequire } from 'node:module'
import { tmpdir } from 'node:os'
import { basename, dirname, join, relative } from 'node:path'
import { promisify } from 'node:util'
import { Client } from '@modelcontextprotocol/client'
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { SearchDocsOutput } from '../core/mcp/docs-server.ts'
import { CHAIN } from '../core/providers/table.ts'
import { COMMANDS } from './main.ts'
import { PACKAGE_ROOT } from './package-root.ts'

const run = promisify(execFile)
const MINUTE = 60_000

/** The environment every command runs in: no provider variable from this machine. */
const ENV: Record<string, string> = Object.fromEntries(
  Object.entries({ ...process.env, PLAYWRIGHT_SKIP_BROWSER_DOWNLOAD: '1', ONNXRUNTIME_NODE_INSTALL: 'skip', NO_COLOR: '1' }).filter(
    (e): e is [string, string] => e[1] !== undefined && !CHAIN.some((s) => s.keyEnv === e[0] || s.baseUrlEnv === e[0]),
  ),
)

interface Result {
  code: number
  stdout: string
  stderr: string
}

async function sh(command: string, cwd: string, env: Record<string, string> = {}, timeout = 5 * MINUTE): Promise<Result> {
  try {
    const { stdout, stderr } = await run('sh', ['-c', command], { cwd, env: { ...ENV, ...env }, timeout, maxBuffer: 64 * 1024 * 1024 })
    return { code: 0, stdout, stderr }
  } catch (err) {
    const e = err as { code?: number; stdout?: string; stderr?: string; message: string }
    return { code: typeof e.code === 'number' ? e.code : -1, stdout: e.stdout ?? '', stderr: e.stderr ?? e.message }
  }
}

const ok = (r: Result, what: string) => expect(r.code, `${what} exited ${r.code}:\n${r.stdout}\n${r.stderr}`).toBe(0)

/** A server command, started in its own process group; resolves with its URL once it prints one. */
async function serve(command: string, cwd: string, env: Record<string, string> = {}): Promise<{ url: string; output: () => string; stop: () => Promise<void> }> {
  const child: ChildProcess = spawn('sh', ['-c', `exec ${command}`], { cwd, env: { ...ENV, ...env }, detached: true, stdio: ['ignore', 'pipe', 'pipe'] })
  let output = ''
  child.stdout!.on('data', (d: Buffer) => (output += d.toString()))
  child.stderr!.on('data', (d: Buffer) => (output += d.toString()))
  const stop = async () => {
    if (child.exitCode !== null || child.signalCode !== null) return
    const exited = new Promise((done) => child.once('exit', done))
    process.kill(-child.pid!, 'SIGTERM')
    await Promise.race([exited, new Promise((done) => setTimeout(done, 5000))])
    if (child.exitCode === null && child.signalCode === null) process.kill(-child.pid!, 'SIGKILL')
  }
  const deadline = Date.now() + 3 * MINUTE
  for (;;) {
    const url = /(http:\/\/127\.0\.0\.1:\d+)\//.exec(output)?.[1]
    if (url) return { url, output: () => output, stop }
    if (child.exitCode !== null || Date.now() > deadline) {
      await stop()
      throw new Error(`${command} did not start (exit ${child.exitCode}):\n${output}`)
    }
    await new Promise((r) => setTimeout(r, 200))
  }
}

/** The README's "Add it to your site" section as its fenced code blocks, in order. */
function readmeBlocks(): { lang: string; body: string }[] {
  const readme = readFileSync(join(PACKAGE_ROOT, 'README.md'), 'utf8')
  const start = readme.indexOf('\n## Add it to your site\n')
  expect(start, 'README.md has an "Add it to your site" section').toBeGreaterThan(0)
  const section = readme.slice(start, readme.indexOf('\n## ', start + 1))
  return [...section.matchAll(/^```(\w+)\n([\s\S]*?)^```$/gm)].map((m) => ({ lang: m[1]!, body: m[2]! }))
}

/** The Claude Desktop snippet of docs/agents.md ("docpilot mcp for editors"): the command and arguments an editor runs. */
function editorSnippet(): { command: string; args: string[] } {
  const agents = readFileSync(join(PACKAGE_ROOT, 'docs/agents.md'), 'utf8')
  const start = agents.indexOf('\n## `docpilot mcp` for editors\n')
  expect(start, 'docs/agents.md has a "docpilot mcp for editors" section').toBeGreaterThan(0)
  const json = /^```json\n([\s\S]*?)^```$/m.exec(agents.slice(start))![1]!
  const servers = (JSON.parse(json) as { mcpServers: Record<string, { command: string; args: string[] }> }).mcpServers
  return Object.values(servers)[0]!
}

/** The commands of a shell block: one per line, comments dropped. */
const commands = (body: string) =>
  body
    .split('\n')
    .map((line) => line.replace(/\s+#.*$/, '').trim())
    .filter((line) => line && !line.startsWith('#'))

function walk(dir: string, visit: (path: string, isDir: boolean) => void): void {
  for (const e of readdirSync(dir, { withFileTypes: true })) {
    const path = join(dir, e.name)
    visit(path, e.isDirectory())
    if (e.isDirectory() && !e.isSymbolicLink()) walk(path, visit)
  }
}

/** A package's own manifest: node_modules/<name>/package.json or node_modules/@scope/<name>/package.json. */
function isPackageManifest(path: string): boolean {
  const parent = dirname(dirname(path))
  return basename(parent) === 'node_modules' || (basename(parent).startsWith('@') && basename(dirname(parent)) === 'node_modules')
}

/** What an install brought: bytes on disk, packages that run scripts at install, native build files. */
function installFigures(nodeModules: string) {
  let bytes = 0
  let disk = 0
  const installScripts = new Set<string>()
  const native: string[] = []
  walk(nodeModules, (path, isDir) => {
    if (isDir) return
    const stat = lstatSync(path)
    bytes += stat.size
    disk += stat.blocks * 512
    const name = basename(path)
    if (name === 'binding.gyp' || name.endsWith('.node')) native.push(relative(nodeModules, path))
    if (name !== 'package.json' || !isPackageManifest(path)) return
    const pkg = JSON.parse(readFileSync(path, 'utf8')) as { name?: string; scripts?: Record<string, string> }
    if (['preinstall', 'install', 'postinstall'].some((s) => pkg.scripts?.[s])) installScripts.add(pkg.name ?? path)
  })
  return { mb: bytes / 1e6, diskMb: disk / 1e6, installScripts: [...installScripts], native }
}

const DOCS: Record<string, string> = {
  'docs/guide/cookies.md': '# Cookies\n\nHelpers for cookies.\n\n## Signed cookies\n\nUse `setSignedCookie` with a secret so nobody can tamper with the value.\n\n## Deleting cookies\n\nCall `deleteCookie` to remove one.\n',
  'docs/guide/routing.md': '# Routing\n\n## Path parameters\n\nRead a path parameter with `c.req.param()`.\n',
  'docs/index.md': '# Welcome\n\nThis site documents a small web framework.\n',
}

/** Plays the owner's site generator: each page as HTML with the README's script tag, plus the static folder. */
async function buildSite(project: string, scriptTag: string): Promise<void> {
  const dist = join(project, 'dist')
  await rm(dist, { recursive: true, force: true })
  await cp(join(project, 'public'), dist, { recursive: true })
  for (const [path, md] of Object.entries(DOCS)) {
    const html = join(dist, path.replace(/^docs\//, '').replace(/\.md$/, '.html'))
    const body = md.replace(/^(#+) (.*)$/gm, (_, h: string, t: string) => `<h${h.length}>${t}</h${h.length}>`)
    await mkdir(dirname(html), { recursive: true })
    await writeFile(html, `<!doctype html><html><head><title>Docs</title>\n${scriptTag}</head><body><main>${body}</main></body></html>\n`)
  }
}

let work: string
let project: string
let tarball: string
const figures: Record<string, string> = {}

beforeAll(async () => {
  work = await mkdtemp(join(tmpdir(), 'docpilot-npm-install-'))
  project = join(work, 'site')
  await mkdir(project)
  const packStart = Date.now()
  const packed = await sh(`npm pack --silent --pack-destination ${work}`, PACKAGE_ROOT, {}, 10 * MINUTE)
  ok(packed, 'npm pack')
  tarball = join(work, packed.stdout.trim().split('\n').pop()!)
  figures['npm pack (with the prepack build)'] = `${((Date.now() - packStart) / 1000).toFixed(1)} s, ${(statSync(tarball).size / 1e6).toFixed(1)} MB tarball`
  ok(await sh('npm init -y', project), 'npm init -y')
  for (const [path, text] of Object.entries(DOCS)) {
    await mkdir(dirname(join(project, path)), { recursive: true })
    await writeFile(join(project, path), text)
  }
}, 12 * MINUTE)

afterAll(async () => {
  console.log(`\ndocpilot from npm pack, installed into a fresh \`npm init -y\` project:\n${Object.entries(figures).map(([k, v]) => `  ${k}: ${v}`).join('\n')}\n`)
  if (work) await rm(work, { recursive: true, force: true })
})

describe('the packed package in a fresh npm init -y project', { timeout: 5 * MINUTE }, () => {
  const blocks = readmeBlocks()
  const scriptTag = blocks.find((b) => b.lang === 'html')!.body.trim()

  it("runs the README's install line, installing no native code and under 60 MB", async () => {
    const install = commands(blocks[0]!.body)[0]!
    expect(install).toMatch(/^npm install (--save-dev )?docpilot$/)
    const start = Date.now()
    ok(await sh(`${install.replace(/docpilot$/, tarball)} --no-audit --no-fund`, project, {}, 10 * MINUTE), install)
    const seconds = (Date.now() - start) / 1000
    const { mb, diskMb, installScripts, native } = installFigures(join(project, 'node_modules'))
    figures['npm install (registry reachable, npm cache as found)'] = `${seconds.toFixed(1)} s`
    figures['node_modules'] = `${mb.toFixed(1)} MB of files, ${diskMb.toFixed(1)} MB on disk`
    figures['packages with install scripts'] = installScripts.join(', ') || 'none'
    figures['native build files (binding.gyp, *.node)'] = native.join(', ') || 'none'
    expect(native).toEqual([])
    expect(installScripts).toEqual([])
    expect(diskMb).toBeLessThan(60)
    expect(existsSync(join(project, 'node_modules/better-sqlite3'))).toBe(false)
    expect(existsSync(join(project, 'node_modules/onnxruntime-web'))).toBe(false)
    expect(existsSync(join(project, 'node_modules/tsx'))).toBe(false)
  }, 12 * MINUTE)

  it('ships compiled JavaScript whose every import is a declared dependency, and declares nothing it does not import', async () => {
    const pkgDir = join(project, 'node_modules/docpilot')
    const manifest = JSON.parse(await readFile(join(pkgDir, 'package.json'), 'utf8')) as { dependencies: Record<string, string>; peerDependencies: Record<string, string> }
    const declared = new Set([...Object.keys(manifest.dependencies), ...Object.keys(manifest.peerDependencies)])
    const packageOf = (spec: string) => (spec.startsWith('@') ? spec.split('/').slice(0, 2).join('/') : spec.split('/')[0]!)
    const isPackage = (spec: string) => !spec.startsWith('.') && !spec.startsWith('node:') && !builtinModules.includes(spec)
    // The modules tsc compiled: each import names a package the install must provide.
    const imported = new Set<string>()
    walk(join(pkgDir, 'dist'), (path, isDir) => {
      if (isDir || !path.endsWith('.js') || path.includes('/dist/widget/') || path.includes('/dist/bin/')) return
      expect(path.endsWith('.ts')).toBe(false)
      for (const m of readFileSync(path, 'utf8').matchAll(/(?:^(?:import|export)\b[^'"\n]*?from\s*|\b(?:import|require)\(\s*)["']([^"']+)["']/gm)) {
        if (isPackage(m[1]!)) imported.add(packageOf(m[1]!))
      }
    })
    expect([...imported].filter((d) => !declared.has(d)), 'imported but not declared').toEqual([])
    expect([...declared].filter((d) => !imported.has(d)), 'declared but never imported').toEqual([])
    // The bundled CLI (dist/bin/) carries its dependencies inside; what it left
    // outside (esbuild's import statements, import(), require() and __require()
    // calls, not those in generated code's text) is declared, or resolves from
    // there as an optional probe does.
    const bundle = join(pkgDir, 'dist/bin')
    const external = new Set<string>()
    for (const file of readdirSync(bundle).filter((f) => /\.c?js$/.test(f))) {
      for (const m of readFileSync(join(bundle, file), 'utf8').matchAll(/(?:^import\b[^'"\n]*?from\s*|(?<![\w.$'"`])(?:import|require|__require)\(\s*)"([^"]+)"/gm)) {
        if (isPackage(m[1]!)) external.add(packageOf(m[1]!))
      }
    }
    const resolvable = (name: string) => {
      try {
        createRequire(join(bundle, 'main.cjs')).resolve(name)
        return true
      } catch {
        return false
      }
    }
    expect([...external].filter((d) => !declared.has(d) && !resolvable(d)), 'left outside the bundle, neither declared nor installed').toEqual([])
    expect(existsSync(join(pkgDir, 'cli'))).toBe(false)
    expect(readdirSync(join(pkgDir, 'dist/widget')).filter((f) => f.startsWith('ort-'))).toEqual([])
    expect(existsSync(join(pkgDir, 'dist/cli/main.d.ts'))).toBe(true)
  })

  it('answers --version fast, and --help lists every command', async () => {
    const start = Date.now()
    ok(await sh('node node_modules/docpilot/bin/docpilot.cjs --version', project), '--version')
    figures['start-up (node bin/docpilot.cjs --version)'] = `${Date.now() - start} ms`
    const start2 = Date.now()
    const help = await sh('npx docpilot --help', project)
    figures['npx docpilot --help'] = `${Date.now() - start2} ms`
    ok(help, '--help')
    for (const name of Object.keys(COMMANDS)) expect(help.stdout).toMatch(new RegExp(`^  ${name} `, 'm'))
    const helpCmd = await sh('npx docpilot help preview', project)
    ok(helpCmd, 'help preview')
    expect(helpCmd.stdout).toContain('Usage: docpilot preview')
    // The installed widget files are prebuilt: an option that could not change them (or skip their build) is not offered.
    const widgetHelp = await sh('npx docpilot widget --help', project)
    ok(widgetHelp, 'widget --help')
    expect(widgetHelp.stdout).toContain('--out <dir>')
    expect(widgetHelp.stdout).not.toContain('--no-minify')
    const devHelp = await sh('npx docpilot dev --help', project)
    ok(devHelp, 'dev --help')
    expect(devHelp.stdout).toContain('--fake-providers')
    expect(devHelp.stdout).not.toContain('--no-build')
    const none = await sh('npx docpilot', project)
    expect(none.code).toBe(2)
    expect(none.stdout).toContain('Commands:')
    const typo = await sh('npx docpilot idnex', project)
    expect(typo.code).toBe(2)
    expect(typo.stderr).toContain('(Did you mean index?)')
  })

  it("runs the README's blocks in order: config, index, widget, the script tag, dev and preview, doctor", async () => {
    for (const block of blocks.slice(1)) {
      if (block.lang === 'ts' || block.lang === 'js' || block.lang === 'json') {
        const file = /^\/\/ (\S+)/.exec(block.body)?.[1]
        expect(file, 'a config block names its file on its first line').toBeDefined()
        await writeFile(join(project, file!), block.body)
        continue
      }
      if (block.lang !== 'sh') continue
      for (const command of commands(block.body)) {
        if (/^npx docpilot (dev|preview)\b/.test(command)) {
          if (command.includes(' preview')) await buildSite(project, scriptTag)
          const server = await serve(`${command} --port 0`, project)
          try {
            const page = await fetch(`${server.url}/guide/cookies`)
            expect(page.status, server.output()).toBe(200)
            const html = await page.text()
            expect(html).toContain('src="/docpilot-assets/docpilot.js"')
            expect(html).toContain('data-index="/docpilot/"')
            expect(html).toContain('Signed cookies')
            expect((await fetch(`${server.url}/docpilot-assets/docpilot.js`)).status).toBe(200)
            expect((await fetch(`${server.url}/docpilot-assets/docpilot-worker.js`)).status).toBe(200)
            const manifest = (await (await fetch(`${server.url}/docpilot/manifest.json`)).json()) as { corpus: { chunks: number } }
            expect(manifest.corpus.chunks).toBeGreaterThan(0)
            // No key: the proxy is there, serving no route, and says so (503: no reader gets a model's answer).
            const health = await fetch(`${server.url}/ai/health`)
            expect(health.status).toBe(503)
            expect(((await health.json()) as { routes: unknown[]; problems: string[] }).problems).toEqual([expect.stringMatching(/^No provider route/)])
            // The index uses the offline model, which needs no ONNX runtime: nothing to warn about.
            expect(server.output()).not.toContain('ONNX runtime files not served')
          } finally {
            await server.stop()
          }
          continue
        }
        const r = await sh(command, project)
        ok(r, command)
        if (command.startsWith('npx docpilot widget')) {
          expect(r.stdout).toContain(scriptTag)
          // The ONNX runtime (14 MB) comes from onnxruntime-web, which only ONNX embedders need: the README's index,
          // with the offline default model, needs none, so nothing is said of it.
          expect(r.stdout).not.toContain('ONNX runtime files')
          // The widget's own files, all of them (nothing else in the folder is counted).
          expect(r.stdout).toContain(`: ${readdirSync(join(project, 'node_modules/docpilot/dist/widget')).length} files;`)
        }
        if (command === 'npx docpilot doctor --proxy') expect(r.stdout).toContain('readers get search answers')
      }
    }
    expect(existsSync(join(project, 'public/docpilot/manifest.json'))).toBe(true)
  }, 10 * MINUTE)

  it("writes the agent files by default, and serves them to an editor with the docs' docpilot mcp snippet", async () => {
    // The README's `npx docpilot index` ran above, with no --site-out: the agent files are in the documented default folder.
    const siteOut = join(project, '.docpilot/site')
    expect(readFileSync(join(siteOut, 'llms.txt'), 'utf8')).toMatch(/\(\/guide\/cookies\.md\)/)
    const { command, args } = editorSnippet()
    expect([command, ...args.slice(0, 3)]).toEqual(['npx', '-y', 'docpilot', 'mcp'])
    // The snippet's example project is this one. Run from it, npx finds the installed docpilot (an editor's npx fetches the same package).
    const editorArgs = args.map((a) => a.replace('/home/me/site', project))
    const client = new Client({ name: 'npm-install-test', version: '0' })
    await client.connect(new StdioClientTransport({ command, args: editorArgs, cwd: project, env: ENV, stderr: 'pipe' }), { timeout: 2 * MINUTE })
    try {
      expect((await client.listTools()).tools.map((t) => t.name).sort()).toEqual(['get_page', 'search_docs'])
      const found = await client.callTool({ name: 'search_docs', arguments: { query: 'how do I sign a cookie so nobody tampers with it' } })
      const top = (found.structuredContent as unknown as SearchDocsOutput).results[0]!
      expect([top.title, top.url]).toEqual(['Cookies', '/guide/cookies#signed-cookies'])
      const page = await client.callTool({ name: 'get_page', arguments: { page: top.url } })
      expect((page.content as Array<{ text: string }>)[0]!.text).toMatch(/^# Cookies\n[\s\S]*## Signed cookies/)
    } finally {
      await client.close()
    }
  })

  it('keeps the command compiled in its cache folder: the next index run starts from it and writes the same index', async () => {
    const index = blocks.flatMap((b) => (b.lang === 'sh' ? commands(b.body) : [])).find((c) => c.startsWith('npx docpilot index'))!
    const codeCache = () => readdirSync(join(project, '.docpilot/cache/code')).filter((f) => /^index\.[0-9a-f]{16}\.bin$/.test(f))
    expect(codeCache()).toHaveLength(1)
    // The default model ships with its rows prepacked: the README's first index linked the package's pack, and
    // neither packed the 16 MB table nor kept a copy in the cache.
    expect(existsSync(join(project, 'node_modules/docpilot/dist/models/default-en/vectors.bin'))).toBe(false)
    expect(existsSync(join(project, '.docpilot/cache/model-rows'))).toBe(false)
    const manifest = readFileSync(join(project, 'public/docpilot/manifest.json'), 'utf8')
    ok(await sh(index, project), index)
    expect(readFileSync(join(project, 'public/docpilot/manifest.json'), 'utf8')).toBe(manifest)
    // Its first byte is the generation: the README's run saved it, this run saved what it compiled besides.
    expect(readFileSync(join(project, '.docpilot/cache/code', codeCache()[0]!))[0]).toBe(2)
  })

  it('queries the index it built with the config', async () => {
    const r = await sh('npx docpilot query "how do I sign a cookie so nobody tampers with it"', project)
    ok(r, 'query')
    expect(r.stdout).toMatch(/1\. Cookies › Signed cookies/)
  })

  it('serves model answers from the fake providers under dev and preview, on the page\'s own origin', async () => {
    for (const command of ['npx docpilot dev ./docs --fake-providers --port 0', 'npx docpilot preview dist --fake-providers --port 0']) {
      const server = await serve(command, project)
      try {
        const manifest = (await (await fetch(`${server.url}/docpilot/manifest.json`)).json()) as { chat: { chain: { provider: string; models: string[] }[] } }
        const head = manifest.chat.chain[0]!
        const res = await fetch(`${server.url}/ai/${head.provider}/chat/completions`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ model: head.models[0], stream: true, messages: [{ role: 'user', content: 'Signed cookies?' }] }),
        })
        expect(res.status, server.output()).toBe(200)
        expect(await res.text()).toContain('data:')
        expect(server.output()).toContain('better-sqlite3 is not installed')
      } finally {
        await server.stop()
      }
    }
  })

  it('writes a Worker config that wrangler bundles from this install', async () => {
    const r = await sh('npx docpilot doctor --proxy --wrangler', project, { OPENAI_API_KEY: 'sk-npm-install-test' })
    ok(r, 'doctor --proxy --wrangler')
    expect(r.stdout).toContain('npx wrangler deploy -c docpilot-proxy/wrangler.toml')
    expect(r.stdout).not.toContain('sk-npm-install-test')
    // The checkout's wrangler (the owner's `npx wrangler` would fetch the same CLI); --dry-run bundles without an account.
    const wrangler = join(PACKAGE_ROOT, 'node_modules/.bin/wrangler')
    const bundle = await sh(`${wrangler} deploy --dry-run --outdir ${join(work, 'worker-bundle')} -c docpilot-proxy/wrangler.toml`, project, {
      CLOUDFLARE_CF_FETCH_ENABLED: 'false',
      WRANGLER_SEND_METRICS: 'false',
    })
    ok(bundle, 'wrangler deploy --dry-run')
    expect(statSync(join(work, 'worker-bundle', 'worker.js')).size).toBeGreaterThan(10_000)
  })

  it('runs the Node proxy: without better-sqlite3 it names the package, with --db :memory: it serves', async () => {
    const refused = await sh('npx docpilot proxy --port 0', project, { OPENAI_API_KEY: 'sk-x' })
    expect(refused.code).toBe(1)
    expect(refused.stderr).toContain('npm install better-sqlite3')
    const server = await serve('npx docpilot proxy --db :memory: --port 0', project, { OPENAI_API_KEY: 'sk-x' })
    try {
      const health = (await (await fetch(`${server.url}/ai/health`)).json()) as { routes: { member: string }[] }
      expect(health.routes.map((r) => r.member)).toEqual(['openai'])
    } finally {
      await server.stop()
    }
  })

  it("types a docpilot.config.ts with the package's defineConfig: it loads, and tsc flags a misspelt field", async () => {
    const dir = join(project, 'typed')
    await mkdir(dir)
    const config = (chat: string) => `import { defineConfig } from 'docpilot'\n\nexport default defineConfig({ ${chat}: { provider: 'openai' } })\n`
    await writeFile(join(dir, 'docpilot.config.ts'), config('chat'))
    const r = await sh('npx docpilot doctor --proxy', dir)
    ok(r, 'doctor with a typed .ts config')
    expect(r.stdout).toContain('/ai/openai/chat/completions')
    // The compiler is the checkout's (the project has none); the types are the tarball's, resolved from the project.
    const tsc = `node ${createRequire(import.meta.url).resolve('typescript/bin/tsc')} --noEmit --strict --module nodenext --skipLibCheck docpilot.config.ts`
    ok(await sh(tsc, dir), 'tsc on the typed config')
    await writeFile(join(dir, 'docpilot.config.ts'), config('chatt'))
    const misspelt = await sh(tsc, dir)
    expect(misspelt.code).not.toBe(0)
    expect(misspelt.stdout).toContain("'chatt' does not exist")
  })

  it('loads a CommonJS config and names the line of a syntax error', async () => {
    const dir = join(project, 'cjs')
    await mkdir(dir)
    await writeFile(join(dir, 'docpilot.config.cjs'), "module.exports = { chat: { provider: 'openai' } }\n")
    const r = await sh('npx docpilot doctor --proxy', dir)
    ok(r, 'doctor with a .cjs config')
    expect(r.stdout).toContain('/ai/openai/chat/completions')
    await writeFile(join(dir, 'docpilot.config.cjs'), "module.exports = {\n  chat: { provider: 'openai' },,\n}\n")
    const bad = await sh('npx docpilot doctor --proxy', dir)
    expect(bad.code).toBe(1)
    expect(bad.stderr).toMatch(/^Invalid config docpilot\.config\.cjs:2:\d+: syntax error/)
  })
})
