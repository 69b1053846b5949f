/** Ollama's own API (NDJSON streams). It takes no key. */
import type { FieldRules, Protocol } from './types.ts'

// No num_ctx: a new context size makes Ollama reload the model and allocate its KV cache, so one
// reader alternating sizes (or asking for a huge one) could stall or exhaust the owner's server.
const OPTIONS: FieldRules = { num_predict: true, temperature: true, top_p: true, top_k: true, stop: true, seed: true, repeat_penalty: true }

export const OLLAMA: Protocol = {
  id: 'ollama',
  paths: { chat: ['api/chat'], embed: ['api/embed'] },
  listPath: 'api/tags',
  headers: {},
  maxTokens: { in: 'options', name: 'num_predict' },
  body: {
    chat: { model: true, messages: { role: true, content: 'text' }, stream: true, format: true, options: OPTIONS },
    embed: { model: true, input: true, truncate: true, options: OPTIONS },
  },
}
