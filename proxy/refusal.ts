/**
 * Every way the proxy refuses a request, as a closed set: the code, its
 * status and when it is sent. Route logic throws a `Refusal`; the app turns
 * it into the response in one place (`onError` in proxy/app.ts), and CORS is
 * added there like on any other response. The body is always
 * `{error: {code, message}}`, the message saying what to change (never a key).
 * docs/proxy.md lists the same codes; refusal.test.ts compares the two.
 */
import { HTTPException } from 'hono/http-exception'
import { CLIENT_LIMIT } from '../core/ladder/client-limit.ts'
import { SITE_CEILING } from '../core/ladder/site-ceiling.ts'

export const REFUSAL_STATUS = {
  /** Anything but POST (and OPTIONS preflight) on a route that exists; anything but GET or HEAD on /ai/health. */
  method_not_allowed: 405,
  /** A browser Origin that is neither one of proxy.siteOrigins nor in proxy.allowedOrigins. */
  origin_not_allowed: 403,
  /** This client's token bucket is empty (Retry-After, X-Docpilot-Quota: client): the signal core/ladder/client-limit.ts defines. */
  [CLIENT_LIMIT.code]: CLIENT_LIMIT.status,
  /** /ai/<member>/ names no member of the resolved chain. */
  unknown_member: 404,
  /** A path under /ai that is no route at all (/ai, /ai/<name>, /ai/health/x), whatever the method; the message lists the routes. */
  unknown_route: 404,
  /** A path the member's wire protocol does not need (chat, embeddings only). */
  path_not_allowed: 404,
  /** /ai/events while insights.enabled is false (nothing is stored). */
  insights_off: 404,
  /** A body over proxy.maxBodyBytes (feedback and events: feedback.maxBytes). */
  body_too_large: 413,
  /** A body still arriving BODY_DEADLINE_MS after its headers (json-body.ts): a connection held open a byte at a time. */
  body_timeout: 408,
  /** Not a JSON object, nested deeper than 32 levels (checked before anything is counted), or not a valid feedback or event record. */
  invalid_body: 400,
  /** A model the config never declared for that route. */
  model_not_allowed: 403,
  /** budget.dailyLimit reached (Retry-After, X-RateLimit-Reset, X-Docpilot-Quota: daily): the signal core/ladder/site-ceiling.ts defines. */
  [SITE_CEILING.code]: SITE_CEILING.status,
  /** The member's key variable is missing on the proxy. */
  key_not_set: 503,
  /** No proxy.siteOrigins, no DOCPILOT_PROXY on a Worker, or a key that cannot be a header value (names the variable, never its value). */
  proxy_misconfigured: 503,
  /** An own-server member with no base URL (its URL variable is not set on the proxy). */
  upstream_not_configured: 502,
  /** /ai/mcp on a proxy that serves no docs to agents (docs/agents.md). */
  mcp_not_enabled: 404,
  /** The upstream could not be reached. */
  upstream_unreachable: 502,
  /** The upstream answered with a redirect (never followed: the key would go along). */
  upstream_redirected: 502,
  /** No response headers within chat.timeouts.firstByteMs. */
  upstream_timeout: 504,
  /** Anything unexpected: a fixed message and an error id (ERROR_ID_HEADER); details only in the proxy's log. */
  proxy_error: 500,
} as const

/** The id of a proxy_error, also in its message: the line to look for in the proxy's log. */
export const ERROR_ID_HEADER = 'X-Docpilot-Error-Id'

export type RefusalCode = keyof typeof REFUSAL_STATUS

/** A refusal: thrown by route logic, answered by the app's error handler. */
export class Refusal extends HTTPException {
  override name = 'Refusal'

  constructor(
    readonly code: RefusalCode,
    message: string,
    /** Headers the refusal carries besides the JSON ones (Retry-After, Allow, ...). */
    readonly headers: Readonly<Record<string, string>> = {},
  ) {
    super(REFUSAL_STATUS[code], { message })
  }

  override getResponse(): Response {
    return new Response(JSON.stringify({ error: { code: this.code, message: this.message } }), {
      status: this.status,
      headers: { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store', ...this.headers },
    })
  }
}
