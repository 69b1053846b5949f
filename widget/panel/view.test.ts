import { describe, expect, it } from 'vitest'
import { answerSources } from './links.ts'
import { givenPassages, type PassageView } from './view.ts'

const passage = (n: number): PassageView => ({ id: `p${n}`, url: `/page-${n}`, anchor: '', title: `Page ${n}`, trail: [`Page ${n}`], score: 1 - n / 10, text: `text ${n}` }) as PassageView

describe('givenPassages', () => {
  const passages = [1, 2, 3, 4].map(passage)

  it('is the first `given` passages once the turn has settled: the ones the prompt held', () => {
    expect(givenPassages({ passages, given: 2 }).map((p) => p.id)).toEqual(['p1', 'p2'])
  })

  it('is every passage while the turn is still being answered', () => {
    expect(givenPassages({ passages }).map((p) => p.id)).toEqual(['p1', 'p2', 'p3', 'p4'])
  })

  it('leaves a citation of a passage the budget kept out of the prompt uncited', () => {
    const { cited } = answerSources('Set it first [1], then read it [4].', givenPassages({ passages, given: 3 }))
    expect(cited.map((row) => row.href)).toEqual(['/page-1'])
  })
})
