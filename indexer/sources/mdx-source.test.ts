import { describe, expect, it } from 'vitest'
import { mdxToMarkdown } from './mdx-source.ts'

const index = (mdx: string) => mdxToMarkdown(mdx).index
const copy = (mdx: string) => mdxToMarkdown(mdx).copy

describe('MDX as Markdown', () => {
  it('drops ESM blocks up to the next blank line, and nothing that merely starts with "import"', () => {
    const out = index("import A from './a'\nimport {\n  B,\n} from './b'\n\nimport the module first.\n\nexport const x = 1\n")
    expect(out).not.toMatch(/from|export|B,/)
    expect(out).toContain('import the module first.')
  })

  it('removes components written on lines of their own, over several lines too, and keeps their children', () => {
    const out = index('<Aside type="tip">\nKeep **this**.\n</Aside>\n\n<LinkCard\n  title="Next"\n  href="/next/"\n/>\n\n<Code code={`a > b`} lang="js" />\n')
    expect(out.trim()).toBe('Keep **this**.')
  })

  it('moves indented children back to their component, so they are not read as indented code', () => {
    const out = index('<Tabs>\n  <TabItem label="npm">\n  ```sh\n  npm i\n  ```\n  </TabItem>\n</Tabs>\n')
    expect(out.split('\n').filter((l) => l.trim())).toEqual(['```sh', 'npm i', '```'])
    const prose = index('<Steps>\n\n    Plain words.\n    Words with `code`.\n\n</Steps>\n')
    expect(prose.split('\n').filter((l) => l.trim())).toEqual(['Plain words.', 'Words with `code`.'])
  })

  it('closes a fence at any indentation, as MDX does, and places a top-level indented fence at column 0', () => {
    const out = index('<Tabs>\n  <Fragment>\n    ```js\n    a()\n  ```\n  </Fragment>\n</Tabs>\n\nText\n\n    ```bash\n    npm run dev\n    ```\n')
    expect(out.split('\n').filter((l) => l.trim())).toEqual(['```js', 'a()', '```', 'Text', '```bash', 'npm run dev', '```'])
  })

  it('copies code as it is written up to the line that closes its fence, and to the end when none does', () => {
    const code = [
      '````md',
      '```js',
      '<Aside>{x}</Aside> `a` \\<b>',
      '~~~~',
      '``` not a close',
      '```',
      ' \t````` \t',
      "after {'<'}",
      '',
      '~~~',
      '{z}',
      '',
      '  ````',
      '~~~',
    ].join('\n')
    // The closing line goes to the fence's column, as MDX closes a fence at any indentation (see below).
    expect(index(code)).toBe(code.replace(' \t````` \t', '````` \t').replace("after {'<'}", 'after \\<'))
    expect(index('```\nA {x}\n\n<Tabs>\n')).toBe('```\nA {x}\n\n<Tabs>\n')
    expect(index("```\n```\nText {'<'}\n")).toBe('```\n```\nText \\<\n')
  })

  it('keeps a component inside a line as a plain inline HTML tag with its string attributes', () => {
    expect(index('Intro <Badge text="new" variant={v} /> and <Tabs.Item>x</Tabs.Item>.\n')).toBe('Intro <Badge text="new" /> and <Tabs-Item>x</Tabs-Item>.\n')
  })

  it('resolves expressions: string literals stay as escaped text, others and comments vanish; code is untouched', () => {
    expect(index("A {'<'}tag{'>'} {1 + 1} {/* note */} and `{x}`.\n")).toBe('A \\<tag\\> and `{x}`.\n')
    expect(index('```js\nconst o = {a: 1}\n```\n')).toBe('```js\nconst o = {a: 1}\n```\n')
  })

  it('keeps an explicit heading id for the heading rule', () => {
    expect(index('## Setup {#setup}\n')).toBe('## Setup {#setup}\n')
  })

  it("reads Docusaurus's `{/* #id */}` closing a heading as its id; other comments, and comments elsewhere, just vanish", () => {
    expect(mdxToMarkdown('### Example configuration {/* #ex-config */}\n')).toEqual({ index: '### Example configuration {#ex-config}\n', copy: '### Example configuration \n' })
    expect(index('## Setup {/* a note */}\n')).toBe('## Setup \n')
    expect(index('## Setup {/* #a */ /* #b */}\n')).toBe('## Setup \n')
    expect(index('Text {/* #x */}\n')).toBe('Text \n')
  })

  it('leaves a construct that never closes as text (strict MDX would reject the page)', () => {
    expect(index('Set it to {true to enable.\n\nAn arrow a < b.\n\nAfter {"x"}.\n')).toBe('Set it to {true to enable.\n\nAn arrow a < b.\n\nAfter x.\n')
  })

  it('gives the copy labels, cards and links, and nothing of the tags', () => {
    const out = copy('<Aside title="Good to know">\nText with <a href="/x">a link</a> and <Since v="4" /> more.\n</Aside>\n\n<LinkCard title="Next" href="/next/" description="Go on." />\n')
    expect(out.split('\n').filter((l) => l.trim())).toEqual(['**Good to know**', 'Text with [a link](/x) and more.', '- [Next](/next/): Go on.'])
  })
})
