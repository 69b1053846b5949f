import { mkdtemp, readFile, readdir, rm, stat, writeFile, mkdir } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join, resolve } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { excludeSiteOut, firstSentence, llmsFullTxt, llmsTxt, LlmsError, pageEntry, writeAgentFiles, writeLlms, writtenByDocpilot, type PageEntry } from './llms.ts'

const page = (path: string, url: string, title: string, description = `About ${title}.`): PageEntry => ({
  path,
  url,
  title,
  description,
  markdown: `# ${title}\n\nBody of ${title}.\n`,
})

describe('the one-sentence description', () => {
  it('is the first sentence, on one line', () => {
    expect(firstSentence('Hono is small.  It is\nfast. Really.')).toBe('Hono is small.')
    expect(firstSentence('Use c.json() for JSON. Then return.')).toBe('Use c.json() for JSON.')
    expect(firstSentence('Version 4.2 added it')).toBe('Version 4.2 added it')
  })

  it('is cut at a word, about 200 characters at most', () => {
    const long = `${'word '.repeat(80)}end.`
    const cut = firstSentence(long)
    expect(cut.length).toBeLessThanOrEqual(201)
    expect(cut).toMatch(/word…$/)
  })
})

describe('a page entry', () => {
  it('puts the title (and the frontmatter description) on top of a page whose body has no H1', () => {
    const entry = pageEntry({ path: 'a.mdx', url: '/a' }, 'Alpha', { description: 'The first page. More.', nodes: [{ type: 'text', text: 'Body.' }], markdown: 'Body.\n' })
    expect(entry.markdown).toBe('# Alpha\n\n> The first page. More.\n\nBody.\n')
    expect(entry.description).toBe('The first page.')
  })

  it('keeps a page that has its own H1 as it is, described by its first text', () => {
    const entry = pageEntry({ path: 'b.md', url: '/b' }, 'Beta', { nodes: [{ type: 'heading', depth: 1, text: 'Beta' }, { type: 'text', text: 'Beta does things. Many.' }], markdown: '# Beta\n\nBeta does things. Many.\n' })
    expect(entry.markdown).toBe('# Beta\n\nBeta does things. Many.\n')
    expect(entry.description).toBe('Beta does things.')
  })

  it('is described by its first paragraph that reads as a sentence, past a signature line or a list item', () => {
    const nodes = [
      { type: 'heading' as const, depth: 1, text: 'Class: Pool' },
      { type: 'text' as const, text: 'Extends: undici.Dispatcher' },
      { type: 'text' as const, text: 'name string' },
      { type: 'text' as const, text: 'A pool of clients connected to the same upstream target. More.' },
    ]
    expect(pageEntry({ path: 'p.md', url: '/p' }, 'Class: Pool', { nodes, markdown: '' }).description).toBe('A pool of clients connected to the same upstream target.')
    // No sentence anywhere: the first text, as before.
    expect(pageEntry({ path: 'q.md', url: '/q' }, 'Q', { nodes: nodes.slice(0, 3), markdown: '' }).description).toBe('Extends: undici.Dispatcher')
  })
})

