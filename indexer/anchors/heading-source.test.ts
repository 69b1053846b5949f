import { beforeAll, describe, expect, it } from 'vitest'
import type { SluggerName } from '../../core/config/schema.ts'
import { loadHtmlParser } from '../sources/html-text.ts'
import { parseMarkdown } from '../sources/markdown.ts'
import { toSections } from '../sections.ts'

beforeAll(() => loadHtmlParser())

/** The id docpilot gives the one heading of a page, from the heading as written in Markdown. */
const idOf = (heading: string, generator: SluggerName, mdx = false) =>
  toSections(parseMarkdown(`# Page\n\n${heading}\n\ntext\n`, { mdx }), generator, 'page').sections[1]!.anchor

// Each expected id is the one the generator itself gave the same heading, rendered alone on a page:
// VitePress 1.6.4 (createMarkdownRenderer), Astro 5.18 (@astrojs/markdown-remark createMarkdownProcessor, headingIdCompat
// as Starlight sites set it and Astro 6 does), Docusaurus 3.10 (mdx-loader's processor with the default markdown config).

describe('VitePress: what markdown-it-anchor slugs (getTokensText: text and code_inline tokens)', () => {
  // VitePress's restoreEntities puts each character reference back as written, and an escaped & as &amp;,
  // when it joins the text tokens; a reference with no text token beside it stays its own token, decoded.
  it.each([
    ['## A &amp; B &lt;c&gt;', 'a-amp-b-lt-c-gt'],
    ['## A &#x26; B', 'a-x26-b'],
    ['## A \\& B', 'a-amp-b'],
    ['## &amp; alone', 'amp-alone'],
    ['## `x`&amp;`y`', 'x-y'],
  ])('character references: %s -> #%s', (heading, id) => expect(idOf(heading, 'vitepress')).toBe(id))

  it('the github-slugger generators slug the decoded character', () => {
    for (const generator of ['starlight', 'docusaurus'] as const) expect(idOf('## A &amp; B', generator)).toBe('a--b')
  })
})

describe('VitePress: an emoji shortcode is an emoji token, which markdown-it-anchor leaves out of the id', () => {
  it.each([
    ['## Party :tada:', 'party'],
    ['## :rocket: Launch', 'launch'],
    ['## :rocket::tada: Two', 'two'],
    ['## :+1: yes', 'yes'],
    ['## **:rocket:** Bold `code`', 'bold-code'],
    // Not shortcodes standing as words: VitePress keeps these words in the id.
    ['## astro:build:done hook', 'astro-build-done-hook'],
    ['## 10:30:00', '_10-30-00'],
    ['## `:tada:` in code', 'tada-in-code'],
  ])('%s -> #%s', (heading, id) => expect(idOf(heading, 'vitepress')).toBe(id))

  it('the github-slugger generators slug the shortcode as text (Docusaurus turns it into an emoji only after its ids)', () => {
    for (const generator of ['starlight', 'docusaurus'] as const) expect(idOf('## Party :tada:', generator)).toBe('party-tada')
  })
})

describe('VitePress: an attribute block closing a heading (markdown-it-attrs) is no text, and its #name is the id', () => {
  it.each([
    ['## Styled {.cls}', 'styled'],
    ['## Both {#my-id .cls}', 'my-id'],
    ['## Both {.cls #my-id}', 'my-id'],
    ['## Title {#foo.bar}', 'foo.bar'],
    ['## Use {foo}', 'use'],
    ['## `code` {.a}', 'code'],
    ['## Title {#custom}', 'custom'],
    // Only the last block is attributes; one not closing the heading is text.
    ['## Title {#a}{.b}', 'title-a'],
    ['## Title {#a} more', 'title-a-more'],
    ['## Hi {{ 1 + 1 }}', 'hi-1-1'],
  ])('%s -> #%s', (heading, id) => expect(idOf(heading, 'vitepress')).toBe(id))

  it('Docusaurus takes all of a {#...} block as the id, and the other github-slugger generators slug a class block as text', () => {
    expect(idOf('## Both {#my-id .cls}', 'docusaurus')).toBe('my-id .cls')
    expect(idOf('## Styled {.cls}', 'docusaurus')).toBe('styled-cls')
  })
})

