import { describe, expect, it } from 'vitest'
import type { ChunkRecord } from '../core/index/format.ts'
import { demoPages, renderPage } from './demo-pages.ts'

const shell = { assetBase: '/docpilot-assets/', indexUrl: '/docpilot/' }
const chunk = (text: string, anchor = 'install'): ChunkRecord => ({ id: `guide.md#${anchor}`, path: 'guide.md', url: '/guide', anchor, title: 'Guide', trail: ['Guide', 'Install'], text })

describe('the demo pages', () => {
  it('show prose as paragraphs, code as preformatted lines and tables as tables, escaped', () => {
    const text = [
      'npm init -y makes a project that is CommonJS, whatever <script>alert(1)</script> says.',
      'npm init -y\nnpx docpilot index docs',
      'Flag | Meaning\n--out | where the index goes',
    ].join('\n\n')
    const pages = demoPages([chunk(text)])
    const html = renderPage(pages[0]!, pages, shell)
    expect(html).toContain('<p>npm init -y makes a project that is CommonJS, whatever &#60;script&#62;alert(1)&#60;/script&#62; says.</p>')
    expect(html).toContain('<pre><code>npm init -y\nnpx docpilot index docs</code></pre>')
    expect(html).toContain('<thead><tr><th>Flag</th><th>Meaning</th></tr></thead><tbody><tr><td>--out</td><td>where the index goes</td></tr></tbody>')
    expect(html).not.toContain('<script>alert')
  })

  it('puts a code block that overlapping windows cut at a blank line back together, each paragraph once', () => {
    const pages = demoPages([chunk('Run these.\n\nconst a = 1;\n\nconst b = 2;'), chunk('const a = 1;\n\nconst b = 2;\n\nThat is all.')])
    const html = renderPage(pages[0]!, pages, shell)
    expect(html).toContain('<p>Run these.</p>\n<pre><code>const a = 1;\n\nconst b = 2;</code></pre>\n<p>That is all.</p>')
  })
})
