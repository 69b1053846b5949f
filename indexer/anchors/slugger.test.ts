import { describe, expect, it } from 'vitest'
import { createPageSlugger, parseExplicitId, vitepressSlugify } from './slugger.ts'

const ids = (preset: Parameters<typeof createPageSlugger>[0], headings: string[]) => {
  const s = createPageSlugger(preset)
  return headings.map((h) => {
    const { text, id } = parseExplicitId(h)
    return s.slug(text, id)
  })
}

describe('vitepress preset', () => {
  // Each pair is a heading in shared/corpora/hono and the id its own links use.
  it.each([
    ['set() / get()', 'set-get'],
    ['render() / setRenderer()', 'render-setrenderer'],
    ['Building & Deployment', 'building-deployment'],
    ['header: AcceptHeader', 'header-acceptheader'],
    ['$path()', 'path'],
  ])('%s -> %s', (heading, id) => expect(vitepressSlugify(heading)).toBe(id))

  it('drops accents, prefixes a leading digit, lower-cases', () => {
    expect(vitepressSlugify('1. Setup')).toBe('_1-setup')
    expect(vitepressSlugify('Café “quoted”')).toBe('cafe-quoted')
  })

  it('suffixes duplicates -1, -2 and honours explicit ids', () => {
    expect(ids('vitepress', ['Usage', 'Usage', 'Usage', 'Other {#usage-2}', 'Custom {#my-id}'])).toEqual([
      'usage', 'usage-1', 'usage-2', 'usage-2-1', 'my-id',
    ])
  })
})

describe('github / starlight / docusaurus presets (github-slugger)', () => {
  // Ids that links inside shared/corpora/astro point at (e.g. cli-reference#--port-number, astro-assets#image-).
  it.each([
    ['--port <number>', '--port-number'],
    ['<Image />', 'image-'],
    ['client:visible={{rootMargin}}', 'clientvisiblerootmargin'],
    ['Can I use Astro without a CMS?', 'can-i-use-astro-without-a-cms'],
  ])('starlight: %s -> %s', (heading, id) => expect(ids('starlight', [heading])).toEqual([id]))

  it('github keeps runs of hyphens where VitePress collapses them', () => {
    expect(ids('github', ['Building & Deployment'])).toEqual(['building--deployment'])
    expect(ids('vitepress', ['Building & Deployment'])).toEqual(['building-deployment'])
  })

  it('suffixes duplicates -1, -2', () => {
    for (const preset of ['github', 'starlight', 'docusaurus'] as const) {
      expect(ids(preset, ['Options', 'Options', 'Options'])).toEqual(['options', 'options-1', 'options-2'])
    }
  })

  it('docusaurus: an explicit id wins and is taken as written', () => {
    expect(ids('docusaurus', ['Hello World {#my-Explicit-id}', 'Hello World'])).toEqual(['my-Explicit-id', 'hello-world'])
  })
})

describe('parseExplicitId', () => {
  it('removes a trailing {#id} from the heading text', () => {
    expect(parseExplicitId('Install the CLI {#install}')).toEqual({ text: 'Install the CLI', id: 'install' })
    expect(parseExplicitId('Object {#} literal')).toEqual({ text: 'Object {#} literal' })
    expect(parseExplicitId('No id')).toEqual({ text: 'No id' })
  })
})
