import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { glob } from 'tinyglobby'
import { describe, expect, it, vi } from 'vitest'
import { ConfigError } from '../core/config/validate.ts'
import { openIndex } from '../core/retrieval/search.ts'
import { fsPartLoader } from '../indexer/fs-parts.ts'
import { addLoaderTags, indexBuiltSite, loaderAttributes, loaderTag, mergeOptions, normalizeBase, resolveOptions } from './site-build.ts'

const site = { framework: 'VitePress', configFile: `${process.cwd()}/docs/.vitepress/config.mts`, root: `${process.cwd()}/docs` }

describe('resolveOptions', () => {
  it("validates the owner's options with docpilot's schema, naming the framework's config file", () => {
    expect(() => resolveOptions(site, { chat: { chain: 'yes' } } as never)).toThrow(ConfigError)
    expect(() => resolveOptions(site, { chat: { chain: 'yes' } } as never)).toThrow(
      /^Invalid config docs\/\.vitepress\/config\.mts \(docpilot options\): chat\.chain must be false, 'auto' or an array of providers/,
    )
    expect(() => resolveOptions(site, { chunk: {} } as never)).toThrow(/config\.mts \(docpilot options\).*chunk/)
  })

  it('rejects options that are not an object', () => {
    expect(() => resolveOptions(site, 'openai' as never)).toThrow(/config\.mts \(docpilot options\)/)
  })

  it("puts the framework's defaults under the owner's options, field by field", () => {
    const { config } = resolveOptions(site, { urls: { trailingSlash: true } }, { urls: { base: '/docs/', stripExtension: false }, anchors: { slugger: 'vitepress' } })
    expect(config.urls).toMatchObject({ base: '/docs/', stripExtension: false, trailingSlash: true })
    expect(config.anchors.slugger).toBe('vitepress')
    expect(resolveOptions(site, { urls: { base: '/guide/' } }, { urls: { base: '/docs/' } }).config.urls.base).toBe('/guide/')
  })

  it('fills in every default when no options are given', () => {
    expect(resolveOptions(site, undefined).config.chat.chain).toBe(false)
  })

  it("takes the script tag's attributes apart from docpilot's config, over the framework's", () => {
    const { config, widget } = resolveOptions(site, { widget: { proxy: 'https://ai.example.com' }, chat: { chain: 'auto' } }, { widget: { hotkeys: '/' } })
    expect(widget).toEqual({ hotkeys: '/', proxy: 'https://ai.example.com' })
    expect(config.chat.chain).toBe('auto')
    expect(resolveOptions(site, { widget: { hotkeys: 'none' } }, { widget: { hotkeys: '/' } }).widget).toEqual({ hotkeys: 'none' })
  })

  it('names a misspelt or mistyped widget attribute and the config file', () => {
    expect(() => resolveOptions(site, { widget: { hotkey: '/' } } as never)).toThrow(
      /^Invalid config docs\/\.vitepress\/config\.mts \(docpilot options\): widget\.hotkey is not a script tag attribute; did you mean widget\.hotkeys\?/,
    )
    expect(() => resolveOptions(site, { widget: { prefetch: false } } as never)).toThrow(/widget\.prefetch must be a string \(got false\)/)
    expect(() => resolveOptions(site, { widget: '/' } as never)).toThrow(/widget must be an object/)
  })
})

describe('mergeOptions', () => {
  it('replaces arrays whole instead of merging them', () => {
    expect(mergeOptions({ docs: { exclude: ['a/**'] } }, { docs: { exclude: ['b/**'] } })).toEqual({ docs: { exclude: ['b/**'] } })
  })
})

describe('the loader tag', () => {
  it('points at the widget and the index below the site base', () => {
    expect(loaderAttributes('/')).toEqual({ src: '/docpilot-assets/docpilot.js', 'data-index': '/docpilot/', defer: '' })
    expect(loaderAttributes('/docs')).toMatchObject({ src: '/docs/docpilot-assets/docpilot.js', 'data-index': '/docs/docpilot/' })
    expect(normalizeBase('')).toBe('/')
  })

  it("carries the owner's widget attributes as data- attributes, escaped in HTML", () => {
    expect(loaderAttributes('/', { searchUrl: '/search?q={q}', hotkeys: '/' })).toMatchObject({ 'data-search-url': '/search?q={q}', 'data-hotkeys': '/' })
    expect(loaderTag('/', { label: 'Ask "AI" & co' })).toBe(
      '<script src="/docpilot-assets/docpilot.js" data-index="/docpilot/" data-label="Ask &quot;AI&quot; &amp; co" defer></script>',
    )
  })
})

