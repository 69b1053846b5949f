/** `docpilot eval` run through the CLI's main: mostly with saved `docpilot query` output (--results), so no index is needed; gold paths are checked against a small index. */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runMain } from '../test-helpers.ts'

let dir: string

const run = (argv: string[]) => runMain(argv, dir)

const RESULTS = JSON.stringify({
  id: 'a',
  mode: 'lexical',
  gate: { pass: true, score: 1 },
  results: [{ path: 'helpers/cookie.md', trail: ['Cookie Helper', 'Usage', 'Signed cookies'] }],
})

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'docpilot-eval-'))
  await writeFile(join(dir, 'out.jsonl'), RESULTS + '\n')
})
afterAll(() => rm(dir, { recursive: true, force: true }))

describe('docpilot eval', () => {
  it('scores a well-formed gold entry', async () => {
    await writeFile(join(dir, 'good.jsonl'), JSON.stringify({ id: 'a', q: 'signed cookies', kind: 'keyword', gold: [{ path: 'helpers/cookie.md', trail: ['Cookie Helper', 'Usage', 'Signed cookies'] }] }) + '\n')
    const r = await run(['eval', '--questions', 'good.jsonl', '--results', 'out.jsonl'])
    expect(r.stderr).toBe('')
    expect(r.stdout).toMatch(/keyword\s+1\s+1\.00/)
  })

  it.each([
    ['without its results', { id: 'a', mode: 'hybrid', gate: { pass: true, score: 1 } }],
    ['with a result lacking its trail', { id: 'a', mode: 'hybrid', gate: { pass: true, score: 1 }, results: [{ path: 'helpers/cookie.md' }] }],
    ['that is null', null],
  ])('names the line of a --results line %s, instead of a TypeError', async (_, line) => {
    await writeFile(join(dir, 'good.jsonl'), JSON.stringify({ id: 'a', q: 'signed cookies', kind: 'keyword', gold: [{ path: 'helpers/cookie.md', trail: ['Cookie Helper'] }] }) + '\n')
    await writeFile(join(dir, 'bad-out.jsonl'), RESULTS + '\n' + JSON.stringify(line) + '\n')
    const r = await run(['eval', '--questions', 'good.jsonl', '--results', 'bad-out.jsonl'])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('bad-out.jsonl:2: not a `docpilot query --questions` output line; each holds {"id","mode","gate":{"pass","score"},"results":[{"path","trail",...}]}')
  })

  it.each([
    ['without its trail', { path: 'helpers/cookie.md' }],
    ['without its path', { trail: ['Cookie Helper'] }],
    ['with the trail as one string', { path: 'helpers/cookie.md', trail: 'Cookie Helper › Usage' }],
    ['as a bare path', 'helpers/cookie.md'],
  ])('names the question and the field of a gold entry %s, and the shape it needs, instead of a TypeError', async (_, gold) => {
    await writeFile(join(dir, 'bad.jsonl'), JSON.stringify({ id: 'a', q: 'signed cookies', kind: 'keyword', gold: [gold] }) + '\n')
    const r = await run(['eval', '--questions', 'bad.jsonl', '--results', 'out.jsonl'])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('bad.jsonl: question "a": gold[0] must be {"path","trail"}')
    expect(r.stderr).not.toContain('Cannot read properties')
  })

  it('names a question whose kind is none of the three, instead of scoring it as off-topic', async () => {
    await writeFile(join(dir, 'kind.jsonl'), JSON.stringify({ id: 'w', q: 'signed cookies', kind: 'offtopic', gold: [] }) + '\n')
    const r = await run(['eval', '--questions', 'kind.jsonl', '--results', 'out.jsonl'])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain('kind.jsonl: question "w": "kind" is "offtopic"; it must be one of "paraphrase", "keyword", "off-topic"')
  })

  it('warns that answerable questions with no gold section are scored as off-topic (a fresh `insights --export`)', async () => {
    await writeFile(join(dir, 'ungraded.jsonl'), JSON.stringify({ id: 'u', q: 'signed cookies', kind: 'paraphrase', gold: [] }) + '\n')
    const r = await run(['eval', '--questions', 'ungraded.jsonl', '--results', 'out.jsonl'])
    expect(r.code).toBe(0)
    expect(r.stderr).toContain('warning: ungraded.jsonl: 1 question(s) of kind paraphrase or keyword have no gold section ("u"), so they are scored as off-topic')
  })

  describe('searching an index', () => {
    beforeAll(async () => {
      const docs = join(dir, 'docs')
      await mkdir(join(docs, 'guide'), { recursive: true })
      await writeFile(join(docs, 'guide', 'cookies.md'), '# Cookies\n\n## Signed cookies\n\nUse setSignedCookie with a secret.\n')
      expect((await run(['index', 'docs', '--out', 'idx', '--no-llms'])).code).toBe(0)
      const question = (id: string, path: string) => JSON.stringify({ id, q: 'signed cookies', kind: 'keyword', gold: [{ path, trail: ['Cookies', 'Signed cookies'] }] })
      await writeFile(join(dir, 'paths.jsonl'), [question('a', 'docs/guide/cookies.md'), question('b', 'docs/guide/cookies.md'), question('c', 'guide/cookies.md')].join('\n') + '\n')
    }, 120_000)

    it('warns of a gold path no page of the index has, with the path it probably meant', async () => {
      const r = await run(['eval', '--index', 'idx', '--questions', 'paths.jsonl'])
      expect(r.code).toBe(0)
      expect(r.stdout).not.toContain('note: --k')
      expect(r.stderr).toBe(
        'warning: paths.jsonl: no page of the index has the gold path "docs/guide/cookies.md" ("a", "b"), so it is never found; ' +
          'gold paths are relative to the folder that was indexed: did you mean "guide/cookies.md"?\n',
      )
    })

    it('warns of a gold heading trail no section of the page has, with the trail it probably meant', async () => {
      await writeFile(join(dir, 'trail.jsonl'), JSON.stringify({ id: 't', q: 'signed cookies', kind: 'keyword', gold: [{ path: 'guide/cookies.md', trail: ['Cookies', 'Signed cookie'] }] }) + '\n')
      const r = await run(['eval', '--index', 'idx', '--questions', 'trail.jsonl'])
      expect(r.code).toBe(0)
      expect(r.stderr).toBe('warning: trail.jsonl: question "t": no section of guide/cookies.md has the heading trail ["Cookies","Signed cookie"], so it is never found; did you mean ["Cookies","Signed cookies"]?\n')
    })

    it('is quiet about a gold section the page holds, however its headings are cased or spaced', async () => {
      await writeFile(join(dir, 'fine.jsonl'), JSON.stringify({ id: 'f', q: 'cookies', kind: 'keyword', gold: [{ path: 'guide/cookies.md', trail: ['Cookies'] }, { path: 'guide/cookies.md', trail: ['cookies', 'signed  cookies'] }] }) + '\n')
      expect((await run(['eval', '--index', 'idx', '--questions', 'fine.jsonl'])).stderr).toBe('')
    })

    it('says when --k cuts the list below what R@3 and R@8 count', async () => {
      const one = await run(['eval', '--index', 'idx', '--questions', 'paths.jsonl', '--k', '1'])
      expect(one.stdout).toContain('note: --k 1 keeps the top 1 of each question, so R@3, R@8, MRR@8 see only those')
      const five = await run(['eval', '--index', 'idx', '--questions', 'paths.jsonl', '--k', '5'])
      expect(five.stdout).toContain('note: --k 5 keeps the top 5 of each question, so R@8, MRR@8 see only those')
    })
  })
})
