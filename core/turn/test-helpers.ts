/**
 * Test support for the ladder and the turn (not shipped to the panel): hand-made
 * search results, and a chain wired to the fake provider servers over real HTTP.
 */
import { ChatSchema } from '../config/schema.ts'
import { resolveChain, toPublicChain, type ResolvedChain } from '../chain/resolve.ts'
import type { PublicChainMember } from '../index/format.ts'
import { directTransport } from '../ladder/transport.ts'
import type { Transport } from '../ladder/attempt.ts'
import type { MemberId } from '../providers/table.ts'
import type { Passage, SearchResult } from '../retrieval/search.ts'

export const PASSAGE_TEXTS = [
  'Use c.set() and c.get() to pass values between middleware and handlers.',
  'The Context object carries the request, the response helpers and variables.',
  'Routing matches paths in the order routes were registered.',
]

export function passage(i: number): Passage {
  return {
    id: `c${i}`,
    path: `docs/api/p${i}.md`,
    url: `/docs/api/p${i}`,
    anchor: `h${i}`,
    title: `Page ${i}`,
    trail: [`Page ${i}`, `Heading ${i}`],
    text: PASSAGE_TEXTS[i % PASSAGE_TEXTS.length]!,
    score: 1 / (i + 1),
  }
}

export function searchResult(over: Partial<SearchResult> = {}): SearchResult {
  return {
    mode: 'hybrid',
    degraded: false,
    gate: { pass: true, score: 0.7, signals: { vocabulary: 1, cooccurrence: 0.7, meaning: 0.7 } },
    results: [0, 1, 2].map(passage),
    ...over,
  }
}

export interface FakeChain {
  resolved: ResolvedChain
  chain: PublicChainMember[]
  transport: Transport
}

/** An explicit chain (walked as written) whose members all point at the fake server's env. */
export function fakeChain(env: Record<string, string>, members: (MemberId | { provider: MemberId; model?: string; models?: string[] })[], extra: Record<string, unknown> = {}): FakeChain {
  const resolved = resolveChain(ChatSchema.parse({ chain: members, ...extra }), env)
  return { resolved, chain: toPublicChain(resolved), transport: directTransport(resolved, env) }
}
