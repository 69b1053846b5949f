/**
 * Real sites built by the docs frameworks docpilot integrates with, for the
 * framework specs. A site is the fixture docs (fixtures/site/) plus the
 * framework's own config from fixtures/frameworks/<name>/, built by the
 * framework's real CLI in a folder inside the checkout (.cache/ is ignored),
 * so the config's `import ... from 'docpilot/<framework>'` resolves to this
 * package. The build runs with the `docpilot-source` export condition and
 * tsx, so the integration runs from its TypeScript sources as an installed
 * package runs it from dist/.
 */
import { spawn } from 'node:child_process'
import { cp, mkdir, readFile, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { fromHtml } from 'hast-util-from-html'
import { selectAll } from 'hast-util-select'
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
  /** The framework's CLI (a path inside node_modules) and its arguments; `{root}` is the site folder. */
  command: string[]
  /** The built site, relative to the site folder. */
  outDir: string
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
  const started = performance.now()
  const [cli, ...args] = build.command.map((a) => a.replaceAll('{root}', root))
  const log = await run(process.execPath, [join(ROOT, cli!), ...args], root)
  return { root, outDir: join(root, build.outDir), ms: performance.now() - started, log, remove: () => rm(root, { recursive: true, force: true }) }
}

function run(command: string, args: string[], cwd: string): Promise<string> {
  return new Promise((done, fail) => {
    const child = spawn(command, args, {
      cwd,
      env: {
        ...process.env,
        NODE_OPTIONS: `${process.env.NODE_OPTIONS ?? ''} --conditions=docpilot-source --import tsx`.trim(),
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
  page: string
  /** A selector only the framework's own rendered docs pages match (its content container). */
  rendered: string
}

/**
 * The tests every framework gets: its real build (with the integration) is
 * served by `docpilot preview` with the fake providers; in Chromium a question
 * is answered with a citation that lands on the element with that id in the
 * framework's page; and every chunk's `url#anchor` exists in the built pages.
 */
export function describeFrameworkSite(spec: FrameworkSpec): void {
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
    await page.goto(`${state.server.url}${spec.page}`)
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
}
