import { describe, expect, it } from 'vitest'
import type { Token, Tokens } from 'marked'
import { answerMarked } from './markdown.ts'
import { streamingMarkdown } from './streaming.ts'

describe('streamingMarkdown', () => {
  it('holds back a citation cut mid-marker until the chunk that closes it', () => {
    expect(streamingMarkdown('Set it with c.set() [1')).toBe('Set it with c.set() ')
    expect(streamingMarkdown('Set it with c.set() [1, ')).toBe('Set it with c.set() ')
    expect(streamingMarkdown('Set it with c.set() [^')).toBe('Set it with c.set() ')
    expect(streamingMarkdown('Set it with c.set()【2')).toBe('Set it with c.set()')
    // Once more text follows the marker, it is shown: a link from now on.
    expect(streamingMarkdown('Set it with c.set() [1]. Then')).toBe('Set it with c.set() [1]. Then')
  })

  it('holds back a link until its URL is whole, rather than autolinking the cut URL', () => {
    expect(streamingMarkdown('See [the guide](https://hono.dev/docs/gett')).toBe('See ')
    expect(streamingMarkdown('See [the gui')).toBe('See ')
    expect(streamingMarkdown('See [the guide](https://hono.dev/docs/) too')).toBe('See [the guide](https://hono.dev/docs/) too')
  })

  it('shows a long run after an open bracket: that is prose or code, not a marker still arriving', () => {
    const prose = `Arrays are written [ ${'and so on '.repeat(30)}`
    expect(streamingMarkdown(prose)).toBe(prose)
  })

  it('closes bold and inline code for the moment instead of showing their markers raw', () => {
    expect(streamingMarkdown('**Note')).toBe('**Note**')
    expect(streamingMarkdown('Call `c.set')).toBe('Call `c.set`')
    expect(streamingMarkdown('Call `c.set()` and **then')).toBe('Call `c.set()` and **then**')
    expect(streamingMarkdown('Call `a ** b` and **then')).toBe('Call `a ** b` and **then**')
    // A marker with nothing after it yet is left out.
    expect(streamingMarkdown('First **')).toBe('First ')
    expect(streamingMarkdown('**Note:** set')).toBe('**Note:** set')
  })

  it('closes emphasis of every kind, innermost first, and leaves stars and underscores that open nothing', () => {
    expect(streamingMarkdown('Use *onl')).toBe('Use *onl*')
    expect(streamingMarkdown('Use _onl')).toBe('Use _onl_')
    expect(streamingMarkdown('**bold with *ital')).toBe('**bold with *ital***')
    expect(streamingMarkdown('***bo')).toBe('***bo***')
    // Before the trailing space: a closer after a space closes nothing.
    expect(streamingMarkdown('**Note ')).toBe('**Note** ')
    // A run at the very end may be half of `**`, or a closer of a length not known yet.
    expect(streamingMarkdown('Use *only*')).toBe('Use *only*')
    expect(streamingMarkdown('**Note*')).toBe('**Note**')
    for (const plain of ['snake_case_na', '2 * 3 is', '* a bullet', 'a_b and c_d']) expect(streamingMarkdown(plain)).toBe(plain)
  })

  it('holds back a bare URL until a space ends it, rather than autolinking the cut URL', () => {
    expect(streamingMarkdown('See https://hono.dev/docs/gett')).toBe('See ')
    expect(streamingMarkdown('See htt')).toBe('See ')
    expect(streamingMarkdown('See https://hono.dev/docs/ too')).toBe('See https://hono.dev/docs/ too')
    expect(streamingMarkdown('Call `https://x')).toBe('Call `https://x`')
  })

  it('leaves an open code block as it is: marked already draws it as code', () => {
    const code = 'Like this:\n\n```ts\nconst x = arr[0] ** 2 // `'
    expect(streamingMarkdown(code)).toBe(code)
  })

  it('knows a code block is open when its ``` lines sit in a ~~~ or ```` fence, or deep in a list item', () => {
    for (const code of ['~~~md\n```js\nconst a = `x', '````md\n```\n```\nconst a = [1', '1. Run:\n\n   - nested:\n\n     ```js\n     const s = `a']) {
      expect(streamingMarkdown(code), code).toBe(code)
    }
  })

  it('holds back a fence, a list marker or an underline until the line shows what it is', () => {
    expect(streamingMarkdown('Like this:\n\n``')).toBe('Like this:\n\n')
    expect(streamingMarkdown('```ts\nx()\n``')).toBe('```ts\nx()\n')
    // Under a paragraph line a lone `-` is a heading's underline: "Steps:" would be a heading for a moment.
    expect(streamingMarkdown('Steps:\n-')).toBe('Steps:\n')
    expect(streamingMarkdown('Steps:\n1.')).toBe('Steps:\n')
    expect(streamingMarkdown('Steps:\n- install')).toBe('Steps:\n- install')
  })

  it("holds back a table's header row until the delimiter row under it is whole: before, it is a paragraph of pipes", () => {
    expect(streamingMarkdown('Options:\n\n| Option | Default |')).toBe('Options:\n\n')
    expect(streamingMarkdown('Options:\n\n| Option | Default |\n| --- | -')).toBe('Options:\n\n')
    const table = 'Options:\n\n| Option | Default |\n| --- | --- |\n| `port` | 30'
    expect(streamingMarkdown(table)).toBe(table)
    // Pipes that are not a table are shown once the next line says so.
    expect(streamingMarkdown('| not a table\nmore')).toBe('| not a table\nmore')
  })
})

/**
 * What the reader sees of a Markdown answer, as marked reads it: each visible character with what it is
 * (its block, then code, citation, bold or prose). Whitespace is left out: a list turning loose, or a code
 * block's last newline, changes spacing, not what is code and what is prose.
 */
