import { describe, expect, it } from 'vitest'
import { textBlocks } from './blocks.ts'

describe('textBlocks', () => {
  it('reads a table back from " | " rows with the same number of cells', () => {
    const text = 'Bundles the app for one target.\n\nFlag | Default | Meaning\n--target | node | Runtime to build for\n--outdir | dist | Output folder (emptied first)'
    expect(textBlocks(text)).toEqual([
      { kind: 'prose', text: 'Bundles the app for one target.' },
      { kind: 'table', rows: [['Flag', 'Default', 'Meaning'], ['--target', 'node', 'Runtime to build for'], ['--outdir', 'dist', 'Output folder (emptied first)']] },
    ])
  })

  it('keeps code as written: indentation, aligned columns, commands, calls', () => {
    const routes = 'GET     /                 [logger]\nGET     /api/health       [logger, cors]'
    const fn = "app.use(async (c, next) => {\n  await next()\n})"
    for (const code of [routes, fn, 'npm create lumen@latest my-app', "import { Lumen } from 'lumen'", 'app.use(echoMiddleware)', 'lumen dev [--port 3000] [--open]']) {
      expect(textBlocks(code), code).toEqual([{ kind: 'code', text: code }])
    }
  })

  it('joins the soft-wrapped lines of prose, even prose that names code', () => {
    expect(textBlocks('Run npx lumen --help for\nthe list of commands.')).toEqual([{ kind: 'prose', text: 'Run npx lumen --help for the list of commands.' }])
    expect(textBlocks('You can set a status with c.status(). The default is 200.')[0]!.kind).toBe('prose')
    expect(textBlocks('npm does not install peer dependencies by default.')[0]!.kind).toBe('prose')
    expect(textBlocks('Parse the request body of type multipart/form-data')[0]!.kind).toBe('prose')
  })

  it('reads a one-line paragraph that opens with a tag or a tool name as prose, and one-line code as code', () => {
    expect(textBlocks('<TabItem>, the text of an <Aside> (its title or label as a bold line), a badge in parentheses.')[0]!.kind).toBe('prose')
    expect(textBlocks('npm init -y makes a project that is CommonJS, whatever it says.')[0]!.kind).toBe('prose')
    expect(textBlocks('return 404 when the route is not found, and log the request.')[0]!.kind).toBe('prose')
    for (const code of ['  --port <n>    Port to listen on.', '└── index.ts — the entry point of the site.', '// Use the cache when the key is set.', 'import { Hono } from \'hono\'', 'npm install hono', '$ npx docpilot index docs', 'export default { fetch: app.fetch };'])
      expect([code, textBlocks(code)[0]!.kind]).toEqual([code, 'code'])
  })

  it('puts a code block split by a blank line back together', () => {
    expect(textBlocks('const a = 1;\n\nconst b = 2;\n\nThat is all.')).toEqual([
      { kind: 'code', text: 'const a = 1;\n\nconst b = 2;' },
      { kind: 'prose', text: 'That is all.' },
    ])
  })
})
