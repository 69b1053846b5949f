/**
 * Gemini streamGenerateContent as SSE (core/protocols/gemini.ts). Each SSE event is a
 * GenerateContentResponse; the last one carries finishReason and usage.
 */
import { GEMINI } from '../../protocols/gemini.ts'
import { classifyStreamError } from '../classify.ts'
import { chatRequest } from './request.ts'
import { jsonOrUndefined, sseDecoder } from './sse.ts'
import type { StreamEvent, WireAdapter } from './types.ts'

interface GeminiChunk {
  error?: unknown
  modelVersion?: string
  candidates?: { content?: { parts?: { text?: string; thought?: boolean }[] }; finishReason?: string }[]
  usageMetadata?: { promptTokenCount?: number; candidatesTokenCount?: number }
  promptFeedback?: { blockReason?: string }
}

export const geminiAdapter: WireAdapter = {
  protocol: 'gemini',
  request(model, req) {
    const system = req.messages.filter((m) => m.role === 'system').map((m) => m.content)
    const contents = req.messages
      .filter((m) => m.role !== 'system')
      .map((m) => ({ role: m.role === 'assistant' ? 'model' : 'user', parts: [{ text: m.content }] }))
    const body = {
      ...(system.length ? { systemInstruction: { parts: [{ text: system.join('\n\n') }] } } : {}),
      contents,
      generationConfig: { temperature: req.temperature },
    }
    return chatRequest(GEMINI, model, 'text/event-stream', body, req.maxTokens)
  },
  decoder(now) {
    let modelSeen = false
    return sseDecoder((message) => {
      const chunk = jsonOrUndefined(message.data) as GeminiChunk | undefined
      if (!chunk || typeof chunk !== 'object') return []
      if (chunk.error !== undefined) return [{ type: 'error', failure: classifyStreamError(chunk, now()) }]
      const out: StreamEvent[] = []
      if (!modelSeen && chunk.modelVersion) {
        modelSeen = true
        out.push({ type: 'meta', model: chunk.modelVersion })
      }
      const candidate = chunk.candidates?.[0]
      for (const part of candidate?.content?.parts ?? []) {
        if (!part.thought && typeof part.text === 'string' && part.text.length > 0) out.push({ type: 'delta', text: part.text })
      }
      if (chunk.usageMetadata) {
        out.push({
          type: 'meta',
          usage: { inputTokens: chunk.usageMetadata.promptTokenCount, outputTokens: chunk.usageMetadata.candidatesTokenCount },
        })
      }
      if (candidate?.finishReason) out.push({ type: 'done', finishReason: candidate.finishReason })
      else if (chunk.promptFeedback?.blockReason) out.push({ type: 'done', finishReason: chunk.promptFeedback.blockReason })
      return out
    })
  },
}
