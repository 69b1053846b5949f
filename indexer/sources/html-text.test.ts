import { beforeAll, describe, expect, it } from 'vitest'
import { htmlFragmentText, loadHtmlParser } from './html-text.ts'
import { parseMarkdown } from './markdown.ts'

beforeAll(() => loadHtmlParser())

describe('template placeholders in HTML inside Markdown', () => {
  // hono's docs/examples/index.md: VitePress fills the list in from its data at render time.
  const examples = `# Examples

In this section, you can see practical examples.

<div v-for="sections of data">
  <section v-for="category of sections">
    <h2>{{ category.text }}</h2>
    <ul v-for="item of category.items">
      <li><a :href="item.link">{{ item.text }}</a></li>
    </ul>
  </section>
</div>
`

  it('are not indexed as words: the reader sees what the template fills in, not the placeholder', () => {
    expect(parseMarkdown(examples, { mdx: false }).nodes.filter((n) => n.type === 'text')).toEqual([{ type: 'text', text: 'In this section, you can see practical examples.' }])
  })

  it('leave the text around them', () => {
    expect(htmlFragmentText('<p>Version {{ version }} is out, {{a}}{{b}} twice</p>')).toBe('Version is out, twice')
  })

  it('stay in code, where the docs show template syntax', () => {
    expect(htmlFragmentText('<p>Write <code>{{ title }}</code> in <pre>{{ page.title }}</pre></p>')).toBe('Write {{ title }} in\n\n{{ page.title }}')
  })

  it('are only HTML: a Markdown paragraph keeps its braces', () => {
    expect(parseMarkdown('Use {{ name }} here.\n', { mdx: false }).nodes).toEqual([{ type: 'text', text: 'Use {{ name }} here.' }])
  })
})
