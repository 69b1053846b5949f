/**
 * The docpilot proxy's own refusals whose status alone names the wrong cause
 * (the codes and statuses are proxy/refusal.ts's): a key missing on the proxy
 * answers 503, which reads as an overloaded service ("nothing to fix on your
 * side"); an upstream the proxy could not reach, or that sent no headers in
 * time, answers 502 or 504, which read as the service failing. The walk does
 * the same either way (each costs the member its turn); what changes is the
 * class in the receipt, ?dpdebug=1 and feedback, and the fix hint beside it.
 */
import type { FailureClass } from './failure.ts'

export const PROXY_REFUSAL_CLASS: Readonly<Record<string, { status: number; class: FailureClass }>> = {
  key_not_set: { status: 503, class: 'auth' },
  upstream_not_configured: { status: 502, class: 'network' },
  upstream_unreachable: { status: 502, class: 'network' },
  upstream_timeout: { status: 504, class: 'timeout' },
}

/** The class a proxy refusal stands for, when the status and the body's code are one of the above. */
export function proxyRefusalClass(status: number | null, code: string | undefined): FailureClass | undefined {
  const known = code !== undefined && Object.hasOwn(PROXY_REFUSAL_CLASS, code) ? PROXY_REFUSAL_CLASS[code] : undefined
  return known && known.status === status ? known.class : undefined
}
