/**
 * Real sites built by the docs frameworks docpilot integrates with, for the
 * framework specs. A site is the fixture docs (fixtures/site/) plus the
 * framework's own config from fixtures/frameworks/<name>/, built by the
 * framework's real CLI in a folder inside the checkout (.cache/ is ignored).
 *
 * The config's `import ... from 'docpilot/<framework>'` loads docpilot as
 * `npm install docpilot` gives it: the package is packed once per test worker
 * (`npm pack`, which builds dist/) and unpacked into the site's own
 * node_modules/docpilot, so the framework loads the compiled integration the
 * way it loads any installed package (Astro and VitePress leave node_modules
 * to Node). The framework itself and docpilot's dependencies resolve from the
 * checkout's node_modules above the site folder; cli/npm-install.test.ts
 * checks separately that `dependencies` lists everything dist/ imports.
 */
import { spawn } from 'node:child_process'
import { rmSync } from 'node:fs'
import { cp, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fromHtml } from 'hast-util-from-html'
import { selectAll } from 'hast-util-select'
import { glob } from 'tinyglobby'
import { startPreviewServer, type PreviewServer } from '../cli/commands/preview.ts'
import { siteFile } from '../cli/site-server.ts'
import { validateConfig } from '../core/config/validate.ts'
import type { ChunkRecord } from '../core/index-format.ts'
import { openIndex } from '../core/retrieval/search.ts'
import { fsPartLoader } from '../indexer/fs-parts.ts'
import { ask, expect, keepScreenshot, openPanel, settled, test } from './harness.ts'
import { COVERED, ROOT } from './paths.ts'

export interface FrameworkBuild {
  /** The framework's name in fixtures/frameworks/. */
  name: string
  /** Where the docs pages go inside the site folder ('.' for the site root). */
  contentDir: string
  /** The package whose command builds the site, and its arguments; `{root}` is the site folder. */
  command: string[]
  /** The built site, relative to the site folder. */
  outDir: string
  /** Rewrites each Markdown page as the framework needs it (e.g. a frontmatter title it requires). */
  page?: (markdown: string) => string
}

export interface BuiltSite {
  root: string
  outDir: string
  /** How long the framework's build (docpilot's indexing included) took. */
  ms: number
  log: string
  remove(): Promise<void>
}

/** The fixture docs pages, less the one whose raw <script> tags are a hostile-input test, not a docs page. */
const SKIPPED_PAGES = new Set(['security.md'])

export async function buildFrameworkSite(build: FrameworkBuild): Promise<BuiltSite> {
  const root = join(ROOT, '.cache/frameworks', `${build.name}-${process.pid}-${Date.now().toString(36)}`)
  await mkdir(root, { recursive: true })
  await cp(join(ROOT, 'fixtures/frameworks', build.name), root, { recursive: true })
  await cp(join(ROOT, 'fixtures/site'), join(root, build.contentDir), {
    recursive: true,
    filter: (src) => !SKIPPED_PAGES.has(src.slice(src.lastIndexOf('/') + 1)),
  })
  if (build.page) {
    for (const file of await glob('**/*.md', { cwd: join(root, build.contentDir), absolute: true })) {
      await writeFile(file, build.page(await readFile(file, 'utf8')))
    }
  }
  // The site's own package.json, as every real site has: without it the checkout's would be the
  // nearest, and Node would resolve 'docpilot/...' to the checkout itself, not the installed copy.
  await writeFile(join(root, 'package.json'), JSON.stringify({ name: `${build.name}-site`, private: true }))
  const installed = join(root, 'node_modules/docpilot')
  await mkdir(installed, { recursive: true })
  await run('tar', ['-xzf', await packedDocpilot(), '-C', installed, '--strip-components=1'], root)
  const started = performance.now()
  const [pkg, ...args] = build.command.map((a) => a.replaceAll('{root}', root))
  const log = await run(process.execPath, [await binOf(pkg!), ...args], root)
  return { root, outDir: join(root, build.outDir), ms: performance.now() - started, log, remove: () => rm(root, { recursive: true, force: true }) }
}

let tarball: Promise<string> | undefined

/** The `npm pack` tarball of this checkout, made once per test worker and removed when the worker exits. */
function packedDocpilot(): Promise<string> {
  tarball ??= (async () => {
    const dir = join(ROOT, '.cache/frameworks', `pack-${process.pid}`)
    await mkdir(dir, { recursive: true })
    process.once('exit', () => rmSync(dir, { recursive: true, force: true }))
    await run('npm', ['pack', '--silent', '--pack-destination', dir], ROOT)
    const [file] = (await readdir(dir)).filter((name) => name.endsWith('.tgz'))
    if (!file) throw new Error(`npm pack wrote no tarball into ${dir}`)
    return join(dir, file)
  })()
  return tarball
}

/** The command a package installs (its only, or its own-named, `bin`). */
async function binOf(pkg: string): Promise<string> {
  const dir = join(ROOT, 'node_modules', pkg)
  const { bin } = JSON.parse(await readFile(join(dir, 'package.json'), 'utf8')) as { bin: string | Record<string, string> }
  const name = pkg.slice(pkg.lastIndexOf('/') + 1)
  return join(dir, typeof bin === 'string' ? bin : (bin[name] ?? Object.values(bin)[0]!))
}

