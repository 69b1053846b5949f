import { execFileSync } from 'node:child_process'
import { cpSync, mkdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { tempDirs } from '../fixtures/temp-dirs.ts'
import { CollectError, collectChunks, PARSE_HERE_PAGES, type CollectedPage, type CollectOptions } from './collect.ts'
import { embedDigest } from './embed-text.ts'
import { PageCache } from './page-cache.ts'

const SNIPPETS = new URL('../fixtures/snippets/', import.meta.url).pathname
const base: Omit<CollectOptions, 'root'> = {
  mode: 'source',
  slugger: 'vitepress',
  urls: { base: '/', stripPrefix: '', stripExtension: true, collapseIndex: true, trailingSlash: false },
  chunks: { maxWords: 220, overlapWords: 40 },
}

const temp = tempDirs('docpilot-collect-')
function tempDocs(files: Record<string, string>): string {
  const dir = temp()
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(join(dir, path, '..'), { recursive: true })
    writeFileSync(join(dir, path), text)
  }
  return dir
}

async function collectError(opts: CollectOptions): Promise<CollectError> {
  const error = await collectChunks(opts).then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(CollectError)
  return error as CollectError
}

describe('bad input that stops a run', () => {
  it('missing folder: names the path and the fix', async () => {
    const root = join(tmpdir(), 'docpilot-does-not-exist-42')
    const e = await collectError({ ...base, root })
    expect(e.code).toBe('missing_dir')
    expect(e.message).toContain(root)
    expect(e.message).toMatch(/docs\.dir/)
  })

  it('a file instead of a folder', async () => {
    const dir = tempDocs({ 'a.md': '# A\n\ntext' })
    const e = await collectError({ ...base, root: join(dir, 'a.md') })
    expect(e.code).toBe('missing_dir')
    expect(e.message).toMatch(/is a file, not a folder/)
  })

  it('empty folder', async () => {
    const e = await collectError({ ...base, root: tempDocs({}) })
    expect(e.code).toBe('empty_dir')
    expect(e.message).toMatch(/is empty/)
  })

  it('no file matches include/exclude: says which globs and how to fix', async () => {
    const root = tempDocs({ 'notes.txt': 'hello', 'guide/a.md': '# A\n\ntext' })
    const e = await collectError({ ...base, root, exclude: ['guide/**'] })
    expect(e.code).toBe('no_matches')
    expect(e.message).toContain('"**/*.md"')
    expect(e.message).toContain('guide/**')
    expect(e.message).toMatch(/docs\.include/)
  })
})

