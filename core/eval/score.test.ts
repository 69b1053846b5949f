import { describe, expect, it } from 'vitest'
import { firstHit, matchesGold, parseQuestions, scoreRun, type EvalQuestion, type QueryOutput } from './score.ts'

const gold = { path: 'docs/helpers/cookie.md', trail: ['Cookie Helper', 'Usage', 'Signed cookies'] }
const at = (trail: string[], path = gold.path) => ({ path, trail })

describe('matchesGold (shared/eval/README.md scoring rule)', () => {
  it('accepts the gold section itself', () => {
    expect(matchesGold(at(['Cookie Helper', 'Usage', 'Signed cookies']), gold)).toBe(true)
  })
  it('accepts a parent section with at least two elements', () => {
    expect(matchesGold(at(['Cookie Helper', 'Usage']), gold)).toBe(true)
  })
  it('rejects the page title alone when the gold is a deeper section', () => {
    expect(matchesGold(at(['Cookie Helper']), gold)).toBe(false)
  })
  it('accepts a piece inside the gold section', () => {
    expect(matchesGold(at(['Cookie Helper', 'Usage', 'Signed cookies', 'Options']), gold)).toBe(true)
  })
  it('accepts any section of the page when the gold is the page title alone', () => {
    const page = { path: gold.path, trail: ['Cookie Helper'] }
    expect(matchesGold(at(['Cookie Helper']), page)).toBe(true)
    expect(matchesGold(at(['Cookie Helper', 'Usage']), page)).toBe(true)
  })
  it('rejects a sibling section and another path', () => {
    expect(matchesGold(at(['Cookie Helper', 'Usage', 'Regular cookies']), gold)).toBe(false)
    expect(matchesGold(at(gold.trail, 'docs/helpers/other.md'), gold)).toBe(false)
  })
  it('compares trail elements lower-cased, keeping only a-z and 0-9', () => {
    expect(matchesGold(at(['cookie helper!', 'USAGE', 'Signed  Cookies']), { path: gold.path, trail: ['CookieHelper', 'usage', 'signed-cookies'] })).toBe(true)
  })
})

const q = (id: string, kind: EvalQuestion['kind'], hasGold = true): EvalQuestion => ({ id, q: id, kind, gold: hasGold ? [gold] : [] })
const out = (id: string, hitAt: number, pass = true): QueryOutput => ({
  id,
  mode: 'lexical',
  gate: { pass, score: 0.5 },
  results: Array.from({ length: 8 }, (_, i) => (i === hitAt ? at(gold.trail) : at(['Other'], 'docs/other.md'))),
})

describe('scoreRun', () => {
  it('reports recall@1/3/8 and MRR@8 by kind, and the gate figures', () => {
    const questions = [q('a', 'keyword'), q('b', 'keyword'), q('c', 'paraphrase'), q('d', 'paraphrase'), q('x', 'off-topic', false), q('y', 'off-topic', false)]
    const outputs = [out('a', 0), out('b', 2), out('c', 7, false), out('d', -1), out('x', -1, false), out('y', -1, true)]
    const r = scoreRun(questions, outputs)
    expect(r.byKind.keyword).toEqual({ count: 2, recall: { 1: 0.5, 3: 1, 8: 1 }, mrr: (1 + 1 / 3) / 2 })
    expect(r.byKind.paraphrase).toEqual({ count: 2, recall: { 1: 0, 3: 0, 8: 0.5 }, mrr: 1 / 8 / 2 })
    expect(r.byKind.all!.recall[8]).toBe(0.75)
    expect(r.gate).toEqual({ offTopic: 2, offTopicRefused: 0.5, answerable: 4, answerableRefused: 0.25 })
    expect(r.misses).toEqual(['d'])
  })
  it('counts a question with no output line as a miss and a refusal', () => {
    const r = scoreRun([q('a', 'keyword')], [])
    expect(r.missing).toEqual(['a'])
    expect(r.byKind.keyword!.recall[8]).toBe(0)
    expect(r.gate.answerableRefused).toBe(1)
  })
  it('only looks at the first 8 results', () => {
    const o = out('a', -1)
    o.results.push(at(gold.trail))
    expect(firstHit(q('a', 'keyword'), o)).toBe(-1)
  })
})

describe('parseQuestions', () => {
  it('names the line of a malformed entry', () => {
    expect(() => parseQuestions('{"id":"1","q":"x"}\n{oops', 'set.jsonl')).toThrow('set.jsonl:2: not valid JSON')
    expect(() => parseQuestions('{"id":1}', 'set.jsonl')).toThrow('set.jsonl:1:')
  })

  it('names the line of valid JSON that is not an object, rather than failing inside', () => {
    for (const line of ['null', '[]', '"How do I deploy?"', '42']) {
      expect(() => parseQuestions(`{"id":"1","q":"x"}\n${line}`, 'set.jsonl'), line).toThrow('set.jsonl:2: not an object')
    }
  })
})

describe('parseQuestions: the optional context of a follow-up', () => {
  it('keeps a follow-up question\'s earlier questions, oldest first', () => {
    const [f, plain] = parseQuestions('{"id":"f","q":"And on Deno?","context":["How do I deploy to Cloudflare?"]}\n{"id":"p","q":"x"}', 'f.jsonl')
    expect(f!.context).toEqual(['How do I deploy to Cloudflare?'])
    expect(plain).not.toHaveProperty('context')
  })
  it('refuses a context that is not a list of strings, naming the line and the fix', () => {
    expect(() => parseQuestions('{"id":"f","q":"And on Deno?","context":"How do I deploy?"}', 'f.jsonl')).toThrow(
      /f\.jsonl:1: "context" must be a list of earlier questions, oldest first, e\.g\. "context": \["How do I deploy to Cloudflare\?"\]/,
    )
  })
})
