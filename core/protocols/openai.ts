/**
 * OpenAI chat completions and embeddings, also spoken by mistral, together,
 * groq, openrouter, deepseek, custom servers and llama.cpp's llama-server.
 */
import type { FieldRules, Protocol } from './types.ts'

const SAMPLING: FieldRules = { temperature: true, top_p: true, stop: true, presence_penalty: true, frequency_penalty: true, seed: true }

export const OPENAI: Protocol = {
  id: 'openai',
  paths: { chat: ['chat/completions'], embed: ['embeddings'] },
  listPath: 'models',
  auth: { header: 'authorization', prefix: 'Bearer ' },
  headers: {},
  // Newer models take max_completion_tokens; a client may send either.
  maxTokens: { name: 'max_tokens', alternatives: ['max_completion_tokens'] },
  multiplier: { name: 'n' },
  body: {
    chat: { model: true, messages: { role: true, content: 'text' }, stream: true, stream_options: true, max_tokens: true, max_completion_tokens: true, n: true, response_format: true, ...SAMPLING },
    embed: { model: true, input: true, dimensions: true, encoding_format: true },
  },
}
