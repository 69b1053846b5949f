/**
 * What each wire protocol needs from the proxy: the only paths it forwards
 * (chat and embeddings), where the model name lives, how the output-token
 * ceiling is written, and how the credential is attached.
 *
 * Runtime-neutral: imported by the Node and the Workers entry alike.
 */
import type { AuthStyle, WireProtocol } from '../core/providers/table.ts'

export type RouteKind = 'chat' | 'embed'

interface PathRule {
  pattern: RegExp
  kind: RouteKind
  /** Gemini names the model in the path; the others in the JSON body. */
  modelInPath: boolean
}

const PATHS: Record<WireProtocol, PathRule[]> = {
  openai: [
    { pattern: /^chat\/completions$/, kind: 'chat', modelInPath: false },
    { pattern: /^embeddings$/, kind: 'embed', modelInPath: false },
  ],
  anthropic: [{ pattern: /^messages$/, kind: 'chat', modelInPath: false }],
  gemini: [
    { pattern: /^models\/([^/:]+):streamGenerateContent$/, kind: 'chat', modelInPath: true },
    { pattern: /^models\/([^/:]+):(?:embedContent|batchEmbedContents)$/, kind: 'embed', modelInPath: true },
  ],
  ollama: [
    { pattern: /^api\/chat$/, kind: 'chat', modelInPath: false },
    { pattern: /^api\/embed$/, kind: 'embed', modelInPath: false },
  ],
}

/** Query parameters an upstream may receive; everything else (notably Gemini's `key=`) is dropped. */
const QUERY_ALLOWED: Record<WireProtocol, string[]> = {
  openai: [],
  anthropic: [],
  gemini: ['alt'],
  ollama: [],
}

export interface MatchedPath {
  kind: RouteKind
  /** Model named in the path (Gemini), decoded. */
  pathModel?: string
}

export function matchPath(protocol: WireProtocol, rest: string): MatchedPath | undefined {
  for (const rule of PATHS[protocol]) {
    const m = rule.pattern.exec(rest)
    if (!m) continue
    if (!rule.modelInPath) return { kind: rule.kind }
    try {
      return { kind: rule.kind, pathModel: decodeURIComponent(m[1] ?? '') }
    } catch {
      return undefined
    }
  }
  return undefined
}

/** The protocol paths a member needs for the given kinds, for `doctor` and the health route. */
export function protocolPaths(protocol: WireProtocol, kinds: RouteKind[], model = '{model}'): string[] {
  const out: string[] = []
  const add = (kind: RouteKind, path: string) => {
    if (kinds.includes(kind)) out.push(path)
  }
  switch (protocol) {
    case 'openai':
      add('chat', 'chat/completions')
      add('embed', 'embeddings')
      break
    case 'anthropic':
      add('chat', 'messages')
      break
    case 'gemini':
      add('chat', `models/${model}:streamGenerateContent`)
      add('embed', `models/${model}:embedContent`)
      add('embed', `models/${model}:batchEmbedContents`)
      break
    case 'ollama':
      add('chat', 'api/chat')
      add('embed', 'api/embed')
      break
  }
  return out
}

/**
 * The service's model-list endpoint: a GET that proves reachability and the
 * key without spending tokens or the site's daily ceiling (used by the health probe).
 */
export function listPath(protocol: WireProtocol): string {
  return protocol === 'ollama' ? 'api/tags' : 'models'
}

export function filterQuery(protocol: WireProtocol, search: URLSearchParams): string {
  const kept = new URLSearchParams()
  for (const name of QUERY_ALLOWED[protocol]) {
    const value = search.get(name)
    if (value !== null) kept.set(name, value)
  }
  const s = kept.toString()
  return s ? `?${s}` : ''
}

type Json = Record<string, unknown>