describe('Astro and Docusaurus: the text content is slugged as it is, every space a -', () => {
  it.each([
    ['## Title <img src="x.png" />', 'title-'],
    ['## Title <br/>', 'title-'],
    ['## Title <!-- note -->', 'title-'],
    ['## <code>hydrate()</code> <span class="since">2.1</span>', 'hydrate-21'],
    ['## A  B', 'a--b'],
  ])('%s -> #%s', (heading, id) => {
    for (const generator of ['starlight', 'docusaurus'] as const) expect(idOf(heading, generator)).toBe(id)
  })

  it('MDX: a self-closing component closing the heading leaves the space before it (Docusaurus: #hydrate-)', () => {
    expect(idOf('## <code>hydrate()</code> <Since v="2.1" />', 'docusaurus', true)).toBe('hydrate-')
  })

  it('VitePress trims what its slugify makes of the ends, and one - stands for any run of spaces', () => {
    expect(idOf('## Title <img src="x.png" />', 'vitepress')).toBe('title')
    expect(idOf('## A  B', 'vitepress')).toBe('a-b')
  })
})

describe('an image in a heading: its alt text is in the id on Docusaurus only', () => {
  it.each([
    ['## ![logo](https://x.io/y.png) Title', { vitepress: 'title', starlight: '-title', docusaurus: 'logo-title' }],
    ['## Title ![alt](https://x.io/y.png)', { vitepress: 'title', starlight: 'title-', docusaurus: 'title-alt' }],
    ['## [![badge](https://x.io/y.png)](https://z.io) Title', { vitepress: 'title', starlight: '-title', docusaurus: 'badge-title' }],
  ])('%s', (heading, ids) => {
    for (const [generator, id] of Object.entries(ids)) expect(idOf(heading, generator as SluggerName)).toBe(id)
  })
})

describe('Starlight: remark-smartypants makes two hyphens in text an em dash before Astro slugs it', () => {
  it.each([
    ['## a -- b', 'a--b'],
    ['## a--b', 'ab'],
    ['## --port', 'port'],
    ['## a --- b', 'a-----b'],
    ['## a -- `c -- d`', 'a--c----d'],
    ['## a\\--b', 'ab'],
    ['## **a**--b', 'ab'],
    ['## `--port <number>`', '--port-number'],
  ])('%s -> #%s', (heading, id) => {
    expect(idOf(heading, 'starlight')).toBe(id)
    expect(idOf(heading, 'starlight', true)).toBe(id)
  })

  it('Docusaurus has no smartypants: each hyphen stays', () => {
    expect(idOf('## a -- b', 'docusaurus')).toBe('a----b')
  })
})

describe('Docusaurus: a text directive (remark-directive) is parsed before the id is made, and its name is not in it', () => {
  it.each([
    ['## GET /users/:id', 'get-users'],
    ['## Drupal JSON:API URL', 'drupal-json-url'],
    ['## a :abbr[HTML]{title="x"} b', 'a-html-b'],
    ['## x :foo_bar y', 'x--y'],
    ['## 10:30 :a1 z', '1030--z'],
    // Not directives: after a colon, before a colon, a name ending in -, or in code.
    ['## std::vector', 'stdvector'],
    ['## a :b:c', 'a-b'],
    ['## x :foo- y', 'x-foo--y'],
    ['## `GET /users/:id`', 'get-usersid'],
  ])('%s -> #%s', (heading, id) => {
    expect(idOf(heading, 'docusaurus')).toBe(id)
    expect(idOf(heading, 'docusaurus', true)).toBe(id)
  })

  it('Starlight puts unused directives back before Astro makes the id (its directives restoration)', () => {
    expect(idOf('## Drupal JSON:API URL', 'starlight')).toBe('drupal-jsonapi-url')
  })
})

describe('a footnote reference in a heading', () => {
  // Astro's id has the note's number, which counts the page's citations in order (remark-gfm, mdast-util-to-hast);
  // Docusaurus's toString counts no footnoteReference; VitePress, with no footnote plugin, slugs `[^1]` as text.
  // A reference to a label no definition has is text on all three.
  it.each([
    ['## Title[^1]\n\n[^1]: https://example.com/source', { starlight: 'title1', vitepress: 'title-1', docusaurus: 'title' }],
    ['## Title[^1]\n\n[^1]: A longer note.', { starlight: 'title1', vitepress: 'title-1', docusaurus: 'title' }],
    ['Intro[^b] text.\n\n## Title[^a] and[^b]\n\n[^a]: A note.\n\n[^b]: B note.', { starlight: 'title2-and1', vitepress: 'title-a-and-b', docusaurus: 'title-and' }],
    ['## Title[^A]\n\n[^a]: Labels match whatever their case.', { starlight: 'title1', vitepress: 'title-a', docusaurus: 'title' }],
    ['## Title[^x]', { starlight: 'titlex', vitepress: 'title-x', docusaurus: 'titlex' }],
  ])('%s', (heading, ids) => {
    for (const [generator, id] of Object.entries(ids)) expect(idOf(heading, generator as SluggerName)).toBe(id)
  })
})
