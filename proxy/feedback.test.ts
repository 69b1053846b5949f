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
    // The receipt is an allow-list of record fields: text under any other name is never a receipt field.
    expect(JSON.stringify(row)).not.toContain('the prompt')
  })

  it('refuses a rating other than up or down, and overlong text', () => {
    expect(FeedbackInputSchema.safeParse({ rating: 'meh' }).success).toBe(false)
    expect(FeedbackInputSchema.safeParse({ rating: 'up', comment: 'x'.repeat(4097) }).success).toBe(false)
  })
})

describe('feedback is stored from an allow-list', () => {
  const parse = (value: unknown) => FeedbackInputSchema.safeParse(value)

  it('drops text under any name, at any depth, and keeps the page as a path', () => {
    const hostile = parse({
      rating: 'up',
      Question: 'secret-1',
      query: 'secret-2',
      userText: 'secret-3',
      msgs: [{ Content: 'secret-4' }],
      ladder: { provider: 'openai', index: 0, freePool: false, note: 'secret-5' },
      receipt: { outcome: 'answered', attempts: [{ member: 'openai', model: 'm', class: 'ok', status: 200, Text: 'secret-6' }], Prompt: 'secret-7' },
      page: 'https://docs.example.com/guide/intro?q=secret-8#secret-9',
    })
    expect(hostile.success).toBe(true)
    const row = feedbackRow(hostile.data!, false, at, 'id-3')
    expect(JSON.stringify(row)).not.toMatch(/secret/)
    expect(row.page).toBe('https://docs.example.com/guide/intro')
    expect(JSON.parse(row.ladder!)).toEqual({ provider: 'openai', index: 0, freePool: false })
  })

  it('refuses free text where a record field belongs, and strings that are not valid Unicode', () => {
    expect(parse({ rating: 'up', ladder: { provider: 'the whole question here', index: 0 } }).success).toBe(false)
    expect(parse({ rating: 'up', receipt: { attempts: [{ member: 'openai', model: 'm', class: 'ok', status: 200, code: 'my question text' }] } }).success).toBe(false)
    expect(parse({ rating: 'up', question: 'half a pair \ud800 here' }).success).toBe(false)
    expect(parse({ rating: 'up', comment: 'a whole pair \ud83d\ude00 is fine' }).success).toBe(true)
  })
})
