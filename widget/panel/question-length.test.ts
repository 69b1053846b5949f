import { describe, expect, it } from 'vitest'
import { MAX_QUESTION_CHARS } from '../../core/prompt/build.ts'
import { questionLength } from './question-length.ts'

describe('questionLength', () => {
  it('says nothing about a question of ordinary length', () => {
    expect(questionLength('How do I set a cookie?')).toEqual({ text: '', over: false })
    expect(questionLength('x'.repeat(3199))).toEqual({ text: '', over: false })
  })

  it('counts from near the limit, the trimmed question as it would be asked', () => {
    expect(MAX_QUESTION_CHARS).toBe(4000)
    expect(questionLength('x'.repeat(3200))).toEqual({ text: '3,200 / 4,000 characters', over: false })
    expect(questionLength(`  ${'x'.repeat(4000)}\n\n`)).toEqual({ text: '4,000 / 4,000 characters', over: false })
  })

  it('past the limit, says the question must be shortened to be asked', () => {
    expect(questionLength('x'.repeat(61_600))).toEqual({ text: '61,600 / 4,000 characters: shorten the question to ask it.', over: true })
  })
})
