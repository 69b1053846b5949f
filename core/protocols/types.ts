/**
 * What a wire protocol is, as far as docpilot needs to know it: the facts the
 * adapters, the proxy, `doctor` and the hosted embedder must agree on.
 * One module per protocol fills this in; nothing else writes these values.
 */

export type WireProtocol = 'openai' | 'gemini' | 'anthropic' | 'ollama'

export type RouteKind = 'chat' | 'embed'

/**
 * A body field's rule: forward as it is (`true`), only when it is a string
 * (`'text'`), or an object whose own fields are allow-listed. Message and
 * part contents are `'text'`: the panel sends text only, and a content part
 * naming media (an image or PDF URL, a YouTube video, a file) makes the
 * provider fetch it and bill it as input tokens, far beyond what the body's
 * byte cap lets text cost.
 */
export type FieldRules = { readonly [field: string]: true | 'text' | FieldRules }

/** Where a body field lives: at the top level, or inside one object (`generationConfig`, `options`). */
export interface BodyField {
  readonly in?: string
  readonly name: string
}

export interface Protocol {
  readonly id: WireProtocol
  /**
   * The paths below a member's base URL, by route kind: the only ones the proxy
   * forwards, and what doctor prints. `{model}` stands for the model id; a query
   * is part of the path when the protocol needs one (its names are the only
   * query parameters an upstream receives). The first path of a kind is the one
   * docpilot itself calls.
   */
  readonly paths: Readonly<Record<RouteKind, readonly string[]>>
  /** The model-list endpoint: a GET that proves reachability and the key without spending tokens. */
  readonly listPath: string
  /** The header that carries the key, with the value's prefix; absent when the protocol takes no key. */
  readonly auth?: { readonly header: string; readonly prefix?: string }
  /** Headers every request carries (the API version). */
  readonly headers: Readonly<Record<string, string>>
  /** The output-token ceiling, and other spellings of it a client may send instead. */
  readonly maxTokens: BodyField & { readonly alternatives?: readonly string[] }
  /** A field asking for several answers to one request. */
  readonly multiplier?: BodyField
  /** The body fields each route needs; the proxy forwards nothing else. */
  readonly body: Readonly<Record<RouteKind, FieldRules>>
  /** The JSON also accepts field names in snake_case (Gemini's proto names); forwarded in camelCase. */
  readonly snakeCaseAlso?: boolean
}
