/**
 * Request bodies as the proxy accepts them: a JSON object, at most `maxDepth`
 * levels deep, checked by one linear scan before `JSON.parse` runs, so no
 * later step (counting, shaping, re-serialising, storing) can meet a
 * structure deep enough to exhaust the stack. Runtime-neutral.
 */
import type * as z from 'zod'
import { Refusal } from './refusal.ts'

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

/**
 * How long a body may take to arrive once its headers have. The bodies here are at most tens of kilobytes,
 * seconds on the slowest phone; without a deadline a client sending a byte every few seconds holds a
 * connection (and the upstream call it will start) for as long as the server's own request timeout.
 */
export const BODY_DEADLINE_MS = 20_000

/** A request's JSON object body; refused 413 beyond `cap` bytes (`tooLarge` says which limit), 408 when it takes too long, 400 when it is not one JSON object. */
export async function readJsonBody(req: Request, cap: number, tooLarge: string, deadlineMs = BODY_DEADLINE_MS): Promise<Record<string, unknown>> {
  const bytes = await readCapped(req, cap, deadlineMs)
  if (bytes === 'too_large') throw new Refusal('body_too_large', tooLarge)
  if (bytes === 'too_slow') throw new Refusal('body_timeout', `The request body took longer than ${deadlineMs / 1000} s to arrive.`)
  const json = parseJsonObject(bytes)
  if (!json.ok) throw new Refusal('invalid_body', json.message)
  return json.value
}

/** A body read as above and checked by `schema`; refused 400 naming the first field that fails (`noun` says what was sent). */
export async function readInput<T>(req: Request, cap: number, schema: z.ZodType<T>, noun: string, tooLarge: string, deadlineMs = BODY_DEADLINE_MS): Promise<T> {
  const parsed = schema.safeParse(await readJsonBody(req, cap, tooLarge, deadlineMs))
  if (parsed.success) return parsed.data
  const issue = parsed.error.issues[0]
  throw new Refusal('invalid_body', `Invalid ${noun} at ${issue?.path.join('.') || '(body)'}: ${issue?.message ?? 'expected a JSON object'}.`)
}

/** Read a body, stopping beyond `cap` bytes or after `deadlineMs` without reading further. */
async function readCapped(req: Request, cap: number, deadlineMs: number): Promise<Uint8Array<ArrayBuffer> | 'too_large' | 'too_slow'> {
  const declared = Number(req.headers.get('content-length') ?? NaN)
  if (Number.isFinite(declared) && declared > cap) return 'too_large'
  if (!req.body) return new Uint8Array()
  const reader = req.body.getReader()
  const parts: Uint8Array[] = []
  let size = 0
  let timer: ReturnType<typeof setTimeout> | undefined
  const late = new Promise<'too_slow'>((done) => (timer = setTimeout(() => done('too_slow'), deadlineMs)))
  try {
    for (;;) {
      const next = await Promise.race([reader.read(), late])
      if (next === 'too_slow') {
        await reader.cancel().catch(() => {})
        return 'too_slow'
      }
      const { done, value } = next
      if (done) break
      size += value.byteLength
      if (size > cap) {
        await reader.cancel().catch(() => {})
        return 'too_large'
      }
      parts.push(value)
    }
  } finally {
    clearTimeout(timer)
  }
  const out = new Uint8Array(size)
  let at = 0
  for (const p of parts) {
    out.set(p, at)
    at += p.byteLength
  }
  return out
}
