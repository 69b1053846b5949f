/**
 * How the proxy applies a wire protocol (core/protocols holds its facts): the
 * only paths it forwards, the query parameters and body fields that pass, the
 * output-token ceiling it clamps, and the credential it attaches.
 *
 * Runtime-neutral: imported by the Node and the Workers entry alike.
 */
import { credentialHeaders, fieldHolder, fillPath, protocolOf, PROTOCOLS, type FieldRules, type Protocol, type RouteKind, type WireProtocol } from '../core/protocols/index.ts'
import type { MemberId, ProviderSpec } from '../core/providers/table.ts'

export type { RouteKind }

/** A protocol path split into what the proxy matches and the query it lets through. */
interface PathRule {
  pattern: RegExp
  kind: RouteKind
  /** Query parameter names this path takes (Gemini's `alt`). */
  query: string[]
}

const escapeRegExp = (s: string) => s.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')

function pathRules(protocol: Protocol): PathRule[] {
  return (['chat', 'embed'] as const).flatMap((kind) =>
    protocol.paths[kind].map((full) => {
      const [template = '', query = ''] = full.split('?')
      // `{model}` is one path segment: no slash, and no colon (Gemini's method follows one).
      const pattern = new RegExp(`^${escapeRegExp(template).replace(escapeRegExp('{model}'), '([^/:]+)')}$`)
      return { pattern, kind, query: [...new URLSearchParams(query).keys()] }
    }),
  )
}

const RULES = Object.fromEntries(Object.values(PROTOCOLS).map((p) => [p.id, pathRules(p)])) as Record<WireProtocol, PathRule[]>

export interface MatchedPath {
  kind: RouteKind
  /** Model named in the path (Gemini), decoded. */
  pathModel?: string
}

export function matchPath(protocol: WireProtocol, rest: string): MatchedPath | undefined {
  for (const rule of RULES[protocol]) {
    const m = rule.pattern.exec(rest)
    if (!m) continue
    if (m[1] === undefined) return { kind: rule.kind }
    try {
      return { kind: rule.kind, pathModel: decodeURIComponent(m[1]) }
    } catch {
      return undefined
    }
  }
  return undefined
}

export interface RoutePath {
  kind: RouteKind
  /** Below the member's base URL, without the query. */
  path: string
  /** The query this path is called with (Gemini's chat: `alt=sse`), or ''. */
  query: string
}

/** The protocol paths a member needs for the given kinds, `{model}` filled when a model is given (doctor, the health route). */
export function routePaths(protocol: WireProtocol, kinds: RouteKind[], model?: string): RoutePath[] {
  return kinds.flatMap((kind) =>
    protocolOf(protocol).paths[kind].map((full) => {
      const [template = '', query = ''] = (model === undefined ? full : fillPath(full, model)).split('?')
      return { kind, path: template, query }
    }),
  )
}

export function protocolPaths(protocol: WireProtocol, kinds: RouteKind[], model?: string): string[] {
  return routePaths(protocol, kinds, model).map((p) => p.path)
}

/** Members whose model list answers without a key (OpenRouter's is public): the probe GETs the key's own record instead. */
const KEY_RECORD_PATH: Partial<Record<MemberId, string>> = { openrouter: 'key' }

/**
 * What the health probe GETs: the service's model list, or the key's own
 * record where the list is public. Either proves reachability and the key
 * without spending tokens or the site's daily ceiling.
 */
export function probePath(spec: Pick<ProviderSpec, 'id' | 'protocol'>): string {
  return KEY_RECORD_PATH[spec.id] ?? protocolOf(spec.protocol).listPath
}

/** Query parameters an upstream may receive; everything else (notably Gemini's `key=`) is dropped. */
export function filterQuery(protocol: WireProtocol, search: URLSearchParams): string {
  const kept = new URLSearchParams()
  for (const name of new Set(RULES[protocol].flatMap((r) => r.query))) {
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
 * Every model a request names: in the body, or in the path (Gemini), whose
 * batch embedding repeats the model per item (`models/<id>`); each must be
 * the one the path names.
 */
export function requestModels(matched: MatchedPath, body: Json): string[] {
  if (matched.pathModel === undefined) return [typeof body.model === 'string' ? body.model : '']
  const models = [matched.pathModel]
  const inner: unknown[] = Array.isArray(body.requests) ? body.requests : [body]
  for (const item of inner) {
    if (isObject(item) && typeof item.model === 'string') models.push(item.model.replace(/^models\//, ''))
  }
  return models
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
    if (rule === 'text') {
      if (typeof v === 'string') out[name] = v
      continue
    }
    // Both spellings of one field: the nested objects merge, so no copy escapes the clamp below.
    out[name] = rule === true ? v : isObject(out[name]) && isObject(v) ? { ...(out[name] as Json), ...(pick(v, rule, rename) as Json) } : pick(v, rule, rename)
  }
  return out
}

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
export function shapeBody(protocolId: WireProtocol, kind: RouteKind, input: Json, cap: number): ShapedBody {
  const protocol = protocolOf(protocolId)
  const body = pick(input, protocol.body[kind], protocol.snakeCaseAlso ? camel : (k) => k) as Json
  if (kind !== 'chat') return { body, clamped: false }
  // One answer per request: a multiplier is forced to 1.
  const multiplier = protocol.multiplier
  const holder = multiplier && fieldHolder(body, multiplier, false)
  if (multiplier && holder?.[multiplier.name] !== undefined) holder[multiplier.name] = 1
  return { body, clamped: clampMaxTokens(protocol, body, cap) }
}

/**
 * Clamp the output-token ceiling to `cap` in every spelling the body uses,
 * writing the protocol's own spelling when it uses none. Returns whether the body changed.
 */
function clampMaxTokens(protocol: Protocol, body: Json, cap: number): boolean {
  const field = protocol.maxTokens
  const holder = fieldHolder(body, field, true)!
  const names = [field.name, ...(field.alternatives ?? [])]
  const present = names.filter((name) => holder[name] !== undefined)
  let changed = false
  for (const name of present.length ? present : [field.name]) {
    const v = holder[name]
    if (typeof v === 'number' && Number.isInteger(v) && v >= 0 && v <= cap) continue
    holder[name] = cap
    changed = true
  }
  return changed
}

/** Attach the proxy's credential (and the protocol's version headers) the way the provider expects them. */
export function attachCredential(headers: Headers, protocolId: WireProtocol, key: string | undefined): void {
  const protocol = protocolOf(protocolId)
  for (const [name, value] of Object.entries({ ...protocol.headers, ...credentialHeaders(protocol, key) })) headers.set(name, value)
}
