import { beforeAll, describe, expect, it } from 'vitest'
import { markdownFromNodes } from './page-copy.ts'
import { parseMarkdown } from './sources/markdown.ts'
import { loadHtmlParser } from './sources/html-text.ts'

// parseMarkdown is called directly here, as the parsers call it once the HTML parser is loaded.
beforeAll(() => loadHtmlParser())

const copyOf = (source: string, mdx = true) => parseMarkdown(source, { mdx, copy: true }).markdown

describe('the Markdown copy of an MDX page', () => {
  const page = `---
title: Demo
---
import { Tabs, TabItem, Aside } from '@astrojs/starlight/components'


Intro with <Since v="4.0" /> and a {'<'}tag{'>'} and <a href="/x">a link</a>.{/* hidden */}

<Aside type="tip" title="Good to know">
Asides keep their **Markdown**.
</Aside>

## Install {#setup}

1. Run:

    <Tabs>
      <TabItem label="npm">
      \`\`\`sh
      npm i demo
      \`\`\`
      </TabItem>
    </Tabs>

2. Done.

<LinkCard title="Next" href="/next/" description="Where to go." />

\`\`\`mdx
<Tabs><TabItem label="kept">code is never touched</TabItem></Tabs>
\`\`\`

export const x = 1
`

  it('drops frontmatter, ESM, component tags, comments and explicit heading ids, and keeps the Markdown inside components', () => {
    expect(copyOf(page)).toBe(
      [
        'Intro with and a \\<tag\\> and [a link](/x).',
        '',
        '**Good to know**',
        '',
        'Asides keep their **Markdown**.',
        '',
        '## Install',
        '',
        '1. Run:',
        '',
        '    **npm**',
        '',
        '    ```sh',
        '    npm i demo',
        '    ```',
        '',
        '2. Done.',
        '',
        '- [Next](/next/): Where to go.',
        '',
        '```mdx',
        '<Tabs><TabItem label="kept">code is never touched</TabItem></Tabs>',
        '```',
        '',
      ].join('\n'),
    )
  })

  it('is only cut when asked for', () => {
    expect(parseMarkdown(page, { mdx: true }).markdown).toBeUndefined()
  })

  it('keeps code blocks byte for byte, blank lines included', () => {
    const code = '```js\nconst a = 1\n\n\n\nconst b = 2   \n```\n'
    expect(copyOf(`# T\n\n${code}`)).toBe(`# T\n\n${code}`)
  })
})

describe('the Markdown copy of a plain Markdown page', () => {
  it('turns a text badge into its text and drops script blocks; ordinary HTML stays', () => {
    const source = '# Options\n\n## <Badge type="info" text="optional" /> realm: `string`\n\n<script setup>\nimport X from \'./x.vue\'\n</script>\n\n<div class="note">Plain HTML stays.</div>\n'
    expect(copyOf(source, false)).toBe('# Options\n\n## (optional) realm: `string`\n\n<div class="note">Plain HTML stays.</div>\n')
  })

  it('keeps code as written up to the line that closes its fence, what would be edited outside code included', () => {
    const code = '````md\n## Title {#id}\n<!-- note -->\n<Badge text="x" />\n\n\n```\n~~~~\n``` js\n \t````` \t\n'
    const after = '\n\n\n<!-- gone -->After.\n\n````\nx\n````\n'
    expect(copyOf(`# T\n\n${code}${after}`, false)).toBe(`# T\n\n${code}\nAfter.\n\n${after.slice(after.indexOf('`'))}`)
  })

  it('tidies a fence a dropped comment uncovers as code: its blank lines stay, and blank lines after it are made single', () => {
    const source = '# T\n\n<!-- note -->```sh\nnpm i\n\n\nnpm t\n```\n\n\n\nAfter.\n'
    expect(copyOf(source, false)).toBe('# T\n\n```sh\nnpm i\n\n\nnpm t\n```\n\nAfter.\n')
  })

  it('keeps VitePress containers and GitHub alerts as written (readable Markdown extensions)', () => {
    const source = '# T\n\n::: tip Note\nText.\n:::\n\n> [!NOTE]\n> Careful.\n'
    expect(copyOf(source, false)).toBe(source)
  })
})

describe('MDX that strict MDX would reject', () => {
  it('is copied without its ESM lines and comments, a stray brace kept as text', () => {
    const page = parseMarkdown("import A from './a'\n\n# Broken {\n\nA stray { brace and {/* comment */} gone.\n", { mdx: true, copy: true })
    expect(page.markdown).toMatch(/^# Broken \{\n\nA stray \{ brace and +gone\.\n$/)
  })
})

describe('a page read from built HTML', () => {
  it('becomes its headings and text blocks', () => {
    expect(markdownFromNodes([{ type: 'heading', depth: 1, text: 'Title' }, { type: 'text', text: 'Body.' }, { type: 'heading', depth: 2, text: 'Part' }])).toBe('# Title\n\nBody.\n\n## Part\n')
  })
})
