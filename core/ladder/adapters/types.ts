/**
 * One adapter per wire protocol. An adapter only translates: it builds the
 * request a member's route expects and decodes that protocol's stream into
 * events. It never fetches, times, retries or decides anything.
 */
import type { WireProtocol } from '../../protocols/types.ts'
import type { Failure } from '../failure.ts'

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant'
  content: string
}

export interface ChatRequest {
  messages: ChatMessage[]
  maxTokens: number
  temperature: number
}

/** What goes on the wire, relative to the member's base (its `/ai/<member>` route or upstream base URL). */
export interface WireRequest {
  /** Appended to the base: the protocol's call path (core/protocols). */
  path: string
  method: 'POST'
  /** Protocol headers only (content type, API version); credentials are the transport's business. */
  headers: Record<string, string>
  body: string
}

export interface Usage {
  inputTokens?: number
  outputTokens?: number
}

export type StreamEvent =
  | { type: 'delta'; text: string }
  /** The model is thinking, in a field of its own (nothing to show): the stream is alive. */
  | { type: 'thinking' }
  /** The service said the answer is complete. */
  | { type: 'done'; finishReason?: string }
  /** Side facts: the model that actually served, token usage. */
  | { type: 'meta'; model?: string; usage?: Usage }
  /** An error sent inside a 200 stream. */
  | { type: 'error'; failure: Failure }

/** Push decoder: feed decoded text as it arrives; `end()` flushes what is left. */
export interface StreamDecoder {
  push(text: string): StreamEvent[]
  end(): StreamEvent[]
}

export interface WireAdapter {
  protocol: WireProtocol
  request(model: string, req: ChatRequest): WireRequest
  decoder(now: () => number): StreamDecoder
}
