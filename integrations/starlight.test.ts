import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { pathToFileURL } from 'node:url'
import type { AstroConfig } from 'astro'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { openIndex } from '../core/retrieval/search.ts'
import { fsPartLoader } from '../indexer/fs-parts.ts'
import docpilot from './starlight.ts'

let root: string
beforeEach(async () => (root = await mkdtemp(join(tmpdir(), 'docpilot-starlight-'))))
afterEach(() => rm(root, { recursive: true, force: true }))

/** A page as Starlight builds it: its content marked for Pagefind, headings with their ids. */
const page = (title: string, heading: string, id: string) =>
  `<!doctype html><html><head><title>${title}</title></head><body><main data-pagefind-body><h1 id="_top">${title}</h1>` +
  `<p>${title} intro words for the index.</p><h2 id="${id}">${heading}</h2><p>Words under ${heading} for the index.</p></main></body></html>`

/** Runs the integration's hooks as `astro build` does, on pages already written to dist/, and returns the index's url#anchor list. */
async function build(
  astro: { base?: string; trailingSlash?: AstroConfig['trailingSlash']; format: AstroConfig['build']['format']; i18n?: AstroConfig['i18n'] },
  pages: Record<string, string>,
  indexFolder = 'docpilot',
) {
  const dist = join(root, 'dist')
  for (const [file, html] of Object.entries(pages)) {
    await mkdir(join(dist, file, '..'), { recursive: true })
    await writeFile(join(dist, file), html)
  }
  const config = { root: pathToFileURL(`${root}/`), base: astro.base ?? '/', trailingSlash: astro.trailingSlash ?? 'ignore', build: { format: astro.format }, i18n: astro.i18n } as AstroConfig
  const { hooks } = docpilot({ embed: false })
  const logger = { info: () => {} }
  await (hooks['astro:config:setup'] as (o: unknown) => unknown)({ config })
  await (hooks['astro:config:done'] as (o: unknown) => unknown)({ config })
  await (hooks['astro:build:done'] as (o: unknown) => Promise<void>)({ dir: pathToFileURL(`${dist}/`), logger })
  const index = await openIndex(fsPartLoader(join(dist, indexFolder)))
  const targets = (await index.chunks([...Array(index.size).keys()])).map((c) => `${c.url}#${c.anchor}`)
  return { targets, html: (file: string) => readFile(join(dist, file), 'utf8') }
}

describe('the Starlight integration', () => {
  it("links citations the way Starlight does with build.format 'file': the page's .html file", async () => {
    const { targets } = await build({ format: 'file' }, {
      'index.html': page('Welcome', 'Getting started', 'getting-started'),
      'guide.html': page('Guide', 'Deployment', 'deployment'),
      'guide/routing.html': page('Routing', 'Path parameters', 'path-parameters'),
    })
    expect(targets).toEqual(expect.arrayContaining(['/#getting-started', '/guide.html#deployment', '/guide/routing.html#path-parameters']))
  })

  it("links citations to folders with Starlight's trailing slash by default, without it under trailingSlash: 'never', below the base", async () => {
    const pages = { 'index.html': page('Welcome', 'Getting started', 'getting-started'), 'guide/routing/index.html': page('Routing', 'Path parameters', 'path-parameters') }
    expect((await build({ format: 'directory', base: '/docs' }, pages)).targets).toEqual(expect.arrayContaining(['/docs/#getting-started', '/docs/guide/routing/#path-parameters']))
    const never = await build({ format: 'directory', base: '/docs', trailingSlash: 'never' }, pages)
    expect(never.targets).toContain('/docs/guide/routing#path-parameters')
    expect(await never.html('guide/routing/index.html')).toContain('<script src="/docs/docpilot-assets/docpilot.js" data-index="/docs/docpilot/" data-hotkeys="/" defer></script></head>')
  })

  it("gives each of Starlight's locales its own index, so a reader is not answered from another language's pages", async () => {
    const i18n = { defaultLocale: 'en', locales: ['en', 'fr'], routing: { prefixDefaultLocale: false } } as unknown as AstroConfig['i18n']
    const pages = { 'guide/routing/index.html': page('Routing', 'Path parameters', 'path-parameters'), 'fr/guide/routing/index.html': page('Routage', 'Paramètres', 'parametres') }
    expect((await build({ format: 'directory', i18n }, pages)).targets).toEqual(['/guide/routing/#', '/guide/routing/#path-parameters'])
    const fr = await build({ format: 'directory', i18n }, pages, 'fr/docpilot')
    expect(fr.targets).toEqual(['/fr/guide/routing/#', '/fr/guide/routing/#parametres'])
    expect(await fr.html('fr/guide/routing/index.html')).toContain('data-index="/fr/docpilot/"')
  })
})
