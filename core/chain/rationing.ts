/**
 * Per-day rationing is only defensible against one allowance. A chain that
 * mixes the free tier with a billed account has two allowances and one
 * counter, so rationing turns off unless budget.dailyLimit states one ceiling;
 * `index` and `doctor` print the note so nobody discovers it on an invoice.
 */
import type { PublicChainMember } from '../index-format.ts'

export interface Rationing {
  enabled: boolean
  dailyLimit?: number
  note?: string
}

export const MIXED_CHAIN_NOTE =
  "This chain mixes a free tier with a billed account, so per-day rationing is off: once the free tier's day is spent, questions rotate to the billed member and are billed. Set budget.dailyLimit to state one ceiling for the whole chain."

export function isMixedChain(members: readonly Pick<PublicChainMember, 'tier'>[]): boolean {
  return members.some((m) => m.tier === 'free') && members.some((m) => m.tier === 'billed')
}

export function rationing(members: readonly Pick<PublicChainMember, 'tier'>[], budget?: { dailyLimit?: number }): Rationing {
  const limit = budget?.dailyLimit
  if (limit !== undefined) return { enabled: true, dailyLimit: limit }
  if (isMixedChain(members)) return { enabled: false, note: MIXED_CHAIN_NOTE }
  return { enabled: true }
}