describe('per-file problems are warnings', () => {
  it('unreadable, non-UTF-8 and malformed-frontmatter files are named; the rest is indexed', async () => {
    const root = tempDocs({
      'good.md': '# Good\n\nGood text.',
      'bad-yaml.md': '---\ntitle: [x\n---\n# Bad YAML\n\nStill indexed.',
      'vanishes.md': '# Gone\n\nremoved before it is read',
    })
    writeFileSync(join(root, 'latin1.md'), Buffer.from([0x23, 0x20, 0x43, 0x61, 0x66, 0xe9, 0x0a]))
    const progress: string[] = []
    // Deleting a file once the folder is listed (the first progress report comes before any file is read)
    // makes it unreadable even for root.
    const { chunks, files, warnings } = await collectChunks({ ...base, root }, (_d, _t, f) => {
      if (progress.length === 0) rmSync(join(root, 'vanishes.md'))
      progress.push(f)
    })
    // Only the pages indexed count as files; the skipped ones are counted and named in warnings.
    expect(files).toEqual(['bad-yaml.md', 'good.md'])
    expect(warnings.map((w) => w.file)).toEqual(['bad-yaml.md', 'latin1.md', 'vanishes.md'])
    expect(warnings[0]!.message).toMatch(/frontmatter is not valid YAML/)
    expect(warnings[1]!.message).toMatch(/is not UTF-8 text/)
    expect(warnings[2]!.message).toMatch(/could not be read \(ENOENT/)
    expect(chunks.map((c) => c.text)).toEqual(['Still indexed.', 'Good text.'])
    expect(progress).toEqual(['bad-yaml.md', 'good.md', 'latin1.md', 'vanishes.md', ''])
  })

  it('a page with no text is skipped with a warning', async () => {
    const root = tempDocs({ 'empty.md': '# Only a title\n', 'b.md': '# B\n\nbody' })
    const { chunks, warnings } = await collectChunks({ ...base, root })
    expect(chunks).toHaveLength(1)
    expect(warnings).toEqual([{ file: 'empty.md', message: 'has no text to index; skipped' }])
  })

  it('indexes MDX that strict MDX would reject (a stray brace) without dropping it', async () => {
    const root = tempDocs({})
    cpSync(join(SNIPPETS, 'broken'), root, { recursive: true })
    const { chunks, warnings } = await collectChunks({ ...base, root, slugger: 'starlight' })
    expect(warnings).toEqual([])
    expect(chunks.map((c) => c.trail)).toEqual([['Stray braces'], ['Stray braces', 'Options']])
  })
})

describe('files, ids and order', () => {
  it('sorted files, stable unique ids, duplicate anchors suffixed, deterministic across runs', async () => {
    const page = '# Page\n\nintro\n\n## Usage\n\none\n\n## Usage\n\ntwo\n'
    const root = tempDocs({ 'b/z.md': page, 'a.md': page, 'B.md': page })
    const first = await collectChunks({ ...base, root })
    const second = await collectChunks({ ...base, root })
    expect(second).toEqual(first)
    expect(first.files).toEqual(['B.md', 'a.md', 'b/z.md'])
    expect(first.chunks.filter((c) => c.path === 'a.md').map((c) => [c.id, c.anchor, c.url])).toEqual([
      ['a.md#', '', '/a'],
      ['a.md#usage', 'usage', '/a'],
      ['a.md#usage-1', 'usage-1', '/a'],
    ])
    expect(new Set(first.chunks.map((c) => c.id)).size).toBe(first.chunks.length)
  })

  it('takes a page the cache finds unchanged by its fingerprint without reading the file; reads the others', async () => {
    const root = tempDocs({ 'a.md': '# A\n\nOn disk.', 'b.md': '# B\n\nOn disk too.' })
    const kept = (await collectChunks({ ...base, root: tempDocs({ 'a.md': '# A\n\nKept from an earlier run.' }) })).chunks
    const read: string[] = []
    const cache = {
      unchanged: (file: string, fingerprint: () => string | undefined) => (file === 'a.md' && fingerprint() ? { chunks: kept, warnings: [] } : undefined),
      get: (file: string) => void read.push(file),
      set: () => {},
    }
    const { chunks, parsed } = await collectChunks({ ...base, root, cache })
    expect(chunks.map((c) => c.text)).toEqual(['Kept from an earlier run.', 'On disk too.'])
    expect(read).toEqual(['b.md'])
    expect(parsed).toBe(1)
  })

  it("gives each chunk's embedding digest: hashed for a page it parses, taken with a page the cache holds", async () => {
    const root = tempDocs({ 'a.md': '# A\n\nOn disk.', 'b.md': '# B\n\nOn disk too.\n\n## More\n\nAnd more.' })
    const fresh = await collectChunks({ ...base, root })
    expect(fresh.digests).toEqual(fresh.chunks.map(embedDigest))
    const kept: CollectedPage = { chunks: fresh.chunks.filter((c) => c.path === 'a.md'), warnings: [], digests: ['digest kept with a.md'] }
    const cache = { unchanged: (file: string) => (file === 'a.md' ? kept : undefined), get: () => undefined, set: () => {} }
    const again = await collectChunks({ ...base, root, cache })
    expect(again.digests).toEqual(['digest kept with a.md', ...fresh.chunks.filter((c) => c.path === 'b.md').map(embedDigest)])
  })

  it('skips node_modules and dot-dirs; include/exclude select files', async () => {
    const root = tempDocs({
      'guide/a.md': '# A\n\na',
      'guide/b.mdx': '# B\n\nb',
      'node_modules/pkg/readme.md': '# Pkg\n\nx',
      '.vitepress/theme/x.md': '# X\n\nx',
      'drafts/c.md': '# C\n\nc',
    })
    expect((await collectChunks({ ...base, root })).files).toEqual(['drafts/c.md', 'guide/a.md', 'guide/b.mdx'])
    expect((await collectChunks({ ...base, root, exclude: ['drafts/**'] })).files).toEqual(['guide/a.md', 'guide/b.mdx'])
    expect((await collectChunks({ ...base, root, include: ['guide/*.mdx'] })).files).toEqual(['guide/b.mdx'])
  })

  it('splits a long section into overlapping windows that keep trail and anchor', async () => {
    const words = Array.from({ length: 500 }, (_, i) => `w${i}`).join(' ')
    const root = tempDocs({ 'long.md': `# Long\n\n## Big part\n\n${words}\n` })
    const { chunks } = await collectChunks({ ...base, root, chunks: { maxWords: 200, overlapWords: 50 } })
    expect(chunks.map((c) => c.id)).toEqual(['long.md#big-part~0', 'long.md#big-part~1', 'long.md#big-part~2'])
    for (const c of chunks) {
      expect(c.trail).toEqual(['Long', 'Big part'])
      expect(c.anchor).toBe('big-part')
      expect(c.text.split(' ').length).toBeLessThanOrEqual(200)
    }
    expect(chunks[0]!.text.startsWith('w0 ')).toBe(true)
    expect(chunks[1]!.text.startsWith('w150 ')).toBe(true) // 50 words of overlap
    expect(chunks[2]!.text.endsWith(' w499')).toBe(true)
  })
})

describe('built HTML site (mode: site)', () => {
  const site = { ...base, root: join(SNIPPETS, 'site'), mode: 'site' as const }

  it('reads the main region with real heading ids and the page title', async () => {
    const { files, chunks, warnings } = await collectChunks(site)
    expect(warnings).toEqual([])
    expect(files).toEqual(['guide/index.html', 'index.html'])
    const home = chunks.filter((c) => c.path === 'index.html')
    expect(home.map((c) => [c.anchor, c.trail])).toEqual([
      ['', ['Welcome']],
      ['install-it', ['Welcome', 'Install it']],
      ['custom-id', ['Welcome', 'Configure & run']],
      ['options', ['Welcome', 'Configure & run', 'Options']],
      ['install-it-1', ['Welcome', 'Install it']],
    ])
    expect(home[0]!.url).toBe('/')
    expect(home[1]!.text).toBe('Run the installer:\n\nnpm install example\nnpx example init')
    const all = home.map((c) => c.text).join('\n')
    expect(all).not.toMatch(/Navigation text|Footer text|analytics|#/)
    const guide = chunks.filter((c) => c.path === 'guide/index.html')
    expect(guide.map((c) => [c.url, c.title, c.anchor])).toEqual([
      ['/guide', 'Guide', ''],
      ['/guide', 'Guide', 'first-steps'],
    ])
    expect(guide.map((c) => c.text).join('\n')).not.toMatch(/Site header|Sidebar|Edit this page/)
  })

  it("once any page marks its content with data-pagefind-body, leaves out the pages that do not, as Pagefind does; the page cache keeps the mark", async () => {
    const marked = (title: string) =>
      `<!doctype html><html><head><title>${title}</title></head><body><nav>Menu</nav><main><div data-pagefind-body><h1 id="_top">${title}</h1><p>${title} explains routes and handlers.</p></div></main></body></html>`
    // Starlight leaves the mark off a page with pagefind: false in its frontmatter (a splash page, say).
    const splash = '<!doctype html><html><head><title>Welcome</title></head><body><main><h1>Welcome</h1><p>Build faster websites. Get started!</p></main></body></html>'
    const root = tempDocs({ 'index.html': splash, 'guide/routing/index.html': marked('Routing'), 'guide/middleware/index.html': marked('Middleware') })
    const expected = ['guide/middleware/index.html', 'guide/routing/index.html']
    const shape = { ...base, root, mode: 'site' as const }
    const fresh = await collectChunks(shape)
    expect(fresh.files).toEqual(expected)
    expect(new Set(fresh.chunks.map((c) => c.path))).toEqual(new Set(expected))
    // The marked region is read, not the main around it.
    expect(fresh.chunks.map((c) => c.text).join('\n')).not.toMatch(/Menu|Build faster/)
    // Not a docs page is neither a warning nor a skipped file, as an excluded one.
    expect(fresh.warnings).toEqual([])
    expect(fresh.skipped).toBe(0)
    // A re-index takes all three pages from the page cache and leaves out the same one.
    const cacheDir = temp()
    for (let run = 0; run < 2; run++) {
      const cache = await PageCache.open(cacheDir, shape, 'test', '/out')
      const again = await collectChunks({ ...shape, cache })
      await cache.save()
      expect(again.files, `run ${run + 1}`).toEqual(expected)
      if (run === 1) expect(again.parsed).toBe(0)
    }
    // An owner's own selector decides alone: every page it matches is read.
    expect((await collectChunks({ ...shape, contentSelector: 'main' })).files).toEqual([...expected, 'index.html'])
  })

  it('leaves out a page that asks not to be in a search index, counted apart from the skipped and without a warning; the page cache keeps the mark', async () => {
    const doc = (title: string, head = '') =>
      `<!doctype html><html><head><title>${title}</title>${head}</head><body><main><h1 id="_top">${title}</h1><p>${title} explains routes and handlers.</p></main></body></html>`
    const root = tempDocs({
      'guide/index.html': doc('Guide'),
      'search.html': doc('Search', '<meta name="robots" content="noindex" />'),
      'tags/index.html': doc('Tags', '<meta name="robots" content="noindex, nofollow">'),
      // Asks it and has no text: left out as quietly, not warned about as a page with nothing to index.
      'redirect.html': '<!doctype html><html><head><meta name="robots" content="none"><meta http-equiv="refresh" content="0; url=/guide/"></head><body></body></html>',
    })
    const shape = { ...base, root, mode: 'site' as const }
    const cacheDir = temp()
    for (let run = 0; run < 2; run++) {
      const cache = await PageCache.open(cacheDir, shape, 'test', '/out')
      const result = await collectChunks({ ...shape, cache })
      await cache.save()
      expect(result.files, `run ${run + 1}`).toEqual(['guide/index.html'])
      expect(new Set(result.chunks.map((c) => c.path))).toEqual(new Set(['guide/index.html']))
      expect(result.warnings).toEqual([])
      expect([result.skipped, result.noindex]).toEqual([0, 3])
      if (run === 1) expect(result.parsed).toBe(0)
    }
  })

  it("leaves out the site's not-found page (MkDocs 1.6.1's, which asks nothing), and only the one at its root", async () => {
    const doc = (title: string) => `<!doctype html><html><head><title>${title}</title></head><body><main><h1 id="_top">${title}</h1><p>${title} explains it.</p></main></body></html>`
    // MkDocs' default theme, trimmed: no robots meta, no <main>, no mark of its own.
    const notFound = '<!DOCTYPE html><html lang="en"><head><title>Lumen</title></head><body><div class="container"><div class="row"><div class="row-fluid"><div id="main-content" class="span12"><h1 id="404-page-not-found" style="text-align: center">404</h1><p style="text-align: center"><strong>Page not found</strong></p></div></div></div></div></body></html>'
    const root = tempDocs({ '404.html': notFound, 'index.html': doc('Home'), 'errors/404.html': doc('Not Found errors') })
    const result = await collectChunks({ ...base, root, mode: 'site' })
    expect(result.files).toEqual(['errors/404.html', 'index.html'])
    expect([result.skipped, result.noindex, result.warnings]).toEqual([0, 0, []])
    // In a docs folder, 404.html is no page a host serves: it is read like any other file.
    expect((await collectChunks({ ...base, root, include: ['**/*.html'] })).files).toContain('404.html')
  })

  it('indexes a site whose every page asks not to be indexed (a preview build, Docusaurus noIndex), as one that asks nothing', async () => {
    const doc = (title: string) =>
      `<!doctype html><html><head><title>${title}</title><meta name="robots" content="noindex, nofollow"></head><body><main><h1 id="_top">${title}</h1><p>${title} explains routes.</p></main></body></html>`
    const root = tempDocs({ 'index.html': doc('Home'), 'guide/index.html': doc('Guide'), 'empty.html': '<html><head><meta name="robots" content="noindex"></head><body><main></main></body></html>' })
    const result = await collectChunks({ ...base, root, mode: 'site' })
    expect(result.files).toEqual(['guide/index.html', 'index.html'])
    expect([result.skipped, result.noindex]).toEqual([1, 0])
    expect(result.warnings).toEqual([{ file: 'empty.html', message: 'has no text to index; skipped' }])
  })

  it('a contentSelector that matches nothing is a warning naming the file', async () => {
    const { chunks, warnings } = await collectChunks({ ...site, contentSelector: '#docs-content' })
    expect(chunks).toEqual([])
    expect(warnings.map((w) => w.file)).toEqual(['guide/index.html', 'index.html'])
    expect(warnings[0]!.message).toMatch(/content selector "#docs-content" matched nothing/)
  })
})

describe('hostile docs folders', () => {
  const SECRET = 'sk-planted-outside-the-docs-41c9'

  it('follows no link out of the docs folder: /proc, /etc, a sibling folder, a linked folder; names each in a warning', async () => {
    const outside = tempDocs({ 'secret.md': `# Secret\n\nOPENAI_API_KEY=${SECRET}`, 'tree/deep.md': `# Deep\n\n${SECRET}` })
    const root = tempDocs({ 'good.md': '# Good\n\nGood text.', 'guide/real.md': '# Real\n\nInside the folder.' })
    symlinkSync('/proc/self/environ', join(root, 'env.md'))
    symlinkSync('/etc/passwd', join(root, 'passwd.md'))
    symlinkSync(join(outside, 'secret.md'), join(root, 'sibling.md'))
    symlinkSync(outside, join(root, 'linked-dir'))
    symlinkSync('/', join(root, 'whole-disk'))
    // Links that stay inside are fine, to a file or a folder.
    symlinkSync(join(root, 'guide/real.md'), join(root, 'alias.md'))
    symlinkSync(join(root, 'guide'), join(root, 'guide-alias'))
    const { chunks, files, skipped, warnings } = await collectChunks({ ...base, root })
    expect(files).toEqual(['alias.md', 'good.md', 'guide-alias/real.md', 'guide/real.md'])
    expect(JSON.stringify(chunks)).not.toContain(SECRET)
    expect(JSON.stringify(chunks)).not.toMatch(/root:x:0|PATH=/)
    const warned = Object.fromEntries(warnings.map((w) => [w.file, w.message]))
    expect(Object.keys(warned).sort()).toEqual(['env.md', 'linked-dir', 'passwd.md', 'sibling.md', 'whole-disk'])
    for (const message of Object.values(warned)) expect(message).toMatch(/outside the docs folder; skipped/)
    expect(warned['passwd.md']).toContain('/etc/passwd')
    expect(skipped).toBe(5)
  })

  it('a folder that is itself a link is read through its real path', async () => {
    const real = tempDocs({ 'a.md': '# A\n\nText.' })
    const parent = tempDocs({})
    symlinkSync(real, join(parent, 'docs'))
    const { files, warnings } = await collectChunks({ ...base, root: join(parent, 'docs') })
    expect(files).toEqual(['a.md'])
    expect(warnings).toEqual([])
  })

  it('never opens a FIFO (a link to one would block the run)', async () => {
    const root = tempDocs({ 'good.md': '# Good\n\nGood text.' })
    execFileSync('mkfifo', [join(root, 'pipe.fifo')])
    symlinkSync(join(root, 'pipe.fifo'), join(root, 'pipe.md'))
    const { files, warnings } = await collectChunks({ ...base, root })
    expect(files).toEqual(['good.md'])
    expect(warnings).toEqual([{ file: 'pipe.md', message: expect.stringMatching(/not a regular file/) }])
  })

  it('skips a page over docs.maxFileBytes, naming the file and the limit', async () => {
    const root = tempDocs({ 'big.md': `# Big\n\n${'word '.repeat(1000)}`, 'small.md': '# Small\n\nText.' })
    const { files, warnings } = await collectChunks({ ...base, root, limits: { maxFileBytes: 2048 } })
    expect(files).toEqual(['small.md'])
    expect(warnings).toEqual([{ file: 'big.md', message: expect.stringMatching(/^is 5007 bytes, over the per-file limit docs\.maxFileBytes = 2048; skipped/) }])
  })

  it('skips a page nesting deeper than docs.maxNesting before parsing it (lists, quotes, HTML)', async () => {
    const nestedList = Array.from({ length: 1000 }, (_, i) => `${' '.repeat(2 * i)}- level ${i}`).join('\n')
    const root = tempDocs({
      'nested-list.md': `# Lists\n\n${nestedList}\n`,
      'marker-run.md': `# Run\n\n${'- '.repeat(500)}x\n`,
      'quotes.mdx': `# Quotes\n\n${'> '.repeat(300)}deep\n`,
      'fine.md': `# Fine\n\n- a\n  - b\n    - c\n\n\`\`\`yaml\n${' '.repeat(400)}deeply: indented code is not nesting\n\`\`\`\n`,
    })
    const { files, warnings } = await collectChunks({ ...base, root, limits: { maxNesting: 64 } })
    expect(files).toEqual(['fine.md'])
    expect(warnings.map((w) => [w.file, w.message.replace(/\d+ levels/, 'N levels')])).toEqual([
      ['marker-run.md', 'nests N levels deep, over the per-file limit docs.maxNesting = 64; skipped (raise docs.maxNesting to index it)'],
      ['nested-list.md', 'nests N levels deep, over the per-file limit docs.maxNesting = 64; skipped (raise docs.maxNesting to index it)'],
      ['quotes.mdx', 'nests N levels deep, over the per-file limit docs.maxNesting = 64; skipped (raise docs.maxNesting to index it)'],
    ])
    // The 1,000-level list (31 s to parse) is refused by its measured depth, not by a clock.
    expect(warnings[1]!.message).toMatch(/nests 1000 levels/)
  })

  it('skips a page whose parse outlives docs.parseTimeoutMs (many separate lists), and indexes the rest', async () => {
    // 1.6 MB of one-item lists, each closed by a paragraph: shallow and under the byte limit (no limit
    // catches it), and several seconds of tokenizing (each list costs the lexer far more than its bytes).
    const manyLists = `# Lists\n\n${'- a\n\nb\n\n'.repeat(200 * 1024)}`
    // An ordinary large page comes back from the parse thread whole.
    const parts = Array.from({ length: 40 }, (_, i) => `## Part ${i}\n\n${`Ordinary prose about part ${i}. `.repeat(30)}\n`)
    const root = tempDocs({ 'many-lists.md': manyLists, 'large.md': `# Large\n\n${parts.join('\n')}`, 'small.md': '# Small\n\nText.' })
    const cached: string[] = []
    const cache = { get: () => undefined, set: (file: string) => void cached.push(file) }
    const { files, chunks, warnings } = await collectChunks({ ...base, root, cache, limits: { parseTimeoutMs: 1000 } })
    expect(files).toEqual(['large.md', 'small.md'])
    expect(warnings).toEqual([
      {
        file: 'many-lists.md',
        message: 'took longer than 1000 ms to parse, over the per-file time backstop docs.parseTimeoutMs = 1000; skipped (raise docs.parseTimeoutMs to index it)',
      },
    ])
    // A page cut by the clock is not remembered as skipped: the next run tries it again.
    expect(cached.sort()).toEqual(['large.md', 'small.md'])
    const largeTrails = chunks.filter((c) => c.path === 'large.md').map((c) => c.trail.at(-1))
    expect(new Set(largeTrails)).toEqual(new Set(parts.map((_, i) => `Part ${i}`)))
  })

  it('skips built HTML nesting deeper than docs.maxNesting, without overflowing the stack', async () => {
    const root = tempDocs({
      'deep.html': `<html><body><main><h1>Deep</h1>${'<div>'.repeat(100_000)}x${'</div>'.repeat(100_000)}</main></body></html>`,
      'ok.html': '<html><body><main><h1>Ok</h1><p>Fine page.</p></main></body></html>',
    })
    const { files, warnings } = await collectChunks({ ...base, root, mode: 'site' })
    expect(files).toEqual(['ok.html'])
    expect(warnings).toEqual([{ file: 'deep.html', message: expect.stringMatching(/^nests \d+ levels deep, over the per-file limit docs\.maxNesting = 64/) }])
  })

  it('a page too deep for the main thread stack, parsed in a re-index, is parsed again on the parse thread: the same pages as a first build', async () => {
    // 4,000 nested <div>s inside Markdown overflow the main thread's stack, not the parse thread's.
    const deep = (line: string) => `# Deep\n\n${'<div>'.repeat(4000)}text${'</div>'.repeat(4000)}\n\n${line}\n`
    const fillers = Object.fromEntries(Array.from({ length: PARSE_HERE_PAGES + 4 }, (_, i) => [`f${i}.md`, `# Filler ${i}\n\nFiller text ${i}.`]))
    const root = tempDocs({ ...fillers, 'deep.md': deep('First.') })
    const kept = new Map<string, CollectedPage>()
    const cache = {
      get: (file: string) => kept.get(file),
      set: (file: string, _read: unknown, page: CollectedPage) => void kept.set(file, page),
    }
    const first = await collectChunks({ ...base, root, cache }) // every page to parse: all on the parse thread
    expect(first.files).toContain('deep.md')
    writeFileSync(join(root, 'deep.md'), deep('Edited.'))
    kept.delete('deep.md')
    const edited = await collectChunks({ ...base, root, cache }) // one page to parse: on this thread first
    expect(edited.parsed).toBe(1)
    expect(edited.warnings).toEqual([])
    expect(edited.chunks.filter((c) => c.path === 'deep.md').map((c) => c.text)).toEqual(['text\n\nEdited.'])
    expect(edited.files).toEqual(first.files)
    expect(kept.get('deep.md')?.chunks.length).toBe(1)
  })

  it('refuses a page whose URL would leave the site, and encodes # and ? in names', async () => {
    const root = tempDocs({ '\\/evil.example/login.md': '# Login\n\nPhish.', 'faq/what#is?.md': '# What\n\nAnswer.' })
    const { chunks, warnings } = await collectChunks({ ...base, root })
    expect(chunks.map((c) => c.url)).toEqual(['/faq/what%23is%3F'])
    expect(warnings).toEqual([{ file: '\\/evil.example/login.md', message: expect.stringMatching(/backslash.*skipped/) }])
  })

  it('a YAML tag warning names its file and never reaches the console unnamed', async () => {
    const root = tempDocs({ 'tagged.md': '---\ntitle: !!python/object Tagged\n---\n# Tagged\n\nBody.' })
    const emitted: unknown[] = []
    const onWarning = (w: unknown) => emitted.push(w)
    process.on('warning', onWarning)
    const { files, warnings } = await collectChunks({ ...base, root })
    await new Promise((r) => setImmediate(r))
    process.off('warning', onWarning)
    expect(files).toEqual(['tagged.md'])
    expect(warnings).toEqual([{ file: 'tagged.md', message: expect.stringMatching(/^frontmatter: Unresolved tag: tag:yaml.org,2002:python\/object/) }])
    expect(emitted).toEqual([])
  })
})
