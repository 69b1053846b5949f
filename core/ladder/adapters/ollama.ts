/** Ollama's chat endpoint with stream: true: one JSON object per line, the last with done: true. */
import { OLLAMA } from '../../protocols/ollama.ts'
import { classifyStreamError } from '../classify.ts'
import { chatRequest } from './request.ts'
import { ndjsonDecoder } from './sse.ts'
import type { StreamEvent, WireAdapter } from './types.ts'

interface OllamaLine {
  model?: string
  message?: { content?: string; thinking?: string }
  done?: boolean
  done_reason?: string
  prompt_eval_count?: number
  eval_count?: number
  error?: unknown
}

export const ollamaAdapter: WireAdapter = {
  protocol: 'ollama',
  request(model, req) {
    const body = { model, messages: req.messages, stream: true, options: { temperature: req.temperature } }
    return chatRequest(OLLAMA, model, 'application/x-ndjson', body, req.maxTokens)
  },
  decoder(now) {
    let modelSeen = false
    return ndjsonDecoder(
      (value) => {
        const line = value as OllamaLine
        if (!line || typeof line !== 'object') return []
        if (line.error !== undefined) return [{ type: 'error', failure: classifyStreamError(line, now()) }]
        const out: StreamEvent[] = []
        if (!modelSeen && line.model) {
          modelSeen = true
          out.push({ type: 'meta', model: line.model })
        }
        const text = line.message?.content
        if (typeof text === 'string' && text.length > 0) out.push({ type: 'delta', text })
        if (typeof line.message?.thinking === 'string' && line.message.thinking.length > 0) out.push({ type: 'thinking' })
        if (line.done) {
          out.push({ type: 'meta', usage: { inputTokens: line.prompt_eval_count, outputTokens: line.eval_count } })
          out.push({ type: 'done', finishReason: line.done_reason ?? 'stop' })
        }
        return out
      },
      () => [{ type: 'error', failure: { class: 'unknown', status: null, code: 'bad_ndjson' } }],
    )
  },
}
