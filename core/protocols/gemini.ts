/** Gemini (Generative Language API): the model is named in the path. */
import type { FieldRules, Protocol } from './types.ts'

const TEXT: FieldRules = { role: true, parts: { text: 'text' } }
const EMBED_ITEM: FieldRules = { model: true, content: TEXT, taskType: true, title: 'text', outputDimensionality: true }

export const GEMINI: Protocol = {
  id: 'gemini',
  paths: {
    chat: ['models/{model}:streamGenerateContent?alt=sse'],
    embed: ['models/{model}:batchEmbedContents', 'models/{model}:embedContent'],
  },
  listPath: 'models',
  auth: { header: 'x-goog-api-key' },
  headers: {},
  maxTokens: { in: 'generationConfig', name: 'maxOutputTokens' },
  multiplier: { in: 'generationConfig', name: 'candidateCount' },
  body: {
    chat: {
      contents: TEXT,
      systemInstruction: TEXT,
      safetySettings: true,
      generationConfig: { temperature: true, topP: true, topK: true, maxOutputTokens: true, stopSequences: true, candidateCount: true, responseMimeType: true },
    },
    embed: { ...EMBED_ITEM, requests: EMBED_ITEM },
  },
  snakeCaseAlso: true,
}
