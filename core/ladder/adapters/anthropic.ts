/**
 * Anthropic Messages over SSE: message_start (model, input usage),
 * content_block_delta (text_delta), message_delta (stop_reason, output usage),
 * message_stop, ping, and `event: error` (e.g. overloaded_error mid-stream).
 */
import { ANTHROPIC } from '../../protocols/anthropic.ts'
import { classifyStreamError } from '../classify.ts'
import { chatRequest } from './request.ts'
import { jsonOrUndefined, sseDecoder } from './sse.ts'
import type { StreamEvent, WireAdapter } from './types.ts'

interface AnthropicEvent {
  type?: string
  message?: { model?: string; usage?: { input_tokens?: number } }
  delta?: { type?: string; text?: string; stop_reason?: string }
  usage?: { output_tokens?: number }
  error?: unknown
}

export const anthropicAdapter: WireAdapter = {
  protocol: 'anthropic',
  request(model, req) {
    const system = req.messages.filter((m) => m.role === 'system').map((m) => m.content)
    const body = {
      model,
      ...(system.length ? { system: system.join('\n\n') } : {}),
      messages: req.messages.filter((m) => m.role !== 'system'),
      temperature: req.temperature,
      stream: true,
    }
    return chatRequest(ANTHROPIC, model, 'text/event-stream', body, req.maxTokens)
  },
  decoder(now) {
    let stopReason: string | undefined
    return sseDecoder((message) => {
      const ev = jsonOrUndefined(message.data) as AnthropicEvent | undefined
      if (!ev || typeof ev !== 'object') return []
      const type = ev.type ?? message.event
      const out: StreamEvent[] = []
      switch (type) {
        case 'message_start':
          if (ev.message?.model) out.push({ type: 'meta', model: ev.message.model })
          if (ev.message?.usage) out.push({ type: 'meta', usage: { inputTokens: ev.message.usage.input_tokens } })
          break
        case 'content_block_delta':
          if (ev.delta?.type === 'text_delta' && ev.delta.text) out.push({ type: 'delta', text: ev.delta.text })
          break
        case 'message_delta':
          if (ev.delta?.stop_reason) stopReason = ev.delta.stop_reason
          if (ev.usage) out.push({ type: 'meta', usage: { outputTokens: ev.usage.output_tokens } })
          break
        case 'message_stop':
          out.push({ type: 'done', finishReason: stopReason })
          break
        case 'error':
          out.push({ type: 'error', failure: classifyStreamError(ev, now()) })
          break
      }
      return out
    })
  },
}
