import { describe, expect, it } from 'vitest'
import { answerSources } from './links.ts'
import { givenPassages, promptHistory, searchContext, type PassageView, type TurnView } from './view.ts'

const passage = (n: number): PassageView => ({ id: `p${n}`, url: `/page-${n}`, anchor: '', title: `Page ${n}`, trail: [`Page ${n}`], score: 1 - n / 10, text: `text ${n}` }) as PassageView

describe('givenPassages', () => {
  const passages = [1, 2, 3, 4].map(passage)

  it('is the first `given` passages once the prompt is built: the ones it held', () => {
    expect(givenPassages({ passages, given: 2 }).map((p) => p.id)).toEqual(['p1', 'p2'])
  })

  it('is every passage until the prompt is built', () => {
    expect(givenPassages({ passages }).map((p) => p.id)).toEqual(['p1', 'p2', 'p3', 'p4'])
  })

  it('leaves a citation of a passage the budget kept out of the prompt uncited', () => {
    const { cited } = answerSources('Set it first [1], then read it [4].', givenPassages({ passages, given: 3 }))
    expect(cited.map((row) => row.href)).toEqual(['/page-1'])
  })
})

const turn = (id: number, question: string, state: TurnView['state'], text = ''): TurnView => ({ id, question, phase: 'settled', state, text, passages: [], degraded: false })

describe('searchContext', () => {
  it('searches a retried follow-up with the question it followed, not with its own words again', () => {
    const turns = [turn(1, 'How do I deploy to Cloudflare?', 'answered', 'Use wrangler [1].'), turn(2, 'And on Deno?', 'hybrid')]
    expect(searchContext(turns, 'And on Deno?')).toEqual(['How do I deploy to Cloudflare?'])
    expect(searchContext(turns, 'How do I change the port?')).toEqual(['How do I deploy to Cloudflare?', 'And on Deno?'])
  })
})

describe('promptHistory', () => {
  it('keeps a question no model answered, with no answer: a follow-up to a search answer still has its subject', () => {
    const turns = [turn(1, 'How do I deploy to Cloudflare?', 'hybrid')]
    expect(promptHistory(turns, 'And on Deno?')).toEqual([{ question: 'How do I deploy to Cloudflare?', answer: '' }])
  })

  it('keeps what a stopped answer had written, and never the text of a turn no model answered', () => {
    const turns = [turn(1, 'q1', 'aborted', 'Use wrangler'), turn(2, 'q2', 'refused'), turn(3, 'q3', 'answered', 'Run deno serve [1].')]
    expect(promptHistory(turns, 'q4')).toEqual([
      { question: 'q1', answer: 'Use wrangler' },
      { question: 'q2', answer: '' },
      { question: 'q3', answer: 'Run deno serve [1].' },
    ])
  })

  it('keeps only the last asking of a question asked twice before (a search answer, then its Retry)', () => {
    const turns = [turn(1, 'q1', 'answered', 'a1'), turn(2, 'q2', 'hybrid'), turn(3, 'q2', 'answered', 'a2')]
    expect(promptHistory(turns, 'q3')).toEqual([
      { question: 'q1', answer: 'a1' },
      { question: 'q2', answer: 'a2' },
    ])
  })

  it('leaves out the question being asked again (a Retry): its old answer is what the reader wants replaced', () => {
    const turns = [turn(1, 'q1', 'answered', 'a1'), turn(2, 'q2', 'partial', 'half of a2')]
    expect(promptHistory(turns, 'q2')).toEqual([{ question: 'q1', answer: 'a1' }])
  })
})