describe('indexBuiltSite', () => {
  it('names the index folder from where the build was run, not from the framework root below it', async () => {
    // `npx vitepress build docs` run in the project: VitePress's root is docs/, the owner is one folder up.
    const project = await mkdtemp(join(tmpdir(), 'docpilot-site-build-'))
    const outDir = join(project, 'docs/.vitepress/dist')
    await mkdir(join(outDir, 'guide'), { recursive: true })
    await writeFile(join(outDir, 'guide/routing.html'), '<html><body><main><h1>Routing</h1><p>Routes map paths to handlers.</p></main></body></html>')
    vi.spyOn(process, 'cwd').mockReturnValue(project)
    const lines: string[] = []
    try {
      const { config } = resolveOptions(site, { embed: false })
      await indexBuiltSite({ ...site, root: join(project, 'docs'), config, outDir, log: (line) => lines.push(line) })
    } finally {
      vi.restoreAllMocks()
      await rm(project, { recursive: true, force: true })
    }
    expect(lines[0]).toMatch(/^indexed 1 pages into \d+ chunks \(docs\/\.vitepress\/dist\/docpilot\) and wrote the widget in/)
  })
})

describe('a site with locale folders', () => {
  const page = (lang: string, title: string) =>
    `<html lang="${lang}"><head><title>${title}</title></head><body><main><h1>${title}</h1><p>Routes map a path to a handler.</p><h2 id="params">Path parameters</h2><p>Capture a segment with :name.</p></main></body></html>`
  const urls = async (indexDir: string) => {
    const index = await openIndex(fsPartLoader(indexDir))
    return [...new Set((await index.chunks([...Array(index.size).keys()])).map((c) => c.url))].sort()
  }

  async function built(pages: Record<string, string>, locales: string[], exclude?: string[]) {
    const outDir = await mkdtemp(join(tmpdir(), 'docpilot-locales-'))
    for (const [file, html] of Object.entries(pages)) {
      await mkdir(join(outDir, file, '..'), { recursive: true })
      await writeFile(join(outDir, file), html)
    }
    const { config } = resolveOptions(site, { embed: false, urls: { base: '/docs/' }, ...(exclude ? { docs: { exclude } } : {}) })
    await indexBuiltSite({ ...site, root: outDir, config, outDir, locales, log: () => {} })
    await addLoaderTags(outDir, '/docs/', {}, locales)
    return { outDir, html: (file: string) => readFile(join(outDir, file), 'utf8'), remove: () => rm(outDir, { recursive: true, force: true }) }
  }

  it("indexes each locale's pages apart, below its own path, and points its pages at that index", async () => {
    const site = await built(
      { 'index.html': page('en', 'Home'), 'guide/routing.html': page('en', 'Routing'), 'fr/index.html': page('fr', 'Accueil'), 'fr/guide/routing.html': page('fr', 'Routage') },
      ['fr', 'de'],
    )
    try {
      expect(await urls(join(site.outDir, 'docpilot'))).toEqual(['/docs/', '/docs/guide/routing'])
      expect(await urls(join(site.outDir, 'fr/docpilot'))).toEqual(['/docs/fr/', '/docs/fr/guide/routing'])
      expect(await site.html('guide/routing.html')).toContain('data-index="/docs/docpilot/"')
      expect(await site.html('fr/guide/routing.html')).toContain('data-index="/docs/fr/docpilot/"')
    } finally {
      await site.remove()
    }
  })

  it("reads the owner's docs.exclude relative to the built site, as everywhere else, in every locale's index", async () => {
    const site = await built(
      {
        'index.html': page('en', 'Home'),
        'guide/old.html': page('en', 'Old'),
        'internal/notes.html': page('en', 'Notes'),
        'fr/index.html': page('fr', 'Accueil'),
        'fr/guide/old.html': page('fr', 'Ancien'),
        'fr/drafts/next.html': page('fr', 'Brouillon'),
        'fr/internal/notes.html': page('fr', 'Notes'),
      },
      ['fr'],
      ['fr/drafts/**', 'guide/old.html', '**/internal/**'],
    )
    try {
      expect(await urls(join(site.outDir, 'docpilot'))).toEqual(['/docs/'])
      // fr/drafts/** leaves out the French drafts; guide/old.html is the root's page, not the French one.
      expect(await urls(join(site.outDir, 'fr/docpilot'))).toEqual(['/docs/fr/', '/docs/fr/guide/old'])
    } finally {
      await site.remove()
    }
  })

  it("builds no root index when every page is in a locale folder, and points the pages outside them at the first locale's", async () => {
    const site = await built({ '404.html': page('en', 'Not found'), 'en/index.html': page('en', 'Home'), 'fr/index.html': page('fr', 'Accueil') }, ['en', 'fr'])
    try {
      expect(await urls(join(site.outDir, 'en/docpilot'))).toEqual(['/docs/en/'])
      expect(await site.html('404.html')).toContain('data-index="/docs/en/docpilot/"')
    } finally {
      await site.remove()
    }
  })
})

