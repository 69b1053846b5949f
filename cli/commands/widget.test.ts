import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runMain } from '../test-helpers.ts'
import { defaultCacheDir } from '../../indexer/cache-dir.ts'
import { WrittenFiles } from '../../indexer/written-files.ts'
import { indexDirsFor, onnxNoteForIndex } from './widget.ts'

let dir: string

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'docpilot-widget-'))
})
afterAll(() => rm(dir, { recursive: true, force: true }))

const run = (argv: string[]) => runMain(argv, dir)

describe('docpilot widget', () => {
  it('writes the loader, panel and worker and prints the script tag for the index URL', async () => {
    const r = await run(['widget', '--out', 'public/assets', '--index', '/docs-index/'])
    expect(r.stderr).toBe('')
    expect(r.code).toBe(0)
    for (const name of ['docpilot.js', 'docpilot-panel.js', 'docpilot-worker.js']) {
      expect((await readFile(join(dir, 'public/assets', name))).length).toBeGreaterThan(0)
    }
    expect(r.stdout).toContain('<script src="/assets/docpilot.js" data-index="/docs-index/" defer></script>')
  }, 120_000)

  it('removes the chunks an earlier docpilot wrote and this one does not ship, and nothing of the owner\'s', async () => {
    const out = join(dir, 'public/upgrade')
    // What an earlier release left: a chunk under a hash this build does not make, remembered as the widget's.
    const earlier = await WrittenFiles.open(out, { cacheDir: defaultCacheDir(dir, {}), scope: 'widget', kind: 'widget-files' })
    earlier.write(join(out, 'docpilot-mount-0ld0ld0l.js'), 'export {}')
    await earlier.finish()
    await writeFile(join(out, 'docpilot-theme.js'), '/* the owner\'s */')
    const r = await run(['widget', '--out', 'public/upgrade'])
    expect(r.code, r.stderr).toBe(0)
    const names = await readdir(out)
    expect(names).not.toContain('docpilot-mount-0ld0ld0l.js')
    expect(names).toContain('docpilot-theme.js')
    // The count is the widget's files, not whatever else the folder holds.
    expect(r.stdout).toContain(`: ${names.length - 1} files;`)
  }, 120_000)

  it('prints a placeholder src, and says so, for a folder outside the working directory (no `..` path)', async () => {
    const outside = await mkdtemp(join(tmpdir(), 'docpilot-widget-out-'))
    try {
      const out = join(outside, 'w2')
      const r = await run(['widget', '--out', out])
      expect(r.code, r.stderr).toBe(0)
      expect(r.stdout).toContain(`Wrote the widget into ${out}: `)
      expect(r.stdout).toContain(`with src the URL path your site serves ${out} at (it is outside this folder, so docpilot cannot tell;`)
      expect(r.stdout).toContain('<script src="/PATH/TO/w2/docpilot.js" data-index="/docpilot/" defer></script>')
      expect(r.stdout).not.toContain('..')
    } finally {
      await rm(outside, { recursive: true, force: true })
    }
  }, 120_000)

  it('refuses to write into the index folder, whose next `docpilot index` would delete the widget', async () => {
    await mkdir(join(dir, 'public/docpilot'), { recursive: true })
    await writeFile(join(dir, 'public/docpilot/manifest.json'), '{}')
    const r = await run(['widget', '--out', 'public/docpilot'])
    expect(r.code).toBe(2)
    expect(r.stderr).toContain('public/docpilot holds an index (manifest.json); the next `docpilot index` replaces that folder whole and would delete the widget.')
    expect(r.stderr).toContain('--out public/docpilot-assets')
    expect(await readdir(join(dir, 'public/docpilot'))).toEqual(['manifest.json'])
  })

  it('refuses an index that is not a URL path, as a usage error', async () => {
    const r = await run(['widget', '--out', 'x', '--index', 'docpilot'])
    expect(r.code).toBe(2)
    expect(r.stderr).toMatch(/--index must be a URL path/)
  })
})

describe('the ONNX runtime note of `docpilot widget` (an installed docpilot without onnxruntime-web)', () => {
  const NOTE = 'ONNX runtime files not included: onnxruntime-web is not installed.'

  it('asks the index the script tag points at (below public/, dist/ or static/), then the default index folder', () => {
    expect(indexDirsFor('/site', 'public/docpilot-assets', '/docpilot/')).toEqual(['/site/public/docpilot', '/site/.docpilot/index'])
    expect(indexDirsFor('/site', 'static/assets/w', '/search/idx/')).toEqual(['/site/static/search/idx', '/site/.docpilot/index'])
    expect(indexDirsFor('/site', 'assets', '/docpilot/')).toEqual(['/site/.docpilot/index'])
    expect(indexDirsFor('/site', 'public/w', 'https://cdn.example.com/docpilot/')).toEqual(['/site/.docpilot/index'])
  })

  it('is printed for an index with an ONNX embedder only: not for the default static model, nor when no index is found', async () => {
    const site = await mkdtemp(join(dir, 'onnx-note-'))
    await mkdir(join(site, 'docs'))
    await writeFile(join(site, 'docs/a.md'), '# Cookies\n\nSigned cookies keep the session.')
    const indexed = await runMain(['index', 'docs', '--out', 'public/docpilot'], site, { DOCPILOT_CACHE_DIR: join(site, 'cache') })
    expect(indexed.code, indexed.stderr).toBe(0)
    const dirs = indexDirsFor(site, 'public/docpilot-assets', '/docpilot/')
    expect(await onnxNoteForIndex(NOTE, dirs)).toBeUndefined()
    expect(await onnxNoteForIndex(NOTE, [join(site, 'nowhere')])).toBeUndefined()
    // The same index, as one built with an ONNX embedder would name it.
    const manifest = JSON.parse(await readFile(join(site, 'public/docpilot/manifest.json'), 'utf8')) as { embedder: object }
    manifest.embedder = { ...manifest.embedder, id: 'hf:acme/tiny-bert', model: 'onnx:hf:acme/tiny-bert' }
    await writeFile(join(site, 'public/docpilot/manifest.json'), JSON.stringify(manifest))
    expect(await onnxNoteForIndex(NOTE, dirs)).toBe(NOTE)
    expect(await onnxNoteForIndex(undefined, dirs)).toBeUndefined()
  })
})