function seen(markdown: string): string[] {
  const out: string[] = []
  const chars = (kind: string, text: string) => {
    for (const c of text) if (c.trim()) out.push(`${kind} ${c}`)
  }
  const walk = (tokens: readonly Token[], kind: string): void => {
    for (const t of tokens) {
      // A tight list's items hold text, a loose one's paragraphs: one more blank line decides, much later.
      const block = { paragraph: 'p', text: 'p', heading: `h${(t as Tokens.Heading).depth}`, blockquote: 'q', list_item: 'li', table: 't' }[t.type]
      if (t.type === 'code') chars(`${kind}/code-block`, (t as Tokens.Code).text)
      else if (t.type === 'codespan') chars(`${kind}/code`, (t as Tokens.Codespan).text)
      else if (t.type === 'dpcite') chars(`${kind}/cite`, t.raw)
      else if (t.type === 'em' || t.type === 'strong') walk(t.tokens ?? [], `${kind}/${t.type}`)
      else if (t.type === 'list') walk((t as Tokens.List).items, `${kind}/${(t as Tokens.List).ordered ? 'ol' : 'ul'}`)
      else if (t.type === 'hr') chars(`${kind}/hr`, '—')
      else if (t.type === 'table') for (const cell of [...(t as Tokens.Table).header, ...(t as Tokens.Table).rows.flat()]) walk(cell.tokens, `${kind}/table`)
      else if ('tokens' in t && t.tokens) walk(t.tokens, `${kind}/${block ?? t.type}`)
      else if (t.type !== 'space') chars(`${kind}/${t.type}`, 'text' in t ? String(t.text) : t.raw)
    }
  }
  walk(answerMarked([]).lexer(markdown), '')
  return out
}

describe('streamingMarkdown while the answer grows', () => {
  // The panel renders the whole answer so far on every chunk, so every chunking is covered by every prefix.
  const answers = {
    'fences, inline code and lists': [
      'Register the logger first [1]:',
      '',
      '```ts',
      "app.use('*', logger())",
      "app.get('/', (c) => c.text(`hi ${c.get('user')}`, arr[0] ** 2))",
      '```',
      '',
      'Then:',
      "- set a value with `c.set('user', u)` [2]",
      "- read it with **`c.get('user')`** in the handler",
      '',
      '1. Install: `npm i hono`',
      '2. Run it:',
      '',
      '   ```bash',
      '   npx tsx app.ts # `quoted` [1',
      '   ```',
      '',
      '   - nested, with its own block:',
      '',
      '     ```js',
      '     const s = `a ${b}` // **',
      '     ```',
      '',
      'Done [1, 2].',
    ].join('\n'),
    'a fence that shows a fence': [
      'A Markdown page holds code like this:',
      '',
      '~~~md',
      '```js',
      'run()',
      '```',
      '~~~',
      '',
      '````md',
      '```',
      'nested',
      '```',
      '````',
      '',
      'and then prose again, with `code`.',
    ].join('\n'),
    'star bullets and a quoted fence': [
      '* star bullets with `code` [1]',
      '* and **bold** text',
      '',
      '> Quoted:',
      '> ```sh',
      '> npm test -- --grep "a*b"',
      '> ```',
      '',
      'After the quote, ``a ` b`` and `end`.',
    ].join('\n'),
    'a table': ['Options [1]:', '', '| Option | Default |', '| --- | --- |', '| `port` | 3000 |', '| **host** | localhost |', '', 'Set them in the config.'].join('\n'),
    'emphasis of every kind': [
      'Use *only* the **first** match, _not_ snake_case_names, nor 2 * 3 in math; ***both*** at once.',
      '',
      '* a bullet with *emphasis [1]*',
      '* and __strong__ text, **bold with *italic* inside**',
    ].join('\n'),
    'a typical answer, with links and a bare URL': [
      'To share a value, call **`c.set()`** in the middleware [1]:',
      '',
      '```ts',
      'app.use(async (c, next) => {',
      "  c.set('user', { id: 1 })",
      '  await next()',
      '})',
      '```',
      '',
      "Then read it with `c.get('user')` [2]; see [the guide](https://hono.dev/docs/api/context) or https://hono.dev/docs/ for more.",
      '',
      '- Types: declare `Variables` in `new Hono<{ Variables: { user: User } }>()` [1].',
      '- The value lives for *one request* only.',
    ].join('\n'),
    'a paragraph followed at once by a list': ['Steps:', '- install it', '- run it', 'Then', '1. check', '2. done'].join('\n'),
  }

  for (const [name, answer] of Object.entries(answers)) {
    it(`${name}: every moment shows the start of what the whole answer shows, code as code and prose as prose`, () => {
      const whole = seen(answer)
      for (let i = 0; i <= answer.length; i++) {
        const now = seen(streamingMarkdown(answer.slice(0, i)))
        expect(now, `after ${JSON.stringify(answer.slice(Math.max(0, i - 30), i))}`).toEqual(whole.slice(0, now.length))
      }
      expect(seen(streamingMarkdown(answer))).toEqual(whole)
    })
  }
})

describe('answerMarked headings', () => {
  it("puts a model's headings under the question's h3: # is an h4, ## an h5, anything deeper an h6", () => {
    const html = answerMarked([]).parse('# Deploy\n\n## With Wrangler\n\n### Steps\n\n#### Notes\n\nRun `npm run deploy`.') as string
    expect(html.match(/<h\d/g)).toEqual(['<h4', '<h5', '<h6', '<h6'])
    expect(html).toContain('<h5>With Wrangler</h5>')
  })
})
