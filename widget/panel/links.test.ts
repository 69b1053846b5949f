import { describe, expect, it } from 'vitest'
import { answerSources, answerWithSources, pageGroups, sectionLabel, sectionRows } from './links.ts'

const p = (url: string, anchor: string, trail: string[]) => ({ url, anchor, title: trail[0]!, trail })
const set = p('/api/context', 'set-get', ['Context', 'set() / get()'])
const setAgain = p('/api/context', 'set-get', ['Context', 'set() / get()'])
const typing = p('/api/context', 'typing', ['Context', 'Typing'])
const params = p('/guide/routing', 'params', ['Routing', 'Path parameters'])
const intro = p('/guide/routing', '', ['Routing'])

describe('sectionRows', () => {
  it('one row per section, at the rank of its best passage, holding every [n] of the section', () => {
    expect(sectionRows([set, setAgain, typing]).map((r) => [r.href, r.numbers])).toEqual([
      ['/api/context#set-get', [1, 2]],
      ['/api/context#typing', [3]],
    ])
  })
})

describe('answerSources', () => {
  it('cited sections in the order the answer first cites them, the rest after', () => {
    const { cited, uncited } = answerSources('Typing helps [3]. Use set [2], see [9].', [set, setAgain, typing, params])
    expect(cited.map((r) => r.href)).toEqual(['/api/context#set-get', '/api/context#typing'])
    expect(uncited.map((r) => r.href)).toEqual(['/guide/routing#params'])
  })

  it('an answer without markers cites nothing: every section is listed as uncited', () => {
    expect(answerSources('No markers here.', [set, params]).uncited).toHaveLength(2)
  })
})

describe('pageGroups', () => {
  it('groups sections under their page, pages in the order of their best result', () => {
    const groups = pageGroups([params, set, intro, typing])
    expect(groups.map((g) => [g.url, g.title, g.sections.map((s) => s.href)])).toEqual([
      ['/guide/routing', 'Routing', ['/guide/routing#params', '/guide/routing']],
      ['/api/context', 'Context', ['/api/context#set-get', '/api/context#typing']],
    ])
    expect(sectionLabel(params)).toBe('Path parameters')
    expect(sectionLabel(intro)).toBe('Routing')
  })
})

describe('answerWithSources', () => {
  it('appends the cited sections as full links', () => {
    expect(answerWithSources('Use set [1].', [set, params], 'https://docs.example.com/guide/')).toBe(
      'Use set [1].\n\nSources:\n[1] Context › set() / get(): https://docs.example.com/api/context#set-get',
    )
    expect(answerWithSources('No markers.', [set], 'https://docs.example.com/')).toBe('No markers.')
  })
})