function run(command: string, args: string[], cwd: string): Promise<string> {
  return new Promise((done, fail) => {
    const child = spawn(command, args, {
      cwd,
      env: {
        ...process.env,
        // No telemetry, no prompts.
        ASTRO_TELEMETRY_DISABLED: '1',
        DOCUSAURUS_NO_UPDATE_CHECK: '1',
        CI: '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    child.stdout.on('data', (d: Buffer) => (out += d))
    child.stderr.on('data', (d: Buffer) => (out += d))
    child.on('error', fail)
    child.on('close', (code) => (code === 0 ? done(out) : fail(new Error(`${args.join(' ')} exited with ${code}:\n${out}`))))
  })
}

/** Every chunk record of an index folder. */
export async function indexChunks(indexDir: string): Promise<ChunkRecord[]> {
  const index = await openIndex(fsPartLoader(indexDir))
  return index.chunks([...Array(index.size).keys()])
}

/**
 * The chunks whose `url#anchor` does not exist in the built site: the URL
 * (below `base`) must be a page a static host serves, and the anchor an
 * element id on that page.
 */
export async function missingTargets(siteDir: string, chunks: ChunkRecord[], base = '/'): Promise<string[]> {
  const idsByFile = new Map<string, Set<string>>()
  const missing: string[] = []
  for (const chunk of chunks) {
    const target = `${chunk.url}#${chunk.anchor}`
    const path = chunk.url.startsWith(base) ? `/${chunk.url.slice(base.length)}` : undefined
    const file = path === undefined ? undefined : siteFile(siteDir, decodeURIComponent(path))
    if (!file) {
      missing.push(`${target}: no page at ${chunk.url}`)
      continue
    }
    if (!chunk.anchor) continue
    let ids = idsByFile.get(file)
    if (!ids) {
      const tree = fromHtml(await readFile(file, 'utf8'))
      ids = new Set(selectAll('[id]', tree).map((el) => String(el.properties.id)))
      idsByFile.set(file, ids)
    }
    if (!ids.has(chunk.anchor)) missing.push(`${target}: ${chunk.path} has no element with id "${chunk.anchor}"`)
  }
  return missing
}

export interface FrameworkSpec extends FrameworkBuild {
  /** A docs page of the built site to open the panel on. */
  start: string
  /** A selector only the framework's own rendered docs pages match (its content container). */
  rendered: string
}

/**
 * The tests every framework gets: its real build (with the integration) is
 * served by `docpilot preview` with the fake providers; in Chromium a question
 * is answered with a citation that lands on the element with that id in the
 * framework's page; and every chunk's `url#anchor` exists in the built pages.
 */
export function describeFrameworkSite(spec: FrameworkSpec): { url: () => string } {
  const state = {} as { site: BuiltSite; server: PreviewServer; chunks: ChunkRecord[] }
  test.describe.configure({ mode: 'serial' })
  test.beforeAll(async ({}, info) => {
    info.setTimeout(10 * 60_000)
    state.site = await buildFrameworkSite(spec)
    // The build's time, for the CI budget (.ci/run must stay under 20 minutes).
    console.log(`${spec.name}: site built and indexed in ${(state.site.ms / 1000).toFixed(1)} s`)
    state.chunks = await indexChunks(join(state.site.outDir, 'docpilot'))
    state.server = await startPreviewServer({
      siteDir: state.site.outDir,
      config: validateConfig({}, '(e2e)'),
      indexDir: join(state.site.outDir, 'docpilot'),
      cwd: state.site.root,
      env: {},
      fakeProviders: true,
      port: 0,
      dbPath: ':memory:',
    })
  })
  test.afterAll(async () => {
    await state.server?.close()
    await state.site?.remove()
  })

  test(`${spec.name}: the panel answers with a citation that lands on the heading in the framework's page`, async ({ page }, info) => {
    await state.server.fakes!.control({ echo: true, deltas: 6, paceMs: 20 })
    await page.goto(`${state.server.url}${spec.start}`)
    await expect(page.locator(spec.rendered)).toBeVisible()
    await openPanel(page)
    const body = await settled(await ask(page, COVERED), 'answered')
    const cite = body.locator('.dp-answer a.dp-cite').first()
    await expect(cite).toHaveText('[1]')
    const href = (await cite.getAttribute('href'))!
    const [path, anchor] = href.split('#')
    expect(anchor, `citation ${href} names a heading`).toBeTruthy()
    await keepScreenshot(page, info, `${spec.name}-answered`)
    await cite.click()
    await expect(page).toHaveURL(new RegExp(`${path!.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}#${anchor}$`))
    const target = page.locator(`[id="${decodeURIComponent(anchor!)}"]`)
    await expect(target).toBeVisible()
    await expect(target).toBeInViewport()
    await expect(page.locator(spec.rendered).locator(`[id="${decodeURIComponent(anchor!)}"]`)).toHaveCount(1)
  })

  test(`${spec.name}: every chunk's url#anchor exists in the built pages`, async () => {
    expect(state.chunks.length).toBeGreaterThan(40)
    expect(state.chunks.filter((c) => c.anchor).length).toBeGreaterThan(30)
    expect(await missingTargets(state.site.outDir, state.chunks)).toEqual([])
  })

  // For the framework's own tests in the same file, on the same served site.
  return { url: () => state.server.url }
}

/**
 * A page whose title is its first `# heading` given a frontmatter `title`
 * instead, for frameworks that require one and render it as the page's h1
 * (Starlight).
 */
export function titleInFrontmatter(markdown: string): string {
  const front = /^---\n([\s\S]*?)\n---\n/.exec(markdown)
  const body = front ? markdown.slice(front[0].length) : markdown
  const h1 = /^# (.+)\n/m.exec(body)
  const title = /^title:/m.test(front?.[1] ?? '') ? undefined : h1?.[1]
  const rest = h1 ? body.replace(h1[0], '') : body
  const fields = [front?.[1], title ? `title: ${JSON.stringify(title)}` : undefined].filter(Boolean).join('\n')
  return `---\n${fields}\n---\n${rest}`
}