describe('the agent files of an integration', () => {
  const page = (title: string, text: string) => `<html><head><title>${title}</title></head><body><main><h1>${title}</h1><p>${text}</p></main></body></html>`

  async function build(pages: Record<string, string>, options: Parameters<typeof resolveOptions>[1], locales: string[] = []) {
    const outDir = await mkdtemp(join(tmpdir(), 'docpilot-agent-files-'))
    for (const [file, html] of Object.entries(pages)) {
      await mkdir(join(outDir, file, '..'), { recursive: true })
      await writeFile(join(outDir, file), html)
    }
    const lines: string[] = []
    const { config } = resolveOptions(site, { embed: false, ...options })
    await indexBuiltSite({ ...site, root: outDir, config, outDir, locales, log: (line) => lines.push(line) })
    const markdown = await glob('**/*.{md,txt}', { cwd: outDir, ignore: ['.docpilot/**', '**/docpilot/**'] })
    return { outDir, lines, markdown: markdown.sort(), read: (file: string) => readFile(join(outDir, file), 'utf8'), remove: () => rm(outDir, { recursive: true, force: true }) }
  }

  it('writes llms.txt, llms-full.txt and a copy of each page into the built site, at the URLs the pages are served at', async () => {
    // Starlight's shape: folder pages below a base path, links ending in a slash.
    const built = await build(
      { 'index.html': page('Acme docs', 'Acme routes requests.'), 'guide/routing/index.html': page('Routing', 'Routes map paths to handlers.'), '404.html': page('Not found', 'Nothing here.') },
      { urls: { base: '/docs/', trailingSlash: true } },
    )
    try {
      expect(built.markdown).toEqual(['guide/routing/index.md', 'index.md', 'llms-full.txt', 'llms.txt'])
      const llms = await built.read('llms.txt')
      expect(llms).toMatch(/^# Acme docs\n/)
      expect(llms).toContain('- [Acme docs](/docs/index.md): Acme routes requests.')
      expect(llms).toContain('- [Routing](/docs/guide/routing/index.md): Routes map paths to handlers.')
      expect(await built.read('llms-full.txt')).toContain('# Routing\nSource: /docs/guide/routing/\n')
      expect(await built.read('guide/routing/index.md')).toContain('Routes map paths to handlers.')
      expect(built.lines).toContain(`wrote llms.txt, llms-full.txt and 2 page copies for agents (${built.outDir})`)
    } finally {
      await built.remove()
    }
  })

  it("follows the site's URL shape: a page served as .html gets its copy at that URL + .md", async () => {
    // VitePress without cleanUrls.
    const built = await build({ 'index.html': page('Home', 'Start here.'), 'guide/routing.html': page('Routing', 'Routes map paths.') }, { urls: { stripExtension: false } })
    try {
      expect(built.markdown).toEqual(['guide/routing.html.md', 'index.md', 'llms-full.txt', 'llms.txt'])
      expect(await built.read('llms.txt')).toContain('- [Routing](/guide/routing.html.md): Routes map paths.')
    } finally {
      await built.remove()
    }
  })

  it("writes each locale's agent files into its own folder, listing its own pages", async () => {
    const built = await build(
      { 'index.html': page('Home', 'Start here.'), 'fr/index.html': page('Accueil', 'Commencez ici.'), 'fr/guide.html': page('Guide', 'Le guide.') },
      { urls: { base: '/docs/' } },
      ['fr'],
    )
    try {
      expect(built.markdown).toEqual(['fr/guide.md', 'fr/index.md', 'fr/llms-full.txt', 'fr/llms.txt', 'index.md', 'llms-full.txt', 'llms.txt'])
      expect(await built.read('llms.txt')).not.toContain('Accueil')
      expect(await built.read('fr/llms.txt')).toMatch(/^# Accueil\n[^]*- \[Guide\]\(\/docs\/fr\/guide\.md\)/)
    } finally {
      await built.remove()
    }
  })

  it('takes llms.title, and writes none of them with llms.enabled: false', async () => {
    const pages = { 'index.html': page('Home', 'Start here.'), 'guide.html': page('Guide', 'The guide.') }
    const titled = await build(pages, { llms: { title: 'Acme' } })
    const off = await build(pages, { llms: { enabled: false } })
    try {
      expect(await titled.read('llms.txt')).toMatch(/^# Acme\n/)
      expect(off.markdown).toEqual([])
      expect(off.lines.join('\n')).not.toContain('llms.txt')
    } finally {
      await titled.remove()
      await off.remove()
    }
  })

  it("keeps the owner's own llms.txt that the site build copied in, and writes over docpilot's own from an earlier build", async () => {
    const outDir = await mkdtemp(join(tmpdir(), 'docpilot-agent-files-'))
    const theirs = '# Acme\n\n- [Guide](https://acme.example/guide.md)\n'
    await writeFile(join(outDir, 'index.html'), page('Home', 'Start here.'))
    await writeFile(join(outDir, 'llms.txt'), theirs)
    const lines: string[] = []
    const { config } = resolveOptions(site, { embed: false })
    const run = () => indexBuiltSite({ ...site, root: outDir, config, outDir, log: (line) => lines.push(line) })
    try {
      await run()
      expect(await readFile(join(outDir, 'llms.txt'), 'utf8')).toBe(theirs)
      expect(await glob('**/*.{md,txt}', { cwd: outDir, ignore: ['.docpilot/**', '**/docpilot/**'] })).toEqual(['llms.txt'])
      expect(lines[0]).toMatch(/^kept .*llms\.txt, which your site build put there: wrote no llms\.txt, llms-full\.txt or page copies into .*llms\.enabled: false/)
      await rm(join(outDir, 'llms.txt'))
      await run()
      await writeFile(join(outDir, 'index.html'), page('Welcome', 'Start here.'))
      await run()
      expect(await readFile(join(outDir, 'llms.txt'), 'utf8')).toMatch(/^# Welcome\n/)
      expect(await readFile(join(outDir, 'llms-full.txt'), 'utf8')).toMatch(/^# Welcome\nSource: \/\n/)
    } finally {
      await rm(outDir, { recursive: true, force: true })
    }
  })

  it('writes none when the framework would read them back as pages, and says why', async () => {
    const outDir = await mkdtemp(join(tmpdir(), 'docpilot-agent-files-'))
    await writeFile(join(outDir, 'index.html'), page('Home', 'Start here.'))
    const lines: string[] = []
    try {
      const { config } = resolveOptions(site, { embed: false })
      await indexBuiltSite({ ...site, root: outDir, config, outDir, readsBackMarkdown: 'because', log: (line) => lines.push(line) })
      expect(await glob('**/*.{md,txt}', { cwd: outDir, ignore: ['.docpilot/**', '**/docpilot/**'] })).toEqual([])
      expect(lines[0]).toBe('wrote no llms.txt or page copies: because')
    } finally {
      await rm(outDir, { recursive: true, force: true })
    }
  })
})
