import { describe, expect, it } from 'vitest'
import { FeedbackInputSchema, feedbackRow } from './feedback.ts'

const input = FeedbackInputSchema.parse({
  rating: 'down',
  page: '/docs/api/context',
  receipt: {
    outcome: 'answered',
    attempts: [{ member: 'openai', model: 'gpt-4o-mini', class: 'ok', status: 200, latencyMs: 12, messages: ['the prompt'] }],
    prompt: 'the prompt',
    passages: [{ text: 'a passage' }],
  },
  ladder: { provider: 'openai', index: 0, freePool: false },
  question: 'What does c.set do?',
  answer: 'It stores a value.',
  comment: 'wrong section',
})
const at = new Date('2026-01-01T00:00:00Z')

describe('feedbackRow', () => {
  it('keeps the rating, page, receipt record and ladder, and drops every text field at any depth by default', () => {
    const row = feedbackRow(input, false, at, 'id-1')
    expect(row).toMatchObject({ id: 'id-1', createdAt: '2026-01-01T00:00:00.000Z', rating: 'down', page: '/docs/api/context', question: null, answer: null, comment: null })
    expect(JSON.parse(row.ladder!)).toEqual({ provider: 'openai', index: 0, freePool: false })
    expect(JSON.parse(row.receipt!)).toEqual({ outcome: 'answered', attempts: [{ member: 'openai', model: 'gpt-4o-mini', class: 'ok', status: 200, latencyMs: 12 }] })
    for (const text of ['the prompt', 'a passage', 'What does', 'stores a value', 'wrong section']) expect(JSON.stringify(row)).not.toContain(text)
  })

  it('keeps the text when the owner opted in (feedback.storeText)', () => {
    const row = feedbackRow(input, true, at, 'id-2')
    expect(row).toMatchObject({ question: 'What does c.set do?', answer: 'It stores a value.', comment: 'wrong section' })
    expect(JSON.parse(row.receipt!).prompt).toBe('the prompt')
  })

  it('refuses a rating other than up or down, and overlong text', () => {
    expect(FeedbackInputSchema.safeParse({ rating: 'meh' }).success).toBe(false)
    expect(FeedbackInputSchema.safeParse({ rating: 'up', comment: 'x'.repeat(4097) }).success).toBe(false)
  })
})