describe('llms.txt', () => {
  const pages = [
    page('index.md', '/', 'Home', 'The home page.'),
    page('docs/api/context.md', '/docs/api/context', 'Context'),
    page('docs/api/index.md', '/docs/api', 'API'),
    page('docs/index.md', '/docs', 'Docs'),
    page('guide/[x].md', '/guide/x', 'Brackets [x]', ''),
  ]
  const text = llmsTxt(pages, { siteUrl: '/', fallbackTitle: 'site' })

  it('is titled by the home page and summarised by its description', () => {
    expect(text.startsWith('# Home\n\n> The home page.\n')).toBe(true)
    expect(llmsTxt(pages.slice(1), { siteUrl: '/', fallbackTitle: 'site' })).toMatch(/^# site\n/)
    expect(llmsTxt(pages, { siteUrl: '/', title: 'Named', fallbackTitle: 'site' })).toMatch(/^# Named\n/)
  })

  it('groups pages by folder, a folder before its subfolders, each folder led by its own index page', () => {
    const sections = [...text.matchAll(/^## (.+)$/gm)].map((m) => m[1])
    expect(sections).toEqual(['Pages', 'docs', 'docs/api', 'guide'])
    const api = text.slice(text.indexOf('## docs/api'), text.indexOf('## guide'))
    expect(api.indexOf('[API](/docs/api.md)')).toBeLessThan(api.indexOf('[Context](/docs/api/context.md)'))
  })

  it('links each page copy, with its sentence when it has one', () => {
    expect(text).toContain('- [Context](/docs/api/context.md): About Context.\n')
    expect(text).toContain('- [Brackets \\[x\\]](/guide/x.md)\n')
  })

  it('llms-full.txt heads each page with the URL it is served at', () => {
    expect(Buffer.concat(llmsFullTxt(pages.slice(1, 2))).toString()).toBe('# Context\nSource: /docs/api/context\n\nBody of Context.\n')
    const entry = (url: string, markdown: string): PageEntry => ({ path: `${url}.md`, url, title: 't', description: '', markdown })
    const full = llmsFullTxt([entry('/a', '# Ä title only'), entry('/b', 'No title: größe.\n'), entry('/c', '#Not a title\n'), entry('/d', '# D\n\nBody 🚀\n')])
    expect(Buffer.concat(full).toString()).toBe(
      '# Ä title only\nSource: /a' +
        '\n---\n\nSource: /b\n\nNo title: größe.\n' +
        '\n---\n\nSource: /c\n\n#Not a title\n' +
        '\n---\n\n# D\nSource: /d\n\nBody 🚀\n',
    )
  })
})

describe('writing the agent files', () => {
  let dir: string
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'docpilot-llms-'))
  })
  afterEach(() => rm(dir, { recursive: true, force: true }))

  it('puts llms.txt, llms-full.txt and each copy where the site URL serves them', async () => {
    const result = await writeLlms([page('docs/a.md', '/docs/a', 'A'), page('guide/index.md', '/docs/guide/', 'Guide')], { siteOut: dir, siteUrl: '/docs/', fallbackTitle: 'x' })
    expect((await readdir(dir)).sort()).toEqual(['a.md', 'guide', 'llms-full.txt', 'llms.txt'])
    expect(await readFile(join(dir, 'guide/index.md'), 'utf8')).toBe('# Guide\n\nBody of Guide.\n')
    expect(result.pages).toBe(2)
    expect(result.bytes.llmsTxt).toBe(Buffer.byteLength(await readFile(join(dir, 'llms.txt'))))
  })

  it('says when llms.txt fell back to the folder title: no llms.title, and no page at the site URL', async () => {
    const pages = [page('docs/a.md', '/docs/a', 'A')]
    expect((await writeLlms(pages, { siteOut: dir, siteUrl: '/docs/', fallbackTitle: 'docs' })).untitled).toBe('docs')
    expect((await writeLlms(pages, { siteOut: dir, siteUrl: '/docs/', title: 'Site', fallbackTitle: 'docs' })).untitled).toBeUndefined()
    expect((await writeLlms([...pages, page('docs/index.md', '/docs/', 'Home')], { siteOut: dir, siteUrl: '/docs/', fallbackTitle: 'docs' })).untitled).toBeUndefined()
  })

  it("a later run removes a removed page's copy, rewrites llms.txt and llms-full.txt, and leaves the other copies alone", async () => {
    const cacheDir = join(dir, 'cache')
    const site = join(dir, 'site')
    const opts = { siteOut: site, siteUrl: '/', fallbackTitle: 'x', record: { cacheDir, scope: join(dir, 'out') } }
    await writeLlms([page('a.md', '/a', 'A'), page('guide/b.md', '/guide/b', 'B')], opts)
    const kept = await stat(join(site, 'a.md'))
    const result = await writeLlms([page('a.md', '/a', 'A')], opts)
    expect((await readdir(site)).sort()).toEqual(['a.md', 'llms-full.txt', 'llms.txt'])
    expect((await stat(join(site, 'a.md'))).ino).toBe(kept.ino)
    expect(await readFile(join(site, 'llms-full.txt'), 'utf8')).toBe(Buffer.concat(llmsFullTxt([page('a.md', '/a', 'A')])).toString())
    expect(result).toEqual({ dir: site, pages: 1, bytes: { llmsTxt: expect.any(Number), llmsFull: expect.any(Number), copies: Buffer.byteLength(page('a.md', '/a', 'A').markdown) }, untitled: 'x' })
  })

  it('with page ids, writes what a run without them writes, and takes a page that kept its id as unchanged', async () => {
    const opts = (site: string, ids?: Record<string, string>) => ({
      siteOut: join(dir, site),
      siteUrl: '/',
      fallbackTitle: 'x',
      record: { cacheDir: join(dir, `cache-${site}`), scope: join(dir, 'out') },
      ...(ids ? { pageId: (path: string) => ids[path] } : {}),
    })
    const pages = [page('a.md', '/a', 'A'), page('guide/b.md', '/guide/b', 'B')]
    const edited = [page('a.md', '/a', 'A, edited'), pages[1]!]
    await writeLlms(pages, opts('with', { 'a.md': 'a@1', 'guide/b.md': 'b@1' }))
    await writeLlms(edited, opts('with', { 'a.md': 'a@2', 'guide/b.md': 'b@1' }))
    await writeLlms(edited, opts('without'))
    for (const file of ['a.md', 'guide/b.md', 'llms.txt', 'llms-full.txt']) {
      expect(await readFile(join(dir, 'with', file), 'utf8')).toBe(await readFile(join(dir, 'without', file), 'utf8'))
    }
    // The id is what is trusted: a page whose id stayed is not looked at (a page cache gives no other text for it).
    const b = await stat(join(dir, 'with', 'guide/b.md'))
    await writeLlms([edited[0]!, page('guide/b.md', '/guide/b', 'B, not looked at')], opts('with', { 'a.md': 'a@2', 'guide/b.md': 'b@1' }))
    expect((await stat(join(dir, 'with', 'guide/b.md'))).mtimeMs).toBe(b.mtimeMs)
  })

  it('refuses to overwrite a source page with a copy, and writes nothing', async () => {
    const docs = join(dir, 'docs')
    await mkdir(docs)
    await writeFile(join(docs, 'a.md'), 'original')
    const write = writeLlms([page('docs/a.md', '/docs/a', 'A')], { siteOut: dir, siteUrl: '/', fallbackTitle: 'x', protect: new Set([resolve(docs, 'a.md')]) })
    await expect(write).rejects.toThrow(LlmsError)
    await expect(write).rejects.toThrow(/would overwrite the source file .*docs\/a\.md/)
    expect(await readFile(join(docs, 'a.md'), 'utf8')).toBe('original')
    expect(await readdir(dir)).toEqual(['docs'])
  })

  it('refuses, for a build, a copy over a source wherever one folder holds the other', async () => {
    const config = { urls: { base: '/', stripPrefix: '', stripExtension: true, collapseIndex: true, trailingSlash: false }, llms: { enabled: true } }
    await writeFile(join(dir, 'a.md'), 'original')
    const build = (siteOut: string) => writeAgentFiles([page('a.md', '/a', 'A')], { siteOut, root: dir, mode: 'site', files: ['a.md'], config })
    await expect(build(dir)).rejects.toThrow(/would overwrite the source file/)
    await mkdir(join(dir, 'site'))
    await expect(build(join(dir, 'site'))).resolves.toMatchObject({ pages: 1 })
    expect(await readFile(join(dir, 'a.md'), 'utf8')).toBe('original')
    expect(await readFile(join(dir, 'site', 'a.md'), 'utf8')).toBe('# A\n\nBody of A.\n')
  })

  it('refuses a page whose URL is outside the site URL', async () => {
    await expect(writeLlms([page('a.md', '/blog/a', 'A')], { siteOut: dir, siteUrl: '/docs/', fallbackTitle: 'x' })).rejects.toThrow(/not under the site URL \/docs\//)
  })
})

describe('a site output folder around the docs folder', () => {
  it('is refused for sources (its copies would be read as docs), allowed for a built site', async () => {
    const opts = { files: [], config: { urls: { base: '/', stripPrefix: '', stripExtension: true, collapseIndex: true, trailingSlash: false }, llms: { enabled: true } } }
    const dir = await mkdtemp(join(tmpdir(), 'docpilot-llms-'))
    try {
      await expect(writeAgentFiles([], { ...opts, siteOut: dir, root: join(dir, 'docs'), mode: 'source' })).rejects.toThrow(/holds the docs folder/)
      await expect(writeAgentFiles([], { ...opts, siteOut: dir, root: dir, mode: 'source' })).rejects.toThrow(/holds the docs folder/)
      await expect(writeAgentFiles([], { ...opts, siteOut: dir, root: dir, mode: 'site' })).resolves.toMatchObject({ pages: 0 })
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})

describe('a site output folder inside the docs folder', () => {
  it('is excluded from what the next run reads; one outside needs no rule', () => {
    expect(excludeSiteOut('/site/docs', '/site/docs/public')).toEqual(['public/**'])
    expect(excludeSiteOut('/site/docs', '/site/dist')).toEqual([])
    expect(excludeSiteOut('/site/docs', undefined)).toEqual([])
  })
})

describe('writtenByDocpilot', () => {
  it("tells docpilot's llms.txt and llms-full.txt from an owner's own", () => {
    const pages = [page('index.md', '/', 'Home'), page('guide.md', '/guide', 'Guide', '')]
    expect(writtenByDocpilot('llms.txt', llmsTxt(pages, { siteUrl: '/', fallbackTitle: 'x' }))).toBe(true)
    expect(writtenByDocpilot('llms-full.txt', Buffer.concat(llmsFullTxt(pages)).toString())).toBe(true)
    expect(writtenByDocpilot('llms-full.txt', Buffer.concat(llmsFullTxt([{ ...pages[0]!, markdown: 'No title.\n' }])).toString())).toBe(true)
    expect(writtenByDocpilot('llms.txt', '# Acme\n\n> Docs for Acme.\n\n- [Guide](https://acme.example/guide.md)\n')).toBe(false)
    expect(writtenByDocpilot('llms-full.txt', '# Acme\n\nEverything about Acme.\n')).toBe(false)
  })
})
