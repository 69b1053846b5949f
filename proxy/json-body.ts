/**
 * Request bodies as the proxy accepts them: a JSON object, at most `maxDepth`
 * levels deep, checked by one linear scan before `JSON.parse` runs, so no
 * later step (counting, shaping, re-serialising, storing) can meet a
 * structure deep enough to exhaust the stack. Runtime-neutral.
 */

/** Nesting a panel's request never comes near (chat messages with tool schemas stay under 20). */
export const MAX_JSON_DEPTH = 32

const QUOTE = 0x22
const BACKSLASH = 0x5c
const OPEN = new Set([0x5b, 0x7b])
const CLOSE = new Set([0x5d, 0x7d])

/** The deepest array/object nesting in JSON bytes, strings skipped. Stops counting past `limit`. */
export function jsonDepth(bytes: Uint8Array, limit = Infinity): number {
  let depth = 0
  let deepest = 0
  let inString = false
  for (let i = 0; i < bytes.length; i++) {
    const b = bytes[i]!
    if (inString) {
      if (b === BACKSLASH) i++
      else if (b === QUOTE) inString = false
    } else if (b === QUOTE) {
      inString = true
    } else if (OPEN.has(b)) {
      depth++
      if (depth > deepest) deepest = depth
      if (deepest > limit) return deepest
    } else if (CLOSE.has(b)) {
      depth--
    }
  }
  return deepest
}

export type JsonBody = { ok: true; value: Record<string, unknown> } | { ok: false; message: string }

const strictUtf8 = new TextDecoder('utf-8', { fatal: true })

/** A JSON object within the depth limit, or why not (for a 400 `invalid_body`). */
export function parseJsonObject(bytes: Uint8Array, maxDepth = MAX_JSON_DEPTH): JsonBody {
  if (jsonDepth(bytes, maxDepth) > maxDepth) return { ok: false, message: `The request body nests deeper than ${maxDepth} levels.` }
  let value: unknown
  try {
    value = JSON.parse(strictUtf8.decode(bytes))
  } catch {
    return { ok: false, message: 'The request body must be a JSON object (UTF-8).' }
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) return { ok: false, message: 'The request body must be a JSON object.' }
  return { ok: true, value: value as Record<string, unknown> }
}
