/**
 * Transports: how an attempt's request reaches a member.
 * - routeTransport: the panel's way — the same-origin `/ai/<member>` route; the proxy holds the key.
 * - directTransport: the CLI's and tests' way — the upstream base URL, with the key attached here
 *   (the environment lives in that process; nothing of it is returned or logged).
 */
import type { PublicChainMember } from '../index/format.ts'
import { credentialHeaders, protocolOf } from '../protocols/index.ts'
import { providerSpec, type MemberId } from '../providers/table.ts'
import type { Env, ResolvedChain } from '../chain/resolve.ts'
import type { Transport } from './attempt.ts'

type Fetch = (input: string, init: RequestInit) => Promise<Response>

export function routeTransport(opts: { origin?: string; fetch?: Fetch } = {}): Transport {
  const doFetch: Fetch = opts.fetch ?? ((u, i) => fetch(u, i))
  const origin = opts.origin ?? ''
  return (member, req) =>
    doFetch(`${origin}${member.route}${req.path}`, {
      method: req.method,
      headers: req.headers,
      body: req.body,
      signal: req.signal,
      credentials: 'same-origin',
    })
}

export function directTransport(resolved: ResolvedChain, env: Env, opts: { fetch?: Fetch } = {}): Transport {
  const doFetch: Fetch = opts.fetch ?? ((u, i) => fetch(u, i))
  const bases = new Map<MemberId, { baseUrl: string | null; keyEnv?: string }>()
  for (const m of resolved.members) bases.set(m.provider, m)
  return (member: PublicChainMember, req) => {
    const m = bases.get(member.provider)
    if (!m?.baseUrl) return Promise.reject(new Error(`No base URL for member "${member.provider}"`))
    const protocol = protocolOf(providerSpec(member.provider).protocol)
    const key = m.keyEnv ? env[m.keyEnv] : undefined
    return doFetch(`${m.baseUrl.replace(/\/+$/, '')}${req.path}`, {
      method: req.method,
      headers: { ...req.headers, ...credentialHeaders(protocol, key) },
      body: req.body,
      signal: req.signal,
    })
  }
}
