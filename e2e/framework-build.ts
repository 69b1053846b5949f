/**
 * Real sites built by the docs frameworks docpilot integrates with, for the
 * framework specs (e2e/framework-sites.ts) and the built-HTML-versus-sources
 * measurement (bench/integrations.ts). A site is a docs folder (the fixture
 * docs by default) plus the framework's own config from
 * fixtures/frameworks/<name>/, built by the framework's real CLI in a folder
 * inside the checkout (.cache/ is ignored).
 *
 * The config's `import ... from 'docpilot/<framework>'` loads docpilot as
 * `npm install docpilot` gives it: the package is packed once per process
 * (`npm pack`, which builds dist/) and unpacked into the site's own
 * node_modules/docpilot, so the framework loads the compiled integration the
 * way it loads any installed package. The framework itself and docpilot's
 * dependencies resolve from the checkout's node_modules above the site
 * folder; cli/npm-install.test.ts checks separately that `dependencies` lists
 * everything dist/ imports.
 */
import { spawn } from 'node:child_process'
import { rmSync } from 'node:fs'
import { cp, mkdir, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { fromHtml } from 'hast-util-from-html'
import { selectAll } from 'hast-util-select'
import { glob } from 'tinyglobby'
import { siteFile } from '../cli/site-server.ts'
import type { ChunkRecord } from '../core/index/format.ts'
import { openIndex } from '../core/retrieval/search.ts'
import { fsPartLoader } from '../indexer/fs-parts.ts'
import { ROOT } from './paths.ts'

export interface FrameworkBuild {
  /** The framework's name in fixtures/frameworks/. */
  name: string
  /** The docs pages to build (default: the fixture site, less its hostile-input page). */
  docs?: { dir: string; skip?: ReadonlySet<string> }
  /** Files written into the site folder after the fixture config (path -> text), e.g. a config for other docs. */
  files?: Record<string, string>
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

/** The fixture docs: their security.md holds raw <script> tags as a hostile-input test, not a docs page. */
const FIXTURE_DOCS = { dir: join(ROOT, 'fixtures/site'), skip: new Set(['security.md']) }

export async function buildFrameworkSite(build: FrameworkBuild): Promise<BuiltSite> {
  const root = join(ROOT, '.cache/frameworks', `${build.name}-${process.pid}-${Date.now().toString(36)}`)
  const docs = build.docs ?? FIXTURE_DOCS
  await mkdir(root, { recursive: true })
  await cp(join(ROOT, 'fixtures/frameworks', build.name), root, { recursive: true })
  for (const [path, text] of Object.entries(build.files ?? {})) {
    await mkdir(join(root, path, '..'), { recursive: true })
    await writeFile(join(root, path), text)
  }
  await cp(docs.dir, join(root, build.contentDir), {
    recursive: true,
    filter: (src) => !docs.skip?.has(src.slice(src.lastIndexOf('/') + 1)),
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
  const remove = () => rm(root, { recursive: true, force: true })
  const started = performance.now()
  const [pkg, ...args] = build.command.map((a) => a.replaceAll('{root}', root))
  const log = await run(process.execPath, [await binOf(pkg!), ...args], root).catch(async (err: unknown) => {
    await remove()
    throw err
  })
  return { root, outDir: join(root, build.outDir), ms: performance.now() - started, log, remove }
}

let tarball: Promise<string> | undefined

/** The `npm pack` tarball of this checkout, made once per process and removed when the process exits. */
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

/** The three framework sites the specs and the measurement build, over the fixture docs. */
export const FRAMEWORK_SITES = {
  vitepress: { name: 'vitepress', contentDir: '.', command: ['vitepress', 'build', '{root}'], outDir: '.vitepress/dist' },
  starlight: {
    name: 'starlight',
    contentDir: 'src/content/docs',
    command: ['astro', 'build', '--root', '{root}'],
    outDir: 'dist',
    page: titleInFrontmatter,
  },
  docusaurus: { name: 'docusaurus', contentDir: 'docs', command: ['@docusaurus/core', 'build', '{root}', '--no-minify'], outDir: 'build' },
} satisfies Record<string, FrameworkBuild>
