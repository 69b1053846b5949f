/**
 * OpenRouter's free catalogue. With no model named, OpenRouter answers with
 * its own router over the free tier (one id, one request). `model: 'free'`
 * opts into an ordered pool: the router first, then explicit free ids, walked
 * inside the member (one id's 429 moves to the next id).
 */

export const FREE_ROUTER = 'openrouter/free'

/** The literal a config writes to opt into the pool. */
export const FREE_POOL_KEYWORD = 'free'

/** Nine explicit free ids behind the router; `chat.freeModels` replaces them. */
export const DEFAULT_FREE_MODELS: readonly string[] = [
  'meta-llama/llama-3.3-70b-instruct:free',
  'deepseek/deepseek-chat-v3-0324:free',
  'google/gemini-2.0-flash-exp:free',
  'qwen/qwen-2.5-72b-instruct:free',
  'mistralai/mistral-small-3.1-24b-instruct:free',
  'google/gemma-3-27b-it:free',
  'meta-llama/llama-4-maverick:free',
  'deepseek/deepseek-r1:free',
  'qwen/qwq-32b:free',
]

/** The ordered pool: the router at its head, then the explicit ids (no duplicates). */
export function freePoolModels(override?: readonly string[]): string[] {
  const ids = [FREE_ROUTER, ...(override ?? DEFAULT_FREE_MODELS)]
  return [...new Set(ids)]
}

/** Daily request allowances of the free tier (requests, not tokens). */
export const FREE_DAILY_REQUESTS = { underTenCredits: 50, overTenCredits: 1000 } as const
