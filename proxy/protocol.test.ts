import { describe, expect, it } from 'vitest'
import { shapeBody } from './protocol.ts'

describe('shapeBody', () => {
  it('forwards only the fields a protocol needs, one answer per request', () => {
    const openai = shapeBody('openai', 'chat', { model: 'm', messages: [], n: 128, best_of: 20, tools: [{}], logprobs: true, max_tokens: 100 }, 512)
    expect(openai.body).toEqual({ model: 'm', messages: [], n: 1, max_tokens: 100 })
    expect(openai.clamped).toBe(false)
    const anthropic = shapeBody('anthropic', 'chat', { model: 'm', messages: [], max_tokens: 10, metadata: { user_id: 'x' }, tools: [] }, 512)
    expect(anthropic.body).toEqual({ model: 'm', messages: [], max_tokens: 10 })
  })

  it('clamps every spelling of the token limit (Gemini takes snake_case and camelCase) and forces candidateCount to 1', () => {
    const { body, clamped } = shapeBody(
      'gemini',
      'chat',
      { contents: [], generationConfig: { maxOutputTokens: 100, candidateCount: 8 }, generation_config: { max_output_tokens: 999_999, candidate_count: 8 }, cachedContent: 'x' },
      512,
    )
    expect(body).toEqual({ contents: [], generationConfig: { maxOutputTokens: 512, candidateCount: 1 } })
    expect(clamped).toBe(true)
    expect(JSON.stringify(body)).not.toMatch(/999999|_/)
  })

  it('clamps OpenAI, Anthropic and Ollama limits, writing one where absent; non-integer and negative values are clamped', () => {
    expect(shapeBody('openai', 'chat', { model: 'm', max_completion_tokens: 9999 }, 512).body).toEqual({ model: 'm', max_completion_tokens: 512 })
    expect(shapeBody('openai', 'chat', { model: 'm', maxTokens: 9999 }, 512).body).toEqual({ model: 'm', max_tokens: 512 })
    expect(shapeBody('anthropic', 'chat', { model: 'm', max_tokens: 1e9 }, 512).body).toEqual({ model: 'm', max_tokens: 512 })
    expect(shapeBody('ollama', 'chat', { model: 'm', options: { num_predict: -1, numPredict: 5 } }, 512).body).toEqual({ model: 'm', options: { num_predict: 512 } })
    expect(shapeBody('openai', 'chat', { model: 'm', max_tokens: 10.5 }, 512).body).toEqual({ model: 'm', max_tokens: 512 })
  })

  it('embedding bodies keep their own fields and are not clamped', () => {
    const batch = { requests: [{ model: 'models/e', content: { parts: [{ text: 'x' }] }, taskType: 'RETRIEVAL_QUERY', extra: 1 }], other: 2 }
    expect(shapeBody('gemini', 'embed', batch, 512)).toEqual({ body: { requests: [{ model: 'models/e', content: { parts: [{ text: 'x' }] }, taskType: 'RETRIEVAL_QUERY' }] }, clamped: false })
    expect(shapeBody('openai', 'embed', { model: 'e', input: ['x'], n: 5 }, 512).body).toEqual({ model: 'e', input: ['x'] })
  })
})
