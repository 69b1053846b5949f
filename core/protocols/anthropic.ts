/** Anthropic Messages. */
import type { Protocol } from './types.ts'

export const ANTHROPIC: Protocol = {
  id: 'anthropic',
  paths: { chat: ['messages'], embed: [] },
  listPath: 'models',
  auth: { header: 'x-api-key' },
  headers: { 'anthropic-version': '2023-06-01' },
  maxTokens: { name: 'max_tokens' },
  body: {
    chat: { model: true, messages: { role: true, content: 'text' }, system: 'text', max_tokens: true, stream: true, temperature: true, top_p: true, top_k: true, stop_sequences: true },
    embed: {},
  },
}