function isObject(v: unknown): v is Json {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/**
 * Every model a request names. Gemini's batch embedding repeats the model per
 * item (`models/<id>`); each must be the one the path names.
 */
export function requestModels(protocol: WireProtocol, matched: MatchedPath, body: Json): string[] {
  if (protocol !== 'gemini') return [typeof body.model === 'string' ? body.model : '']
  const models = [matched.pathModel ?? '']
  const inner: unknown[] = Array.isArray(body.requests) ? body.requests : [body]
  for (const item of inner) {
    if (isObject(item) && typeof item.model === 'string') models.push(item.model.replace(/^models\//, ''))
  }
  return models
}

/** A field's rule: forward as it is (`true`), or an object whose own fields are allow-listed. */
type FieldRules = { [field: string]: true | FieldRules }

const OPENAI_SAMPLING: FieldRules = { temperature: true, top_p: true, stop: true, presence_penalty: true, frequency_penalty: true, seed: true }
const GEMINI_EMBED_ITEM: FieldRules = { model: true, content: true, taskType: true, title: true, outputDimensionality: true }
const OLLAMA_OPTIONS: FieldRules = { num_predict: true, temperature: true, top_p: true, top_k: true, stop: true, seed: true, num_ctx: true, repeat_penalty: true }

/**
 * The body fields each protocol and route forwards; everything else is
 * dropped (tools, logprobs, multipliers under other names, provider extras),
 * so the owner's bill only pays for what a panel turn needs.
 */
const BODY_FIELDS: Record<WireProtocol, Record<RouteKind, FieldRules>> = {
  openai: {
    chat: { model: true, messages: true, stream: true, stream_options: true, max_tokens: true, max_completion_tokens: true, n: true, response_format: true, ...OPENAI_SAMPLING },
    embed: { model: true, input: true, dimensions: true, encoding_format: true },
  },
  anthropic: {
    chat: { model: true, messages: true, system: true, max_tokens: true, stream: true, temperature: true, top_p: true, top_k: true, stop_sequences: true },
    embed: {},
  },
  gemini: {
    chat: {
      contents: true,
      systemInstruction: true,
      safetySettings: true,
      generationConfig: { temperature: true, topP: true, topK: true, maxOutputTokens: true, stopSequences: true, candidateCount: true, responseMimeType: true },
    },
    embed: { ...GEMINI_EMBED_ITEM, requests: GEMINI_EMBED_ITEM },
  },
  ollama: {
    chat: { model: true, messages: true, stream: true, format: true, options: OLLAMA_OPTIONS },
    embed: { model: true, input: true, truncate: true, options: OLLAMA_OPTIONS },
  },
}

/** Gemini's JSON accepts proto field names in snake_case as well; one spelling is forwarded. */
const camel = (key: string) => key.replace(/_([a-z])/g, (_, c: string) => c.toUpperCase())

function pick(value: unknown, rules: FieldRules, rename: (key: string) => string): unknown {
  if (Array.isArray(value)) return value.map((item) => pick(item, rules, rename))
  if (!isObject(value)) return value
  const out: Json = {}
  for (const [key, v] of Object.entries(value)) {
    const name = rename(key)
    const rule = rules[name]
    if (rule === undefined || !Object.hasOwn(rules, name)) continue
    // Both spellings of one field: the nested objects merge, so no copy escapes the clamp below.
    out[name] = rule === true ? v : isObject(out[name]) && isObject(v) ? { ...(out[name] as Json), ...(pick(v, rule, rename) as Json) } : pick(v, rule, rename)
  }
  return out
}

/** Fields that ask for several answers to one request; each is forced to 1. */
const MULTIPLIERS: Record<WireProtocol, (body: Json) => Json | undefined> = {
  openai: (body) => body,
  anthropic: () => undefined,
  gemini: (body) => (isObject(body.generationConfig) ? body.generationConfig : undefined),
  ollama: () => undefined,
}
const MULTIPLIER_FIELDS = ['n', 'candidateCount']

export interface ShapedBody {
  body: Json
  /** The output-token ceiling was lowered to the cap (or written where absent). */
  clamped: boolean
}

/**
 * The body an upstream receives: only the allow-listed fields of this
 * protocol and route, one answer per request, and every output-token
 * ceiling at most `cap` (written when absent: an absent ceiling means the
 * model's maximum upstream).
 */
export function shapeBody(protocol: WireProtocol, kind: RouteKind, input: Json, cap: number): ShapedBody {
  const body = pick(input, BODY_FIELDS[protocol][kind], protocol === 'gemini' ? camel : (k) => k) as Json
  if (kind !== 'chat') return { body, clamped: false }
  const holder = MULTIPLIERS[protocol](body)
  for (const field of MULTIPLIER_FIELDS) if (holder && holder[field] !== undefined) holder[field] = 1
  return { body, clamped: clampMaxTokens(protocol, body, cap) }
}

/** Clamp the output-token ceiling to `cap`, writing it when absent. Returns whether the body changed. */
function clampMaxTokens(protocol: WireProtocol, body: Json, cap: number): boolean {
  const clampField = (holder: Json, field: string, fillIfAbsent: boolean): boolean => {
    const v = holder[field]
    if (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= cap) return false
    if (v === undefined && !fillIfAbsent) return false
    holder[field] = cap
    return true
  }
  switch (protocol) {
    case 'openai': {
      const hasCompletion = body.max_completion_tokens !== undefined
      let changed = false
      if (hasCompletion) changed = clampField(body, 'max_completion_tokens', false)
      return clampField(body, 'max_tokens', !hasCompletion) || changed
    }
    case 'anthropic':
      return clampField(body, 'max_tokens', true)
    case 'gemini': {
      if (!isObject(body.generationConfig)) body.generationConfig = {}
      return clampField(body.generationConfig as Json, 'maxOutputTokens', true)
    }
    case 'ollama': {
      if (!isObject(body.options)) body.options = {}
      return clampField(body.options as Json, 'num_predict', true)
    }
  }
}

const ANTHROPIC_VERSION = '2023-06-01'

/** Attach the proxy's credential the way the provider expects it. */
export function attachCredential(headers: Headers, auth: AuthStyle, protocol: WireProtocol, key: string | undefined): void {
  if (protocol === 'anthropic') headers.set('anthropic-version', ANTHROPIC_VERSION)
  if (!key) return
  switch (auth) {
    case 'bearer':
      headers.set('authorization', `Bearer ${key}`)
      break
    case 'x-api-key':
      headers.set('x-api-key', key)
      break
    case 'x-goog-api-key':
      headers.set('x-goog-api-key', key)
      break
    case 'none':
      break
  }
}
