/**
 * OpenAI chat completions over SSE. Also spoken by mistral, together, groq,
 * openrouter, deepseek, custom servers and llama.cpp's llama-server.
 * OpenRouter sends `: OPENROUTER PROCESSING` comments (ignored by the parser)
 * and reports mid-stream failures as a chunk carrying `error`.
 */
import { OPENAI } from '../../protocols/openai.ts'
import { classifyStreamError } from '../classify.ts'
import { chatRequest } from './request.ts'
import { jsonOrUndefined, sseDecoder } from './sse.ts'
import type { StreamEvent, WireAdapter } from './types.ts'

interface Chunk {
  model?: string
  error?: unknown
  choices?: {
    delta?: { content?: string | null; reasoning_content?: string | null; reasoning?: string | null; reasoning_details?: unknown[] | null }
    finish_reason?: string | null
  }[]
  usage?: { prompt_tokens?: number; completion_tokens?: number } | null
}

export const openaiAdapter: WireAdapter = {
  protocol: 'openai',
  request(model, req) {
    const body = { model, messages: req.messages, temperature: req.temperature, stream: true, stream_options: { include_usage: true } }
    return chatRequest(OPENAI, model, 'text/event-stream', body, req.maxTokens)
  },
  decoder(now) {
    let modelSeen = false
    return sseDecoder((message) => {
      if (message.data.trim() === '[DONE]') return [{ type: 'done' }]
      const chunk = jsonOrUndefined(message.data) as Chunk | undefined
      if (!chunk || typeof chunk !== 'object') return []
      if (chunk.error !== undefined) return [{ type: 'error', failure: classifyStreamError(chunk, now()) }]
      const out: StreamEvent[] = []
      if (!modelSeen && typeof chunk.model === 'string' && chunk.model) {
        modelSeen = true
        out.push({ type: 'meta', model: chunk.model })
      }
      for (const choice of chunk.choices ?? []) {
        const text = choice.delta?.content
        if (typeof text === 'string' && text.length > 0) out.push({ type: 'delta', text })
        // DeepSeek and llama-server say reasoning_content; OpenRouter and Groq's parsed format say reasoning (a server
        // may send both, one of them empty); OpenRouter's reasoning_details alone carries a model's encrypted reasoning.
        const delta = choice.delta
        const thought = [delta?.reasoning_content, delta?.reasoning].some((t) => typeof t === 'string' && t.length > 0)
        if (thought || (Array.isArray(delta?.reasoning_details) && delta.reasoning_details.length > 0)) out.push({ type: 'thinking' })
        if (choice.finish_reason === 'error') out.push({ type: 'error', failure: classifyStreamError(chunk, now()) })
        else if (choice.finish_reason) out.push({ type: 'done', finishReason: choice.finish_reason })
      }
      if (chunk.usage) {
        out.push({
          type: 'meta',
          usage: { inputTokens: chunk.usage.prompt_tokens, outputTokens: chunk.usage.completion_tokens },
        })
      }
      return out
    },
    // llama-server reports a failure as an `error:` field, which is not an SSE message.
    (field, value) => (field === 'error' ? [{ type: 'error', failure: classifyStreamError({ error: jsonOrUndefined(value) ?? value }, now()) }] : []),
    )
  },
}
