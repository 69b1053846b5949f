/**
 * The wire protocols by id, and the few readings of them that more than one
 * place needs (the adapters and the hosted embedder call a path, the
 * transports and the proxy attach a key, the adapters and the proxy write the
 * output-token ceiling).
 */
import { ANTHROPIC } from './anthropic.ts'
import { GEMINI } from './gemini.ts'
import { OLLAMA } from './ollama.ts'
import { OPENAI } from './openai.ts'
import type { BodyField, Protocol, RouteKind, WireProtocol } from './types.ts'

export const PROTOCOLS: Readonly<Record<WireProtocol, Protocol>> = { openai: OPENAI, gemini: GEMINI, anthropic: ANTHROPIC, ollama: OLLAMA }

export function protocolOf(id: WireProtocol): Protocol {
  return PROTOCOLS[id]
}

/** A path template with its `{model}` filled in (encoded: a model id is one path segment). */
export function fillPath(template: string, model: string): string {
  return template.replace('{model}', encodeURIComponent(model))
}

/** The path docpilot calls for this kind of route, below the member's base: e.g. `/chat/completions`. */
export function callPath(protocol: Protocol, kind: RouteKind, model: string): string {
  const template = protocol.paths[kind][0]
  if (template === undefined) throw new Error(`the ${protocol.id} protocol has no ${kind} endpoint`)
  return `/${fillPath(template, model)}`
}

/** The header carrying a member's key, the way its protocol expects it; none without a key. */
export function credentialHeaders(protocol: Protocol, key: string | undefined): Record<string, string> {
  if (!key || !protocol.auth) return {}
  return { [protocol.auth.header]: `${protocol.auth.prefix ?? ''}${key}` }
}

type Json = Record<string, unknown>

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v)

/** The object a field lives in; with `create`, an absent (or non-object) holder is written. */
export function fieldHolder(body: Json, field: BodyField, create: boolean): Json | undefined {
  if (!field.in) return body
  if (!isObject(body[field.in])) {
    if (!create) return undefined
    body[field.in] = {}
  }
  return body[field.in] as Json
}

/** `body` with `field` set to `value` (creating its holder). */
export function withField(body: Json, field: BodyField, value: unknown): Json {
  fieldHolder(body, field, true)![field.name] = value
  return body
}

export type { BodyField, FieldRules, Protocol, RouteKind, WireProtocol } from './types.ts'
