import type { WireProtocol } from '../../protocols/types.ts'
import { anthropicAdapter } from './anthropic.ts'
import { geminiAdapter } from './gemini.ts'
import { ollamaAdapter } from './ollama.ts'
import { openaiAdapter } from './openai.ts'
import type { WireAdapter } from './types.ts'

export const ADAPTERS: Record<WireProtocol, WireAdapter> = {
  openai: openaiAdapter,
  gemini: geminiAdapter,
  anthropic: anthropicAdapter,
  ollama: ollamaAdapter,
}

export function adapterFor(protocol: WireProtocol): WireAdapter {
  return ADAPTERS[protocol]
}

export type { ChatMessage, ChatRequest, StreamEvent, WireAdapter, WireRequest } from './types.ts'
