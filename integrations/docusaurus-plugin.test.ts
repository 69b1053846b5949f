import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { LoadContext, Plugin } from '@docusaurus/types'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { openIndex } from '../core/retrieval/search.ts'
import { fsPartLoader } from '../indexer/fs-parts.ts'
import { docpilotPlugin } from './docusaurus-plugin.ts'

const context = (siteConfig: Partial<LoadContext['siteConfig']> = {}) =>
  ({ siteDir: `${process.cwd()}/website`, siteConfigPath: `${process.cwd()}/website/docusaurus.config.js`, baseUrl: '/docs/', siteConfig }) as LoadContext

describe('the Docusaurus plugin', () => {
  it("takes the options Docusaurus hands it, with the plugin id it adds, and names the config file on a mistake", () => {
    expect(docpilotPlugin(context(), { id: 'default' }).name).toBe('docpilot')
    expect(() => docpilotPlugin(context(), { id: 'default', chat: { chain: 'yes' } } as never)).toThrow(
      /^Invalid config website\/docusaurus\.config\.js \(docpilot options\): chat\.chain must be/,
    )
  })
})

describe('the Docusaurus plugin after a build', () => {
  let build: string
  beforeEach(async () => (build = await mkdtemp(join(tmpdir(), 'docpilot-docusaurus-'))))
  afterEach(() => rm(build, { recursive: true, force: true }))

  /** A page as Docusaurus 3 renders it: the page's kind in the <html> class, its content in main. */
  const page = (htmlClass: string, main: string) =>
    `<!DOCTYPE html><html lang="en" class="${htmlClass} plugin-id-default"><head><title>Lumen</title></head><body><div class="main-wrapper"><main>${main}</main></div></body></html>`
  const post = (slug: string, heading: string) =>
    `<article><header><h2><a href="/blog/${slug}">${slug}</a></h2></header><div class="markdown"><p>About ${slug}.</p><h2 id="${slug}-part">${heading}</h2><p>Words about ${heading}.</p></div></article>`
  // The pages of `create-docusaurus`'s classic template, by kind.
  const site = {
    'docs/intro/index.html': page(
      'docs-wrapper plugin-docs docs-version-current docs-doc-page docs-doc-id-intro',
      '<article><div class="theme-doc-markdown markdown"><header><h1>Intro</h1></header><p>Start here.</p><h2 id="install">Install</h2><p>Run npm install.</p></div></article>',
    ),
    'docs/category/basics/index.html': page('docs-wrapper plugin-docs docs-version-current docs-doc-page', '<header><h1>Basics</h1><p>5 minutes to learn.</p></header><article><a href="/docs/intro">Intro</a></article>'),
    'blog/welcome/index.html': page('blog-wrapper blog-post-page plugin-blog', post('welcome', 'Zero-copy routing')),
    'blog/index.html': page('blog-wrapper blog-list-page plugin-blog', post('welcome', 'Zero-copy routing') + post('edge', 'Deno Deploy')),
    'blog/tags/release/index.html': page('blog-wrapper blog-tags-post-list-page plugin-blog', post('welcome', 'Zero-copy routing')),
    'blog/archive/index.html': page('plugin-blog', '<section><h3>2024</h3><a href="/blog/welcome">Welcome</a></section>'),
    'markdown-page/index.html': page('mdx-wrapper mdx-page plugin-pages', '<div class="row"><div class="col col--8"><article><h1>Markdown page</h1><p>A standalone page.</p><h2 id="why">Why Lumen</h2><p>Small and fast.</p></article></div></div>'),
    'index.html': page('plugin-pages', '<header><h1>Lumen</h1><p>Dinosaurs are cool</p></header>'),
  }

  async function postBuild(options: Record<string, unknown> = {}) {
    for (const [file, html] of Object.entries(site)) {
      await mkdir(join(build, file, '..'), { recursive: true })
      await writeFile(join(build, file), html)
    }
    const logged: string[] = []
    const log = vi.spyOn(console, 'log').mockImplementation((line: string) => void logged.push(line))
    try {
      const plugin: Plugin = docpilotPlugin({ ...context(), baseUrl: '/' }, { id: 'default', embed: false, ...options })
      await plugin.postBuild!({ outDir: build } as never)
    } finally {
      log.mockRestore()
    }
    const index = await openIndex(fsPartLoader(join(build, 'docpilot')))
    const targets = (await index.chunks([...Array(index.size).keys()])).map((c) => `${c.url}#${c.anchor}`)
    return { logged, targets }
  }

  it("indexes the docs, the blog posts and the Markdown pages, not the listings that repeat the posts, and warns of none of them", async () => {
    const { logged, targets } = await postBuild()
    expect(targets).toEqual(expect.arrayContaining(['/docs/intro#install', '/blog/welcome#welcome-part', '/markdown-page#why']))
    expect(targets.filter((t) => !/^\/(docs\/intro|blog\/welcome|markdown-page)#/.test(t))).toEqual([])
    expect(logged.filter((line) => line.includes('warning'))).toEqual([])
  })

  it("leaves the pages to the owner's own content selector", async () => {
    const { logged, targets } = await postBuild({ docs: { contentSelector: 'main' } })
    expect(targets).toEqual(expect.arrayContaining(['/blog#edge-part', '/#']))
    expect(logged.filter((line) => line.includes('warning'))).toEqual([])
  })
})
