/**
 * Which pages may call the proxy, and what a listed other site's page may
 * read of its answers. The site's own origins (proxy.siteOrigins, with scheme)
 * need no CORS; the origins in proxy.allowedOrigins are answered with it, on
 * every response, refusals included, so the panel there can read why it was
 * refused and when to retry.
 */
import { SITE_CEILING } from '../core/ladder/site-ceiling.ts'
import { PROTOCOLS } from '../core/protocols/index.ts'
import { ERROR_ID_HEADER } from './refusal.ts'

/** Set when the proxy clamped the request's output-token ceiling to proxy.maxTokens. */
export const CLAMPED_HEADER = 'X-Docpilot-Max-Tokens-Clamped'

/**
 * The waits an upstream names in headers, each one the panel's classifier
 * reads (core/ladder/classify.ts): how long a member cools, and whether a
 * 429 is a day's quota. Unexposed, a panel on another site would read none.
 */
const WAIT_HEADERS = [
  'Retry-After',
  'Retry-After-Ms',
  'X-RateLimit-Reset',
  'X-RateLimit-Reset-Requests',
  'X-RateLimit-Reset-Tokens',
  'Anthropic-RateLimit-Requests-Reset',
  'Anthropic-RateLimit-Tokens-Reset',
]

/** Response headers a listed origin's page may read: the waits, the site's daily ceiling, the clamp, a proxy error's id. */
const EXPOSE = [...WAIT_HEADERS, SITE_CEILING.header, CLAMPED_HEADER, ERROR_ID_HEADER].join(', ')

/**
 * Request headers a listed origin's page may send: the panel's requests carry
 * their protocol's version headers (Anthropic's `anthropic-version`) as well,
 * and a browser refuses the whole request when its preflight does not allow one.
 */
const ALLOW_HEADERS = [...new Set(['content-type', 'accept', ...Object.values(PROTOCOLS).flatMap((p) => Object.keys(p.headers))])].join(', ')

/** The site's origin, with scheme: what a configured origin or an Origin header is compared as. */
export function originOf(value: string): string | undefined {
  const url = URL.parse(value)
  return url && (url.protocol === 'http:' || url.protocol === 'https:') ? url.origin : undefined
}

/** Refused, or served: with `cors` (the Origin to answer) for a listed other site. */
export type OriginVerdict = { allowed: false } | { allowed: true; cors?: string }

/**
 * The site's own origins and the listed others; the request's Host header
 * plays no part (a DNS-rebinding page sends its own Host). A request without
 * Origin is not from a page (curl, `doctor`); the origin check exists to stop
 * other sites' pages from spending the owner's keys through readers'
 * browsers, and the rate and daily limits bound everything else.
 */
export function checkOrigin(header: string | undefined, site: string[], allowed: string[]): OriginVerdict {
  if (header === undefined) return { allowed: true }
  const origin = header === 'null' ? undefined : originOf(header)
  if (!origin) return { allowed: false }
  if (site.some((o) => originOf(o) === origin)) return { allowed: true }
  if (allowed.some((o) => originOf(o) === origin)) return { allowed: true, cors: header }
  return { allowed: false }
}

/** A preflight's answer: the route's methods for a listed origin (withCors adds the rest), nothing for the site itself. */
export function preflight(methods: readonly string[], cors: string | undefined): Response {
  const res = new Response(null, { status: 204 })
  if (cors) {
    res.headers.set('access-control-allow-methods', methods.join(', '))
    res.headers.set('access-control-allow-headers', ALLOW_HEADERS)
    res.headers.set('access-control-max-age', '600')
  }
  return res
}

export function withCors(res: Response, cors: string | undefined): Response {
  if (!cors) return res
  res.headers.set('access-control-allow-origin', cors)
  res.headers.append('vary', 'Origin')
  res.headers.set('access-control-expose-headers', EXPOSE)
  return res
}
